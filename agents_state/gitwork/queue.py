"""The merge queue: completed tasks merged into the integration branch by git itself.

A run, under ``.agents/git.lock``: (1) repair the engine's integration worktree after a kill
(stale lock files, a half-done merge, a half-written checkout: it is the engine's own, so it is
reset to its branch head); (2) record the intent (``merge_begin``: the tasks in order and the
head before); (3) merge each task's head as ``git merge --no-ff`` would, but without a checkout
(``git merge-tree`` and ``git commit-tree``: a conflict writes nothing a branch points at), then
move the integration worktree to the last merge in one fast-forward; (4) record what happened
(``merge_record``), which completes the wave when every task of it is merged.  A run killed
anywhere is finished by the next one: a task whose head the integration branch already holds
is recorded with the merge commit that brought it (found from its parents), never merged
twice; a task's own branch is never moved or deleted before its merge is recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agents_state.engine.mergeresult import MergeResult
from agents_state.engine.worktrees import commit_message, merge_queue, task_branch
from agents_state.gitwork.git import Git, GitError
from agents_state.gitwork.rooms import (
    commit_leftovers,
    ensure_integration,
    excludes_of,
    git_lock,
    worktree_path,
)
from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.models import GitInfo

__all__ = ["prepare_resolve", "repair_integration", "run_queue"]


def repair_integration(intg: Git, branch: str, interrupted: bool) -> str:
    """Undo what a killed run left in the engine's integration worktree; returns its head.

    ``interrupted``: the state holds an intent, so a run died after it began: the worktree is
    checked for half-written files too (a clean finish leaves none, so that look is skipped)."""
    from agents_state.gitwork.rooms import _clear_stale

    git_dir, common, head = intg.out(
        "rev-parse", "--absolute-git-dir", "--git-common-dir", "HEAD"
    ).split("\n")
    gd = Path(git_dir)
    stale = _clear_stale(gd, intg.cwd / common / "refs" / "heads" / f"{branch}.lock")
    merging = (gd / "MERGE_HEAD").exists()
    if merging:
        intg.run("merge", "--abort", ok=(0, 128))
    moved = (gd / "HEAD").read_text().strip() != f"ref: refs/heads/{branch}"
    if moved:
        intg.run("checkout", "--quiet", "--force", branch)
    if (interrupted or stale or merging or moved) and intg.dirty():
        intg.run("reset", "--quiet", "--hard", "HEAD")
        intg.run("clean", "--quiet", "-fd")
    return intg.out("rev-parse", "HEAD") if moved else head


def run_queue(app: App, wait: float | None = None) -> Outcome | None:
    """Merge what is due; None when nothing is (or there is no isolation).  ``wait``: the
    seconds to wait for the git lock (a hook waits less)."""
    from agents_state.engine import events as ev

    with git_lock(app, wait):
        state = app.require()
        if state.git is None:
            return None
        phase = state.phase(TASK_PHASE)
        queue = merge_queue(state, phase)
        if not queue:  # after phase 2.1 the integration worktree is the later phases' to edit
            return None
        intg = ensure_integration(app, state.git)
        head = repair_integration(intg, state.git.branch, state.git.intent is not None)
        tasks = phase.tasks or {}
        for tid in queue:  # first, so that a refusal (conflict markers) writes nothing
            task = tasks[tid]
            if task.head is None or task.merge == "conflict":  # not committed by task done
                path = worktree_path(app, state.git, tid)
                message = commit_message(tid, task)
                commit_leftovers(path, message, excludes_of(app), state.git.base)
        intent = state.git.intent
        if intent is None or intent.tasks != queue:
            app.run(ev.MergeBegin(tuple(queue), head))
        since = intent.head if intent is not None else head
        heads, tree = _heads(intg, state.git, queue, head)
        conflicts: dict[str, tuple[str, ...]] = {}
        made: dict[str, str] = {}  # task head -> the merge commit this run made for it
        tip = head
        for tid in queue:
            th = heads[tid]
            if th is None:
                continue
            merged = _merge(intg, tid, tasks[tid].title, tip, tree, th)
            if isinstance(merged, list):
                conflicts[tid] = tuple(merged)
            elif merged is not None:
                tip, tree = merged
                made[th] = tip
        if tip != head:  # one step: the branch, its index and files move to the last merge
            intg.run("merge", "--ff-only", "--quiet", tip)
        results = _results(intg, queue, heads, conflicts, since, None if intent else made)
        out = app.run(ev.MergeRecord(tuple(results)))
        _tidy(app, state.git, results)
        return out


def _heads(
    intg: Git, git: GitInfo, queue: list[str], head: str
) -> tuple[dict[str, str | None], str]:
    """Each task's branch head (None: no branch, as no worktree was ever made) and the tree of
    the integration ``head``, in one call."""
    refs = [f"refs/heads/{task_branch(git, t)}" for t in queue]
    out = intg.run("rev-parse", f"{head}^{{tree}}", *refs, ok=(0, 128)).stdout.split()
    if len(out) == len(refs) + 1:
        return dict(zip(queue, out[1:], strict=True)), out[0]
    tree = intg.out("rev-parse", f"{head}^{{tree}}")
    return {t: intg.rev(r) for t, r in zip(queue, refs, strict=True)}, tree


def _merge(
    intg: Git, tid: str, title: str, tip: str, tree: str, head: str
) -> tuple[str, str] | list[str] | None:
    """Merge one task's ``head`` onto ``tip`` (whose tree is ``tree``) as ``git merge --no-ff``
    would, without touching a file: ``git merge-tree`` makes the tree, ``git commit-tree`` the
    merge commit, which no branch points at yet.  Returns (the commit, its tree); None when
    ``head`` is already in ``tip`` (nothing new); the conflict files when it conflicts (nothing
    is written but unreferenced objects: the integration branch is as it was)."""
    proc = intg.run(
        "merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", tip, head, ok=(0, 1)
    )
    parts = proc.stdout.split("\0")
    if proc.returncode == 1:
        files = sorted({p for p in parts[1:] if p})
        if not files:
            raise GitError(["merge-tree", head], proc.stderr or proc.stdout)
        return files
    new = parts[0].strip()
    if new == tree and intg.is_ancestor(head, tip):
        return None
    message = f"Merge task {tid}: {title.strip() or 'task'}"
    return intg.out("commit-tree", new, "-p", tip, "-p", head, "-m", message), new


def _results(
    intg: Git,
    queue: list[str],
    heads: dict[str, str | None],
    conflicts: dict[str, tuple[str, ...]],
    since: str,
    made: dict[str, str] | None,
) -> list[MergeResult]:
    """What happened to each task.  ``made``: the merge commits of an uninterrupted run;
    ``None`` after a killed one, when the integration branch's own history says it: a task whose
    head is the second parent of a merge commit since the run began (this run's or a killed
    one's) is merged by it; one whose merge changed nothing had nothing new."""
    merged_by: dict[str, str] = {}
    if made is not None:
        merged_by = made
    else:
        lines = intg.out("rev-list", "--first-parent", "--parents", f"{since}..HEAD")
        for line in lines.splitlines():
            parts = line.split()
            for parent in parts[2:]:
                merged_by.setdefault(parent, parts[0])
    out: list[MergeResult] = []
    for tid in queue:
        head = heads[tid]
        if tid in conflicts:
            out.append(MergeResult(tid, "conflict", None, head, conflicts[tid]))
        elif head is not None and head in merged_by:
            out.append(MergeResult(tid, "merged", merged_by[head], head, ()))
        else:
            out.append(MergeResult(tid, "nochange", None, head, ()))
    return out


def _tidy(app: App, git: GitInfo, results: list[MergeResult]) -> None:
    """Remove the worktrees of merged tasks (their branches stay unless ``deleteMerged``):
    each folder is moved aside at once, then deleted, then git forgets them in one prune."""
    from agents_state.gitwork.rooms import discard_worktrees

    done = [r.task for r in results if r.outcome != "conflict"]
    discard_worktrees(app, git, done)
    if git.deleteMerged:
        gone = [task_branch(git, r.task) for r in results if r.outcome == "merged"]
        if gone:
            Git(app.root).run("branch", "-D", *gone, ok=(0, 1))


def prepare_resolve(app: App, task_id: str) -> Outcome:
    """Merge the integration branch into a conflicted task's branch, in its worktree, leaving
    the conflict markers for an agent to resolve; records where (``merge_resolve``: the next
    step is to fix them there, issue 33)."""
    from agents_state.engine import events as ev
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
            commit_leftovers(path, commit_message(task_id, task), excludes_of(app))
            g.run("merge", "--no-edit", state.git.branch, ok=(0, 1))
        files = g.out("diff", "--name-only", "--diff-filter=U").splitlines()
        where = str(work_dir(app, state.git, task_id))
        return app.run(ev.MergeResolve(task_id, where, tuple(files)))
