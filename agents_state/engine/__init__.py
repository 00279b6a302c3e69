"""The pure workflow state machine: phases, tasks, events, waves and the next action.

``next_step`` (``engine.step``) is the whole next step as a ``Decision``; it loads on first use,
so that a transition never loads the next action's code."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.engine.step import Facts, next_step

__all__ = ["Facts", "next_step"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from agents_state.engine import step

        return getattr(step, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
