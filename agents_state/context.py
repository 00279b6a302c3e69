"""What a freshly compacted conversation must read to continue: a few hundred tokens."""

from __future__ import annotations

from pathlib import Path

from agents_state.models import State
from agents_state.safetext import escape

__all__ = ["context_text", "render_context"]


def render_context(state: State, action: dict[str, object]) -> str:
    from agents_state.cli.render import render_action

    done = [f"{pid}" for st in state.stages.values() for pid, p in st.phases.items()
            if p.status == "completed"]
    lines = [
        "agents-state workflow (resume from here; do not edit .agents/state.json by hand)",
        f"task: {escape(state.task)}",
        f"status: {state.status}, stage {state.currentStage}, phase {state.currentPhase}, "
        f"revision {state.revision}",
        f"phases done: {', '.join(done) or 'none'}",
    ]
    if state.compaction.history:
        lines.append(f"compacted after: {', '.join(state.compaction.history)}")
    reads = action.get("read") or []
    lines.append("read only these files: " + (", ".join(reads) if isinstance(reads, list)
                                                and reads else "none"))
    lines.append(render_action(action))
    return "\n".join(lines)


def context_text(root: Path) -> str | None:
    """The context for the workflow under ``root``, or None when there is no active one."""
    from agents_state.app import App

    app = App(root)
    state = app.state()
    if state is None or not state.active:
        return None
    return render_context(state, app.next_action(state))
