"""SessionStart: after startup, resume, clear or compact, put the workflow back in the context.

The text comes from ``agents_state.app.context_text`` (what ``agents-state context``
prints); if that is unavailable a short fallback built from the raw state says where the
workflow stands and which commands continue it.  On startup, clear and compact the
orchestrator's context is fresh, so the tool-call count starts again.
"""

from __future__ import annotations

from agents_state.hooks._base import active_state, emit, find_root, read_payload, warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["SOURCES", "fallback_text", "handle"]

SOURCES = ("startup", "resume", "clear", "compact")


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
    if source in ("startup", "clear", "compact"):
        from agents_state.store.toolcalls import reset

        reset(root)
    state = active_state(root)
    if state is None or (source is not None and source not in SOURCES):
        return
    text = _context(root, state)
    if text:
        emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})
