"""Names and merge order of worktree isolation (pure: no git, no disk).

A workflow's integration branch is ``agents/<workflow>``; a task works on ``agents/<workflow>-<id>``
in the worktree ``.agents/worktrees/<id>``; the engine merges in ``.agents/worktrees/_integration``
(task ids start with a letter or digit, so no task can be named like it).  Merges happen a wave
at a time, once every task of the wave is done, in task id order: waves are already in
dependency order, so the merge order is dependency order, then task id, whatever the order in
which the agents finished.
"""

from __future__ import annotations

from agents_state.models import GitInfo, PhaseState, State, TaskState

__all__ = [
    "INTEGRATION_DIR",
    "MERGED",
    "commit_message",
    "integration_branch",
    "merge_queue",
    "task_branch",
    "wave_merged",
    "workflow_slug",
    "worktree_rel",
]

INTEGRATION_DIR = "_integration"
MERGED = ("merged", "nochange")


def workflow_slug(started_at: str | None) -> str:
    """``2026-11-25T17:13:07Z`` -> ``20261125-171307``: unique per workflow of a project."""
    digits = "".join(c for c in (started_at or "") if c.isdigit())
    return f"{digits[:8]}-{digits[8:14]}" if len(digits) >= 14 else "workflow"


def integration_branch(started_at: str | None) -> str:
    return f"agents/{workflow_slug(started_at)}"


def task_branch(git: GitInfo, task_id: str) -> str:
    return f"{git.branch}-{task_id}"  # a ref cannot be both a branch and a folder of branches


def worktree_rel(git: GitInfo, name: str) -> str:
    return f"{git.worktrees}/{name}"


def commit_message(task_id: str, task: TaskState) -> str:
    title = task.title.strip() or f"task {task_id}"
    body = (task.summary or "").strip()
    return f"{task_id}: {title}" + (f"\n\n{body}" if body else "")


def wave_merged(phase: PhaseState, wave_tasks: list[str]) -> bool:
    """Every completed task of the wave is merged (or had nothing to merge)."""
    tasks = phase.tasks or {}
    return all(tasks[t].status != "completed" or tasks[t].merge in MERGED for t in wave_tasks)


def merge_queue(state: State, phase: PhaseState) -> list[str]:
    """Tasks to merge now: the current wave's completed, unmerged tasks, once none of the wave
    is still to run; in task id order."""
    if state.git is None or not phase.waves or not phase.tasks:
        return []
    tasks = phase.tasks
    for wave in phase.waves:
        if wave.status in ("completed", "skipped"):
            continue
        if any(tasks[t].status not in ("completed", "skipped") for t in wave.tasks):
            return []
        return sorted(
            t for t in wave.tasks if tasks[t].status == "completed" and tasks[t].merge not in MERGED
        )
    return []
