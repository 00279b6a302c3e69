"""The host's refusals of project work, kept so that a blocked workflow can say which rule to add.

Headless (``claude -p``) without project rules, Claude Code refuses a task agent's first write or
command; the agent reports the refusal, the workflow blocks, and the session's
``permission_denials`` is empty because the refusal happened in a sub-agent.  The
``post-tool-use-failure`` hook sees it (``agent_id``/``agent_type``, ``tool_name``,
``tool_input``, ``error``) and keeps the last refusal per agent in ``.agents/refusals.json``;
``next`` names it, with the ``permissions.allow`` rule of docs/plugin.md's "Unattended runs",
in the ``ask_user`` action of a blocked or failed workflow (issue 27, item 2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

__all__ = ["ASKED", "FILE", "forget_if_ran", "latest", "refusal_of", "remember", "rule_for"]

FILE = "refusals.json"
# how Claude Code 2.1.330 words a tool call it refused for want of a permission rule
_MARKS = ("haven't granted", "needs approval", "requires approval", "permission to use")
_EDITS = ("Edit", "MultiEdit", "NotebookEdit")
_LONG = 80  # a longer command gets a prefix rule


def rule_for(tool: str, tool_input: dict[str, Any]) -> str:
    """The ``permissions.allow`` rule that lets this call run unattended."""
    if tool in _EDITS:
        return "Edit"
    if tool == "Bash":
        command = " ".join(str(tool_input.get("command") or "").split())
        if not command:
            return "Bash"
        if len(command) <= _LONG:
            return f"Bash({command})"
        return f"Bash({command.split()[0]} *)"
    return tool


def _target(tool: str, tool_input: dict[str, Any]) -> str | None:
    for key in ("file_path", "notebook_path", "command", "path", "url"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:200]
    return None


ASKED = "the host asked for permission (headless: refused)"


def refusal_of(payload: dict[str, Any], at: str) -> dict[str, Any] | None:
    """A refusal from a PostToolUseFailure payload (its error reads as one) or a
    PermissionRequest payload (headless, the host refuses what it would ask), else None."""
    asked = payload.get("hook_event_name") == "PermissionRequest"
    error = ASKED if asked else payload.get("error")
    tool = payload.get("tool_name")
    if not isinstance(error, str) or not isinstance(tool, str) or not tool:
        return None
    if not asked and not any(m in error.lower() for m in _MARKS):
        return None
    raw = payload.get("tool_input")
    tool_input = raw if isinstance(raw, dict) else {}
    agent = payload.get("agent_id")
    kind = payload.get("agent_type")
    return {
        "agent": agent if isinstance(agent, str) and agent else "main",
        "agentType": kind if isinstance(kind, str) and kind else None,
        "tool": tool,
        "target": _target(tool, tool_input),
        "rule": rule_for(tool, tool_input),
        "error": " ".join(error.split())[:300],
        "at": at,
    }


def _path(root: str) -> str:
    return os.path.join(root, ".agents", FILE)


def _read(root: str) -> dict[str, Any]:
    try:
        with open(_path(root), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def remember(root: str, refusal: dict[str, Any]) -> None:
    """Keep ``refusal`` as its agent's last (a lost write loses only this advice)."""

    def change(data: dict[str, Any]) -> bool:
        data[refusal["agent"]] = refusal
        return True

    _update(root, change, strict=True)


def forget_if_ran(root: str, payload: dict[str, Any]) -> None:
    """The call an agent was asked about ran after all (a person approved it): drop it."""
    if not os.path.exists(_path(root)):
        return
    agent = payload.get("agent_id") or "main"
    raw = payload.get("tool_input")
    tool_input = raw if isinstance(raw, dict) else {}
    tool = payload.get("tool_name")

    def change(data: dict[str, Any]) -> bool:
        kept = data.get(agent)
        if (
            not isinstance(kept, dict)
            or kept.get("tool") != tool
            or kept.get("target") != _target(str(tool), tool_input)
        ):
            return False
        del data[agent]
        return True

    _update(root, change, strict=False)


def _update(root: str, change: Callable[[dict[str, Any]], bool], strict: bool) -> None:
    """Read, change and write the file atomically under the store's lock on ``.agents/``: the
    hooks of parallel agents refused at once each keep their own (issue 27)."""
    from pathlib import Path

    from agents_state.errors import AgentsStateError, StorageIOError
    from agents_state.store.fsops import atomic_write
    from agents_state.store.lock import env_lock_timeout
    from agents_state.store.lockfile import LockTimeout, acquire

    folder = Path(root, ".agents")
    if not folder.is_dir():  # a PostgreSQL store without the folder: never create it for this
        if strict:
            raise OSError(".agents/ is not a folder")
        return
    try:
        release = acquire(folder, env_lock_timeout())
    except (LockTimeout, OSError, AgentsStateError) as e:
        if strict:
            raise OSError(f".agents/: not locked ({type(e).__name__})") from None
        return
    try:
        data = _read(root)
        if change(data):
            atomic_write(Path(_path(root)), json.dumps(data, indent=1).encode(), f".agents/{FILE}")
    except StorageIOError as e:
        if strict:
            raise OSError(str(e)) from None
    finally:
        release()


def latest(root: str, since: str | None) -> dict[str, Any] | None:
    """The newest refusal recorded at or after ``since`` (an ISO time), or None."""
    found = [
        r
        for r in _read(root).values()
        if isinstance(r, dict)
        and isinstance(r.get("at"), str)
        and isinstance(r.get("rule"), str)
        and (since is None or r["at"] >= since)
    ]
    return max(found, key=lambda r: str(r["at"]), default=None)
