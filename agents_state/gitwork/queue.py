"""The merge queue: completed tasks merged into the integration branch by git itself.

A run, under ``.agents/git.lock``: (1) repair the engine's integration worktree after a kill
(stale lock files, a half-done merge, a half-written checkout: it is the engine's own, so it is
reset to its branch head); (2) record the intent (``merge_begin``: the tasks in order and the
head before); (3) merge each task's branch with ``--no-ff``; a conflict is aborted, so the
branch stays as it was; (4) record what happened (``merge_record``), which completes the wave
when every task of it is merged.  A run killed anywhere is finished by the next one: a task
whose head the integration branch already holds is recorded with the merge commit that brought
it (found from its parents), never merged twice; a task's own branch is never moved or deleted
before its merge is recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents_state.gitwork.git import Git, GitError
from agents_state.gitwork.plan import commit_message, merge_queue, task_branch
from agents_state.gitwork.rooms import (
    commit_leftovers,
    ensure_integration,
    git_lock,
    worktree_path,
)
from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.models import GitInfo, TaskState

__all__ = ["Result", "prepare_resolve", "repair_integration", "run_queue"]

Result = tuple[str, str, str | None, str | None, tuple[str, ...]]


def repair_integration(intg: Git, branch: str) -> None:
    from agents_state.gitwork.rooms import _clear_stale

    _clear_stale(intg.git_dir(), intg.common_dir() / "refs" / "heads" / f"{branch}.lock")
    if intg.rev("MERGE_HEAD") is not None:
        intg.run("merge", "--abort", ok=(0, 128))
    if intg.out("rev-parse", "--abbrev-ref", "HEAD") != branch:
        intg.run("checkout", "--quiet", "--force", branch)
    if intg.dirty():
        intg.run("reset", "--quiet", "--hard", "HEAD")
        intg.run("clean", "--quiet", "-fd")


def run_queue(app: App) -> Outcome | None:
    """Merge what is due; None when nothing is (or there is no isolation)."""
    from agents_state.engine import events as ev

    with git_lock(app):
        state = app.require()
        if state.git is None:
            return None
        phase = state.phase(TASK_PHASE)
        queue = merge_queue(state, phase)
        if not queue:  # after phase 2.1 the integration worktree is the later phases' to edit
            return None
        intg = ensure_integration(app, state.git)
        repair_integration(intg, state.git.branch)
        tasks = phase.tasks or {}
        for tid in queue:  # first, so that a refusal (conflict markers) writes nothing
            task = tasks[tid]
            if task.head is None or task.merge == "conflict":  # not committed by task done
                commit_leftovers(worktree_path(app, state.git, tid), commit_message(tid, task))
        intent = state.git.intent
        head = intg.out("rev-parse", "HEAD")
        if intent is None or intent.tasks != queue:
            app.run(ev.MergeBegin(tuple(queue), head))
        since = intent.head if intent is not None else head
        results = [_merge_one(intg, state.git, tid, tasks[tid], since) for tid in queue]
        out = app.run(ev.MergeRecord(tuple(results)))
        _tidy(app, state.git, results)
        return out


def _merge_one(intg: Git, git: GitInfo, tid: str, task: TaskState, since: str) -> Result:
    branch = task_branch(git, tid)
    head = intg.rev(f"refs/heads/{branch}")
    if head is None:  # no worktree was ever made for it: nothing of it to merge
        return (tid, "nochange", None, None, ())
    before = intg.out("rev-parse", "HEAD")
    if intg.is_ancestor(head, before):
        return (tid, *_landed(intg, head, since, before), head, ())
    title = task.title.strip() or "task"
    proc = intg.run(
        "merge", "--no-ff", "--no-edit", "-m", f"Merge task {tid}: {title}", branch, ok=(0, 1)
    )
    if proc.returncode == 0:
        return (tid, "merged", intg.out("rev-parse", "HEAD"), head, ())
    files = intg.out("diff", "--name-only", "--diff-filter=U").splitlines()
    intg.run("merge", "--abort", ok=(0, 128))
    if intg.rev("MERGE_HEAD") is not None or intg.out("rev-parse", "HEAD") != before:
        raise GitError(["merge", "--abort"], f"could not undo the merge of {branch}")
    if not files:
        raise GitError(["merge", branch], proc.stderr or proc.stdout)
    return (tid, "conflict", None, head, tuple(sorted(files)))


def _landed(intg: Git, head: str, since: str, now: str) -> tuple[str, str | None]:
    """A branch the integration branch already holds: merged by an earlier (killed) run, with
    the merge commit whose second parent is it; or never changed at all."""
    if since == now:
        return "nochange", None
    for line in intg.out("rev-list", "--first-parent", "--parents", f"{since}..{now}").splitlines():
        parts = line.split()
        if len(parts) >= 3 and head in parts[2:]:
            return "merged", parts[0]
    return "nochange", None


def _tidy(app: App, git: GitInfo, results: list[Result]) -> None:
    """Remove the worktrees of merged tasks (their branches stay unless ``deleteMerged``)."""
    for tid, outcome, _commit, _head, _files in results:
        if outcome == "conflict":
            continue
        path = worktree_path(app, git, tid)
        main = Git(app.root)
        if (path / ".git").exists():
            main.run("worktree", "remove", "--force", "--force", str(path), ok=(0, 128))
        if git.deleteMerged and outcome == "merged":
            main.run("branch", "-D", task_branch(git, tid), ok=(0, 1))


def prepare_resolve(app: App, task_id: str) -> tuple[str, list[str]]:
    """Merge the integration branch into a conflicted task's branch, in its worktree, leaving
    the conflict markers for an agent to resolve; returns the worktree and the files."""
    from agents_state.errors import NotFoundError, TransitionNotAllowedError
    from agents_state.gitwork.rooms import ensure_task_worktree, work_dir

    with git_lock(app):
        state = app.require()
        task = (state.phase(TASK_PHASE).tasks or {}).get(task_id)
        if state.git is None or task is None:
            raise NotFoundError(f"no task '{task_id}' under worktree isolation")
        if task.merge != "conflict":
            raise TransitionNotAllowedError(
                f"task {task_id}", f"merge {task.merge or 'not due'}", "resolve"
            )
        path = ensure_task_worktree(app, state.git, task_id)
        g = Git(path)
        if g.rev("MERGE_HEAD") is None:
            commit_leftovers(path, commit_message(task_id, task))
            g.run("merge", "--no-edit", state.git.branch, ok=(0, 1))
        files = g.out("diff", "--name-only", "--diff-filter=U").splitlines()
        return str(work_dir(app, state.git, task_id)), files
