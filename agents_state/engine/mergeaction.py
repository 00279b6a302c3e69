"""The next step of phase 2.1 between a wave's last task and its merge, and the notes of the
phases after it (issue 22; pure: facts that ``nextaction`` makes a decision of and
``views.nextaction`` words)."""

from __future__ import annotations

from typing import Any

from agents_state.models import PhaseState, State

__all__ = ["MergeStep", "merge_step", "merged_notes"]

# (kind, words: a sentence key and its facts, command, the decision's extra fields)
MergeStep = tuple[str, tuple[str, dict[str, Any]], str, dict[str, Any]]


def merge_step(state: State, pstate: PhaseState, wave_no: int) -> MergeStep | None:
    """Run the merge queue, or resolve a conflict; None when the wave is still running."""
    from agents_state.engine.worktrees import merge_queue

    assert state.git is not None
    queue = merge_queue(state, pstate)
    if not queue:
        return None
    tasks = pstate.tasks or {}
    if state.git.intent is not None or any(tasks[t].merge != "conflict" for t in queue):
        return (
            "run_commands",
            ("merge_wave", {"wave": wave_no, "branch": state.git.branch}),
            "agents-state merge",
            {"wave": wave_no, "merge": queue},
        )
    tid = queue[0]
    task = tasks[tid]
    files = task.conflictFiles or []
    if task.resolveIn is not None:  # merge --resolve ran: fix the files there, then merge
        return (
            "work_inline",
            ("resolve_in_worktree", {"task": tid, "files": files, "worktree": task.resolveIn}),
            "agents-state merge",
            {
                "wave": wave_no,
                "conflict": {"task": tid, "files": files, "worktree": task.resolveIn},
            },
        )
    return (
        "work_inline",
        ("resolve_conflict", {"task": tid, "files": files, "branch": state.git.branch}),
        f"agents-state merge --resolve {tid}",
        {"wave": wave_no, "conflict": {"task": tid, "files": files, "branch": task.branch}},
    )


def merged_notes(state: State, workflow: str, phase_id: str) -> list[tuple[str, dict[str, Any]]]:
    """After phase 2.1 under isolation, every phase works on the merged result."""
    from agents_state.workflow import COMPLETION_PHASE, PHASE_INDEX, TASK_PHASE

    git = state.git
    if git is None or PHASE_INDEX[phase_id] <= PHASE_INDEX[TASK_PHASE]:
        return []
    notes: list[tuple[str, dict[str, Any]]] = [
        ("merged_work", {"branch": git.branch, "worktrees": git.worktrees})
    ]
    if phase_id == COMPLETION_PHASE:
        notes.append(("finish_branch", {"branch": git.branch, "workflow": workflow}))
    return notes
