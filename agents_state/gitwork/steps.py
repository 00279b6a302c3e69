"""What the task commands add under worktree isolation (the shell; each a no-op without it).

``tasks load`` makes the integration branch, ``task claim`` / ``start`` make the task's
worktree and say where to work, ``task done`` commits what the agent left and, for the last task
of a wave, runs the merge queue.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.models import State

__all__ = [
    "after_claim",
    "after_done",
    "after_load",
    "before_done",
    "dispatch_note",
    "isolation_note",
]


def dispatch_note(app: App) -> str:
    """What ``dispatch`` tells a user in a git repository about their checkout (issue 22)."""
    if app.config.stages.IMPLEMENT.tasks.isolation == "none":
        return ""
    from agents_state.gitwork.git import find_repo

    if find_repo(app.root) is None:
        return ""
    return (
        "; worktree isolation: in phase 2.1 each task works in its own git worktree and is "
        "merged into an integration branch made from your HEAD plus a commit of your "
        "uncommitted changes to tracked files; your branch and working tree are left as they are"
    )


def isolation_note(state: State) -> str:
    git = state.git
    if git is None:
        return ""
    how = (
        "your HEAD plus a commit of your uncommitted changes to tracked files"
        if git.fromChanges
        else "your HEAD"
    )
    return (
        f"; isolation: each task works in its own git worktree under {git.worktrees}/ and is "
        f"merged into {git.branch}, which starts from {how} (your branch and working tree are "
        "left as they are)"
    )


def after_load(app: App, state: State) -> None:
    if state.git is None:
        return
    from agents_state.gitwork.rooms import ensure_integration, git_lock

    with git_lock(app):
        ensure_integration(app, state.git)


def after_claim(app: App, state: State, task_id: str) -> dict[str, Any]:
    """Make the task's worktree; returns ``worktree`` (where to work) and ``branch``."""
    if state.git is None:
        return {}
    from agents_state.engine.worktrees import task_branch
    from agents_state.gitwork.rooms import ensure_task_worktree, git_lock, work_dir

    with git_lock(app):
        ensure_task_worktree(app, state.git, task_id)
    return {
        "worktree": str(work_dir(app, state.git, task_id)),
        "branch": task_branch(state.git, task_id),
    }


def before_done(app: App, task_id: str, summary: str | None) -> tuple[str | None, str | None, bool]:
    """Commit what the agent left in its worktree; the task's branch and head (or None), and
    whether that head is already in the integration branch (the task changed nothing)."""
    from agents_state.gitwork import isolated

    if not isolated(app.root_dir):
        return None, None, False
    state = app.state()
    if state is None or state.git is None:
        return None, None, False
    tasks = state.phase(TASK_PHASE).tasks or {}
    task = tasks.get(task_id)
    if task is None or task.status not in ("in_progress", "pending"):
        return None, None, False
    from agents_state.engine.worktrees import commit_message, task_branch
    from agents_state.gitwork.git import Git
    from agents_state.gitwork.rooms import commit_leftovers, git_lock, worktree_path

    branch = task_branch(state.git, task_id)
    path = worktree_path(app, state.git, task_id)
    if not (path / ".git").exists():
        return None, None, False
    with git_lock(app):
        done = task.model_copy()
        done.summary = summary or task.summary
        commit_leftovers(path, commit_message(task_id, done))
        g = Git(path)
        head = g.rev("HEAD")
        return branch, head, head is not None and g.is_ancestor(head, state.git.branch)


def after_done(app: App, out: Outcome) -> Outcome | None:
    """Run the merge queue when this done finished the tasks of a wave."""
    state = out.state
    if state.git is None or not out.changed:
        return None
    from agents_state.engine.worktrees import merge_queue

    if not merge_queue(state, state.phase(TASK_PHASE)):
        return None
    from agents_state.gitwork.queue import run_queue

    return run_queue(app)
