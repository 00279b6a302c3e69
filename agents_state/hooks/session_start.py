"""SessionStart: after startup, resume, clear or compact, put the workflow back in the context.

The text comes from ``agents_state.app.context_text`` (what ``agents-state context``
prints); if that is unavailable a short fallback built from the raw state says where the
workflow stands and which commands continue it.  On startup, clear and compact the
orchestrator's context is fresh, so the tool-call count starts again.

One injection per session start (issue 27): ``claude -p --continue "/compact"`` fires
``resume`` and then ``compact`` in the same session with nothing done in between; the second
finds the first in ``.agents/session-start.json`` (the session, its source and the main
conversation's tool calls at that moment) and injects nothing.  A later compaction, after the
conversation made tool calls, injects again.
"""

from __future__ import annotations

from agents_state.hooks._base import active_state, emit, find_root, read_payload, warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MARK_FILE", "SOURCES", "fallback_text", "handle"]

SOURCES = ("startup", "resume", "clear", "compact")
MARK_FILE = "session-start.json"


def fallback_text(state: dict[str, Any]) -> str:
    task = state.get("task", "?")
    status = state.get("status", "pending")
    phase = state.get("currentPhase")
    where = f" at phase {phase}" if phase else ""
    lines = [
        f'agents-state: a workflow is active: "{task}" ({status}{where}).',
        "Before anything else run `agents-state context` and follow `agents-state next` exactly.",
    ]
    if state.get("blockedReason"):
        lines.append(f"It is blocked: {state['blockedReason']} (see `agents-state resume`).")
    return "\n".join(lines)


def _context(root: str, state: dict[str, Any]) -> str | None:
    try:
        from pathlib import Path

        from agents_state.app import context_text  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return fallback_text(state)
    try:
        text: str | None = context_text(Path(root))
    except Exception as e:
        warn(f"could not build the workflow context ({type(e).__name__}: {e}); using a summary")
        return fallback_text(state)
    return text


def handle(event: str, explicit_root: str | None) -> None:
    payload = read_payload()
    if payload is None:
        return
    root = find_root(explicit_root, payload)
    if root is None:
        return
    source = payload.get("source")
    from agents_state.store.toolcalls import count, reset

    mark = {"session": payload.get("session_id"), "source": source, "calls": count(root)}
    if source in ("startup", "clear", "compact"):
        reset(root)
    state = active_state(root)
    if state is None or (source is not None and source not in SOURCES):
        return
    if source == "compact" and _injected_at_start(root, mark):
        return
    text = _context(root, state)
    if text:
        _remember(root, mark)
        emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


def _injected_at_start(root: str, mark: dict[str, Any]) -> bool:
    """This session started (startup/resume) with the workflow injected and made no tool call
    since: the compaction that follows at once needs no second copy."""
    import json
    import os

    try:
        with open(os.path.join(root, ".agents", MARK_FILE), encoding="utf-8") as f:
            last = json.load(f)
    except (OSError, ValueError):
        return False
    return (
        isinstance(last, dict)
        and mark["session"] is not None
        and last.get("session") == mark["session"]
        and last.get("source") in ("startup", "resume")
        and last.get("calls") == mark["calls"]
    )


def _remember(root: str, mark: dict[str, Any]) -> None:
    import json
    import os
    from pathlib import Path

    if not os.path.isdir(os.path.join(root, ".agents")):
        return  # a PostgreSQL store without the folder: never create it for this

    from agents_state.errors import StorageIOError
    from agents_state.store.fsops import atomic_write

    try:
        atomic_write(
            Path(root, ".agents", MARK_FILE),
            json.dumps(mark).encode("utf-8"),
            f".agents/{MARK_FILE}",
        )
    except (StorageIOError, OSError) as e:
        warn(f"could not remember the injection ({e}); a compaction may inject it again")
