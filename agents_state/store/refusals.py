"""The host's refusals of project work, kept so that a blocked workflow can say which rule to add.

Headless (``claude -p``) without project rules, Claude Code refuses a task agent's first write or
command; the agent reports the refusal, the workflow blocks, and the session's
``permission_denials`` is empty because the refusal happened in a sub-agent.  The
``post-tool-use-failure`` hook sees it (``agent_id``/``agent_type``, ``tool_name``,
``tool_input``, ``error``) and keeps every refused call in ``.agents/refusals.json`` (one entry
per call, the newest last, at most ``KEPT``; issue 33), forgotten when the same call then runs;
``next`` names those of the current step, each with the narrowest ``permissions.allow`` rule of
docs/plugin.md's "Unattended runs" (``allowrules``), in the ``ask_user`` action of a blocked or
failed workflow (issue 27, item 2).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, TypedDict, cast

__all__ = [
    "ASKED",
    "FILE",
    "KEPT",
    "Refusal",
    "forget_if_ran",
    "of_step",
    "refusal_of",
    "remember",
    "rule_for",
]

FILE = "refusals.json"
KEPT = 20  # refused calls kept, the oldest dropped
# how Claude Code 2.1.330 words a tool call it refused for want of a permission rule
_MARKS = ("haven't granted", "needs approval", "requires approval", "permission to use")


class Refusal(TypedDict):
    """One refused call in ``.agents/refusals.json`` (a JSON object as written; a TypedDict,
    not a record: the hook keeps and drops entries and never builds more than this)."""

    agent: str  # the host's agent_id, or "main"
    agentType: str | None
    tool: str
    target: str | None  # the path, command or URL, shortened (``_target``)
    rules: list[str]  # the narrowest ``permissions.allow`` rules, none for a person's decision
    rule: str  # the rules quoted and joined, or ``allowrules.PERSON``
    error: str
    at: str


def rule_for(tool: str, tool_input: dict[str, Any], root: str | None = None) -> str:
    """The ``permissions.allow`` rules that let this call run unattended, quoted and joined
    (``allowrules``), or ``allowrules.PERSON`` for a person's decision."""
    from agents_state.store.allowrules import PERSON, rules_for

    rules = rules_for(tool, tool_input, root)
    return ", ".join(f'"{r}"' for r in rules) if rules else PERSON


def _target(tool: str, tool_input: dict[str, Any]) -> str | None:
    for key in ("file_path", "notebook_path", "command", "path", "url"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:200]
    return None


ASKED = "the host asked for permission (headless: refused)"


def refusal_of(payload: dict[str, Any], at: str, root: str | None = None) -> Refusal | None:
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
    from agents_state.store.allowrules import rules_for

    agent = payload.get("agent_id")
    kind = payload.get("agent_type")
    return {
        "agent": agent if isinstance(agent, str) and agent else "main",
        "agentType": kind if isinstance(kind, str) and kind else None,
        "tool": tool,
        "target": _target(tool, tool_input),
        "rules": rules_for(tool, tool_input, root),
        "rule": rule_for(tool, tool_input, root),
        "error": " ".join(error.split())[:300],
        "at": at,
    }


def _path(root: str) -> str:
    return os.path.join(root, ".agents", FILE)


def _read(root: str) -> list[Refusal]:
    try:
        with open(_path(root), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return []
    kept = data.get("refused") if isinstance(data, dict) else None
    if not isinstance(kept, list):
        return []
    # as ``remember`` wrote them (a hand-made entry missing a key is read as it is)
    return cast("list[Refusal]", [r for r in kept if isinstance(r, dict)])


def _same(a: Refusal, tool: object, target: object) -> bool:
    return a.get("tool") == tool and a.get("target") == target


def remember(root: str, refusal: Refusal) -> None:
    """Keep ``refusal`` as the newest, once per call (tool and target), at most ``KEPT`` (a
    lost write loses only this advice)."""

    def change(data: list[Refusal]) -> bool:
        data[:] = [r for r in data if not _same(r, refusal["tool"], refusal["target"])]
        data.append(refusal)
        del data[:-KEPT]
        return True

    _update(root, change, strict=True)


def forget_if_ran(root: str, payload: dict[str, Any]) -> None:
    """A refused call ran after all (a person approved it, or a rule now allows it): drop it."""
    if not os.path.exists(_path(root)):
        return
    raw = payload.get("tool_input")
    tool_input = raw if isinstance(raw, dict) else {}
    tool = payload.get("tool_name")
    target = _target(str(tool), tool_input)

    def change(data: list[Refusal]) -> bool:
        kept = [r for r in data if not _same(r, tool, target)]
        if len(kept) == len(data):
            return False
        data[:] = kept
        return True

    _update(root, change, strict=False)


def _update(root: str, change: Callable[[list[Refusal]], bool], strict: bool) -> None:
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
            text = json.dumps({"refused": data}, indent=1)
            atomic_write(Path(_path(root)), text.encode(), f".agents/{FILE}")
    except StorageIOError as e:
        if strict:
            raise OSError(str(e)) from None
    finally:
        release()


def of_step(root: str, since: str | None) -> list[Refusal]:
    """The refused calls recorded at or after ``since`` (an ISO time), oldest first."""
    return [
        r
        for r in _read(root)
        if isinstance(r.get("at"), str)
        and isinstance(r.get("rule"), str)
        and (since is None or r["at"] >= since)
    ]
