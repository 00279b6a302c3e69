"""A compact JSON summary of the state for ``status --json`` (detail on request)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents_state.engine.ready import current_wave, is_stale
from agents_state.models import PhaseState, State
from agents_state.workflow import TASK_PHASE

__all__ = ["isolation", "summarize"]


def isolation(state: State, phase: PhaseState) -> dict[str, Any]:
    """Worktree isolation of phase 2.1 (issue 22): the branch, merge counts and conflicts."""
    if state.git is None:
        return {"mode": "off"}
    merges: dict[str, int] = {}
    conflicts: dict[str, list[str]] = {}
    for tid, t in (phase.tasks or {}).items():
        if t.merge:
            merges[t.merge] = merges.get(t.merge, 0) + 1
        if t.merge == "conflict":
            conflicts[tid] = t.conflictFiles or []
    return {
        "mode": "worktree",
        "branch": state.git.branch,
        "merges": merges,
        "conflicts": conflicts,
    }


def summarize(state: State, now: datetime, lease: int, verbose: bool = False) -> dict[str, Any]:
    """The state without task detail by default: size stays small at 10,000 tasks."""
    data = state.to_json_dict()
    phase = state.phase(TASK_PHASE)
    if phase.tasks:
        counts: dict[str, int] = {}
        for t in phase.tasks.values():
            counts[t.status] = counts.get(t.status, 0) + 1
        stale = sorted(tid for tid, t in phase.tasks.items() if is_stale(t, now, lease))
        idx = current_wave(phase)
        waves = phase.waves or []
        detail = data["stages"]["IMPLEMENT"]["phases"][TASK_PHASE]
        detail["taskCounts"] = counts
        detail["isolation"] = isolation(state, phase)
        detail["staleTasks"] = stale
        detail["currentWave"] = (
            None if idx is None else {"index": idx + 1, "of": len(waves), "tasks": waves[idx].tasks}
        )
        if not verbose:  # a summary whose size does not grow with the number of tasks
            detail.pop("tasks", None)
            by_status: dict[str, int] = {}
            for w in waves:
                by_status[w.status] = by_status.get(w.status, 0) + 1
            detail["waves"] = {"total": len(waves), **by_status}
    return data
