"""Which files a transition makes due (pure; ``views.outcomes`` writes their text).

The task summary when phase 2.1 finishes, and ``.agents/phases/{stage}-output.md`` at each
stage boundary (design 004, compaction step 1): each when the transition adds its
``state.files`` key.
"""

from __future__ import annotations

from agents_state.models import State
from agents_state.workflow import STAGES, TASK_PHASE

__all__ = ["TASK_SUMMARY", "due_files", "output_key", "task_counts"]

TASK_SUMMARY = "2.1-summary.md"


def output_key(stage: str) -> str:
    return f"{stage.lower()}Output"


def task_counts(state: State) -> dict[str, int]:
    tasks = state.phase(TASK_PHASE).tasks or {}
    out: dict[str, int] = {}
    for t in tasks.values():
        out[t.status] = out.get(t.status, 0) + 1
    return out


def due_files(before: State | None, after: State) -> dict[str, str | None]:
    """Files due now, by name under ``.agents/phases/``: each one's stage (None: the task
    summary), for the artifacts whose ``state.files`` key this transition added."""
    old = before.files if before is not None else {}
    out: dict[str, str | None] = {}
    if "taskSummary" in after.files and "taskSummary" not in old:
        out[TASK_SUMMARY] = None
    for stage in STAGES:
        key = output_key(stage)
        if key in after.files and key not in old:
            out[f"{stage}-output.md"] = stage
    return out
