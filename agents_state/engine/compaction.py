"""Whether a compaction helps at a boundary (issue 27): from the conversation's real usage.

Design 004's compaction points stay (stage boundaries, phases when configured); at each one the
engine asks the user for ``/compact`` only when the context holds at least
``compaction.contextPercent`` of the window (the configured one, else the model's), or when its
size is unknown (no transcript seen: the advice of design 004 stands).  Below that the boundary
is recorded as skipped and the workflow goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents_state.models import State

if TYPE_CHECKING:  # a type only: at run time a TypedDict compiles each of its annotations
    from typing import TypedDict

    from agents_state.config import CompactionCfg

    class Usage(TypedDict):
        tokens: int
        percent: int
        window: int
        advice: int


__all__ = ["DEFAULT_WINDOW", "helps", "pass_boundary", "usage"]

DEFAULT_WINDOW = 200_000  # contextsize.DEFAULT_WINDOW, without importing the transcript reader


def usage(comp: CompactionCfg, tokens: int | None, window: int | None) -> Usage | None:
    """The context's size as facts for the words, or None when unknown."""
    if tokens is None:
        return None
    w = comp.contextWindowTokens or window or DEFAULT_WINDOW
    return {
        "tokens": tokens,
        "percent": round(100 * tokens / w),
        "window": w,
        "advice": comp.contextPercent,
    }


def helps(u: Usage | None) -> bool:
    """A compaction helps when the context is at the advice's share of its window, or unknown."""
    return u is None or u["tokens"] >= u["window"] * u["advice"] // 100


def pass_boundary(state: State) -> None:
    """The workflow moves on from a boundary nobody compacted at: recorded as skipped."""
    if state.compaction.pending:
        state.compaction.skipped.append(state.compaction.pending)
        state.compaction.pending = None
