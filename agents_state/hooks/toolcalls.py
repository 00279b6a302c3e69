"""PostToolUse: count tool calls in ``.agents/toolcalls.log`` (``store/toolcalls``).

In the main conversation it also remembers the transcript (compaction advice) and, after a Bash
call of ``agents-state``, books the conversation's token usage (``hooks/usage``, issue 24).

The hook only decides what to record; the store appends the line.  ``session-start`` clears the
log on startup, clear and compact.
"""

from __future__ import annotations

import os

from agents_state.hooks._base import find_root, pg_store, read_payload
from agents_state.store.toolcalls import (
    COMPACT_AFTER_CALLS,
    LOG_NAME,
    count,
    counts,
    record,
    reset,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["COMPACT_AFTER_CALLS", "LOG_NAME", "count", "counts", "handle", "record", "reset"]


def _engine_step(payload: dict[str, Any]) -> bool:
    """A Bash call of the engine: where the workflow moves and budgets are checked, so the
    conversation's usage is booked then (and at Stop), not at every Read or Grep."""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    return (
        payload.get("tool_name") == "Bash"
        and isinstance(command, str)
        and ("agents-state" in command)
    )


def handle(event: str, explicit_root: str | None) -> None:
    payload = read_payload()
    if payload is None:
        return
    root = find_root(explicit_root, payload)
    if root is None:
        return
    if pg_store(root) is not None:
        from agents_state.hooks._base import active_state

        if active_state(root) is None:
            return
    elif not os.path.exists(os.path.join(root, ".agents", "state.json")):
        return
    if event == "permission-request":  # not a call yet: kept, not counted
        _remember_refusal(root, payload)
        return
    agent = payload.get("agent_id")
    record(root, agent if isinstance(agent, str) and agent else "main")
    if event == "post-tool-use-failure":
        _remember_refusal(root, payload)
    elif os.path.exists(os.path.join(root, ".agents", "refusals.json")):
        from agents_state.store.refusals import forget_if_ran

        forget_if_ran(root, payload)
    transcript = payload.get("transcript_path")
    if not agent and isinstance(transcript, str) and transcript:
        from agents_state.contextsize import remember_transcript

        try:
            remember_transcript(root, transcript)  # for the 70% compaction advice (issue 15)
        except OSError:
            pass
        if _engine_step(payload):  # the orchestrator's tokens, by phase (issue 24)
            from agents_state.hooks.usage import on_main

            on_main(root, transcript)


def _remember_refusal(root: str, payload: dict[str, Any]) -> None:
    """A refused project step, for the blocked next action's advice (issue 27, item 2)."""
    from agents_state.store.refusals import refusal_of, remember
    from agents_state.types import format_time, utcnow

    refusal = refusal_of(payload, format_time(utcnow()), root)
    if refusal is None or not os.path.isdir(os.path.join(root, ".agents")):
        return
    try:
        remember(root, refusal)
    except OSError:
        pass  # advice lost, the count above is kept
