"""The prompt a sub-agent was dispatched with: the first user message of its transcript.

SubagentStop carries ``agent_transcript_path``; the orchestrator's prompt is that file's first
``user`` record (a string, or text blocks).  A handoff may complete only a task this prompt
names (issue 23): an agent's own answer is not proof of which task it was sent for.  Anything
unreadable (no path, no file, no user record in the first MiB) is no prompt: the handoff then
completes nothing and lands in the ledger.
"""

from __future__ import annotations

import json

from agents_state.hooks.workflow_root import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["dispatch_prompt", "prompt_in"]

_LIMIT = 1 << 20


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


def dispatch_prompt(payload: dict[str, Any]) -> str:
    path = payload.get("agent_transcript_path")
    if not isinstance(path, str) or not path:
        return ""
    return prompt_in(path)


def prompt_in(path: str) -> str:
    """The first user record's text in the transcript at ``path`` ("" when there is none)."""
    try:
        raw = read_regular(path, _LIMIT)[:_LIMIT]
    except (OSError, ValueError):
        return ""
    for line in raw.splitlines():
        if b'"user"' not in line:
            continue
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(rec, dict) and rec.get("type") == "user":
            msg = rec.get("message")
            return _text(msg.get("content")) if isinstance(msg, dict) else ""
    return ""
