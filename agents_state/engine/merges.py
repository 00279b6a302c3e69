"""Merge events of the task phase under worktree isolation (issue 22; pure).

The merge queue (``gitwork.queue``) records a run in two transitions: ``merge_begin`` writes the
intent (the tasks in merge order and the integration head before the run) and ``merge_record``
writes what git did and clears it.  A run killed in between leaves the intent in the state:
the next run finds it, asks git what landed, and finishes the rest.  A wave completes (and the
next opens, or the phase ends) only in the transition that records its last merge.
"""

from __future__ import annotations

from datetime import datetime

from agents_state.engine import events as ev
from agents_state.engine.context import Outcome
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import MergeIntent, PhaseState, State
from agents_state.types import format_time
from agents_state.workflow import TASK_PHASE

__all__ = ["apply_merge_event"]

_OUTCOMES = ("merged", "nochange", "conflict", "pending")


def apply_merge_event(
    state: State,
    phase: PhaseState,
    event: ev.MergeBegin | ev.MergeRecord | ev.MergeResolve,
    now: datetime,
) -> tuple[Outcome, str | None]:
    """The outcome, and the task whose wave may now be complete (for ``tasks``, which closes
    the wave and opens the next), or None."""
    if state.git is None:
        raise TransitionNotAllowedError(
            f"phase {TASK_PHASE}",
            "without worktree isolation",
            event.name.replace("_", " "),
            hint="there is no integration branch to merge into",
        )
    if isinstance(event, ev.MergeResolve):
        return _resolve(state, phase, event), None
    git = state.git = state.git.model_copy()
    if isinstance(event, ev.MergeBegin):
        git.intent = MergeIntent(tasks=list(event.tasks), head=event.head, at=format_time(now))
        message = f"merging {len(event.tasks)} task(s) into {git.branch}"
        return Outcome(state, message, True, {"tasks": list(event.tasks)}, {}), None
    git.intent = None
    tasks = phase.tasks or {}
    merged: list[str] = []
    conflicts: list[str] = []
    unchanged: list[str] = []
    for tid, outcome, commit, head, files in event.results:
        if outcome not in _OUTCOMES or tid not in tasks:
            raise ValueError(f"bad merge result {tid!r}: {outcome!r}")
        task = tasks[tid] = tasks[tid].model_copy()  # copy on write: tasks are shared
        task.merge = outcome  # type: ignore[assignment]
        task.mergeCommit = commit
        task.head = head or task.head
        task.branch = task.branch or f"{git.branch}-{tid}"
        task.conflictFiles = list(files) if outcome == "conflict" else None
        task.resolveIn = None  # a conflict found again is offered to resolve again
        (conflicts if outcome == "conflict" else merged).append(tid)
        if outcome == "nochange":
            unchanged.append(tid)
    message = f"merged {len(merged) - len(unchanged)} task(s) into {git.branch}"
    if unchanged:
        message += f"; without change (nothing to merge): {', '.join(unchanged)}"
    if conflicts:
        message += (
            f"; conflict: {', '.join(conflicts)} (resolve "
            + ("one at a time, first " if len(conflicts) > 1 else "")
            + f"with: agents-state merge --resolve {conflicts[0]})"
        )
    data = {"merged": merged, "conflicts": conflicts}
    last = event.results[-1].task if event.results else None
    return Outcome(state, message, True, data, data), last


def _resolve(state: State, phase: PhaseState, event: ev.MergeResolve) -> Outcome:
    """Record where a conflict waits to be fixed: the next step is then to fix it there."""
    tasks = phase.tasks or {}
    task = tasks.get(event.task_id)
    if task is None or task.merge != "conflict":
        raise TransitionNotAllowedError(
            f"task {event.task_id}",
            f"merge {(task.merge if task else None) or 'not due'}",
            "resolve",
        )
    task = tasks[event.task_id] = task.model_copy()  # copy on write: tasks are shared
    task.resolveIn = event.worktree
    task.conflictFiles = list(event.files) or task.conflictFiles
    files = event.files
    message = f"{event.task_id}: the integration branch is merged into {event.worktree}; " + (
        f"resolve the conflicts in {', '.join(files)} there, keeping both changes, "
        if files
        else "no conflict is left, "
    )
    message += "then run: agents-state merge"
    data = {"worktree": event.worktree, "files": list(files)}
    return Outcome(state, message, True, data, data)
