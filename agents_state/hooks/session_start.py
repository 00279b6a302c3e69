"""SessionStart: after startup, resume, clear or compact, put the workflow back in the context.

The text comes from ``agents_state.app.context_text`` (what ``agents-state context``
prints); if that is unavailable a short fallback built from the raw state says where the
workflow stands and which commands continue it.  On startup, clear and compact the
orchestrator's context is fresh, so the tool-call count starts again.

One injection per session start (issue 27): ``claude -p --continue "/compact"`` fires
``resume`` and ``compact`` in the same session with nothing done in between, and the host may
run the two hooks at the same time.  Under the store's lock on ``.agents/`` each hook reads
``.agents/session-start.json`` (the session, its source, the main conversation's tool calls
after the hook, whether its pair was seen), resets the tool-call count and writes the file
atomically: whichever of the pair comes second injects nothing and marks the start as paired.
A later compaction (tool calls made) and a later ``resume`` (the start already paired) inject
again.  The context itself is built after the lock is let go.
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
    state = active_state(root)
    injects = state is not None and (source is None or source in SOURCES)
    if not _claim(root, payload.get("session_id"), source, injects) or state is None:
        return
    text = _context(root, state)
    if text:
        emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


def _claim(root: str, session: object, source: object, injects: bool) -> bool:
    """Start the tool-call count again where the context is fresh, and say whether this hook
    injects the workflow: all under the store's lock, so that the two hooks of one session start
    (``resume`` and ``compact``, which the host may run at the same time) see each other."""
    import os

    from agents_state.store.toolcalls import count, reset

    fresh = source in ("startup", "clear", "compact")
    if not os.path.isdir(os.path.join(root, ".agents")):  # nothing to lock: count, inject
        if fresh:
            reset(root)
        return injects
    from pathlib import Path

    from agents_state.errors import AgentsStateError
    from agents_state.store.lock import env_lock_timeout
    from agents_state.store.lockfile import LockTimeout, acquire

    try:
        release = acquire(Path(root, ".agents"), env_lock_timeout())
    except (LockTimeout, OSError, AgentsStateError) as e:  # never stop the host for this
        warn(f"could not lock .agents/ ({type(e).__name__}); the workflow may be injected twice")
        if fresh:
            reset(root)
        return injects
    try:
        calls = count(root)
        last = _read_mark(root)
        if fresh:
            reset(root)
        after = 0 if fresh else calls
        if _second_of_pair(last, session, source, calls):
            _write_mark(root, {**last, "calls": after, "paired": True})
            return False
        if injects:
            mark = {"session": session, "source": source, "calls": after, "paired": False}
            _write_mark(root, mark)
        return injects
    finally:
        release()


def _second_of_pair(last: dict[str, Any], session: object, source: object, calls: int) -> bool:
    """The other half of one session start: the same session, a ``startup``/``resume`` and a
    ``compact`` in either order, no tool call between them, and that start not yet paired."""
    pair = {last.get("source"), source}
    return (
        session is not None
        and last.get("session") == session
        and not last.get("paired")
        and last.get("calls") == calls
        and "compact" in pair
        and bool(pair & {"startup", "resume"})
    )


def _read_mark(root: str) -> dict[str, Any]:
    import json
    import os

    try:
        with open(os.path.join(root, ".agents", MARK_FILE), encoding="utf-8") as f:
            last = json.load(f)
    except (OSError, ValueError):
        return {}
    return last if isinstance(last, dict) else {}


def _write_mark(root: str, mark: dict[str, Any]) -> None:
    import json
    from pathlib import Path

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
