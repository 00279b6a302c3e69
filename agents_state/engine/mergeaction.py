"""The next action of phase 2.1 between a wave's last task and its merge (issue 22; pure)."""

from __future__ import annotations

from typing import Any

from agents_state.models import PhaseState, State
from agents_state.workflow import Phase

__all__ = ["merge_action"]


def merge_action(
    state: State, pstate: PhaseState, phase: Phase, wave_no: int
) -> dict[str, Any] | None:
    """Run the merge queue, or resolve a conflict; None when the wave is still running."""
    from agents_state.engine.nextaction import _action
    from agents_state.gitwork.plan import merge_queue

    assert state.git is not None
    queue = merge_queue(state, pstate)
    if not queue:
        return None
    tasks = pstate.tasks or {}
    if state.git.intent is not None or any(tasks[t].merge != "conflict" for t in queue):
        return _action(
            "run_commands",
            phase,
            command="agents-state merge",
            wave=wave_no,
            merge=queue,
            instructions=f"Wave {wave_no} is done; merge its tasks into {state.git.branch} "
            "(in task id order) with the command, then run: agents-state next",
        )
    tid = queue[0]
    task = tasks[tid]
    files = ", ".join(task.conflictFiles or []) or "(unknown files)"
    return _action(
        "work_inline",
        phase,
        command=f"agents-state merge --resolve {tid}",
        wave=wave_no,
        conflict={"task": tid, "files": task.conflictFiles or [], "branch": task.branch},
        instructions=f"Task {tid}'s change conflicts with {state.git.branch} in {files}; the "
        "integration branch is unchanged and both changes are on their branches. Run the "
        "command: it merges the integration branch into the task's worktree and names the "
        "files. Edit them there so that both changes survive (or ask the user which to "
        "keep), then run: agents-state merge",
    )


_FINISH = {
    "branch+PR": "push {branch} and open the pull request from it (it is the PR's branch)",
    "branch": "leave the work on {branch} and tell the user its name",
    "commit": "bring {branch} into the user's branch (git merge --ff-only {branch} when they "
    "have not moved on; ask the user before touching their uncommitted changes)",
    "none": "leave {branch} as it is and tell the user its name",
}


def merged_note(state: State, workflow: str, phase_id: str) -> str:
    """After phase 2.1 under isolation, every phase works on the merged result (issue 22)."""
    from agents_state.workflow import COMPLETION_PHASE, PHASE_INDEX, TASK_PHASE

    git = state.git
    if git is None or PHASE_INDEX[phase_id] <= PHASE_INDEX[TASK_PHASE]:
        return ""
    note = (
        f" Worktree isolation: the merged work is on branch {git.branch}, checked out in "
        f"{git.worktrees}/_integration; read, change and commit there (your own checkout "
        "does not have it)."
    )
    if phase_id == COMPLETION_PHASE:
        note += " To finish: " + _FINISH.get(workflow, _FINISH["none"]).format(branch=git.branch)
        note += "."
    return note
