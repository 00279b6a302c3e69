"""The integration branch and the task worktrees (the shell: runs git, reads the config).

The integration branch is made at ``tasks load`` from the user's HEAD, plus a commit of their
uncommitted changes to tracked files when there are any (``git stash create``: nothing in the
user's index, working tree or branch changes).  A task's worktree is made when the task is
claimed or started, from the integration branch as it stands then, so a task of a later wave
starts from the merged work of the waves before it.  Every git change the engine makes is
taken under ``.agents/git.lock`` (never while holding the state's lock).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents_state.engine.worktrees import INTEGRATION_DIR, integration_branch, task_branch
from agents_state.gitwork.git import Git, GitError, find_repo

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.gitwork.clean import Staged
    from agents_state.models import GitInfo, State

__all__ = [
    "commit_leftovers",
    "delete_trash",
    "discard_worktrees",
    "ensure_integration",
    "ensure_task_worktree",
    "excludes_of",
    "git_lock",
    "load_git",
    "repo_of",
    "worktree_path",
]


@contextmanager
def git_lock(app: App, wait: float | None = None) -> Iterator[None]:
    """``.agents/git.lock``; ``wait``: the seconds to wait for it (default: 120, or more)."""
    from agents_state.errors import LockTimeoutError
    from agents_state.store.lock import env_lock_timeout, holder_of, notice_wait
    from agents_state.store.lockfile import LockTimeout, acquire

    path = app.root / ".agents" / "git.lock"
    timeout = max(env_lock_timeout(), 120.0) if wait is None else wait
    try:
        release = acquire(
            path, timeout, lambda: notice_wait(str(path), timeout, ".agents/git.lock")
        )
    except LockTimeout:
        raise LockTimeoutError(str(path), timeout, holder_of(str(path))) from None
    try:
        yield
    finally:
        release()


def repo_of(app: App) -> Path | None:
    return find_repo(app.root)


def excludes_of(app: App) -> list[str]:
    """What no commit of the engine takes besides the built-in list (``excludePatterns``)."""
    return list(app.config.stages.FINAL.git.excludePatterns)


def worktree_path(app: App, git: GitInfo, name: str) -> Path:
    """A worktree's folder; the state's word for it is checked first (issue 32)."""
    from agents_state.gitwork.confine import check_git_info, check_name

    check_git_info(git)
    check_name(name)
    return app.root / git.worktrees / name


def work_dir(app: App, git: GitInfo, name: str) -> Path:
    """Where an agent works inside a worktree: the project's own folder within it."""
    top = repo_of(app)
    sub = app.root.resolve().relative_to(top.resolve()) if top else Path()
    return worktree_path(app, git, name) / sub


def load_git(app: App, state: State) -> dict[str, Any] | None:
    """The ``git`` block for ``tasks load``: None without isolation (config, no repository)."""
    if app.config.stages.IMPLEMENT.tasks.isolation == "none":
        return None
    if state.git is not None:
        known: dict[str, Any] = state.git.model_dump(mode="json", exclude_none=True)
        return known
    top = repo_of(app)
    if top is None:
        return None
    g = Git(top)
    head = g.rev("HEAD")
    assert head is not None  # find_repo checked it
    stash = g.out("stash", "create")
    base, changes = head, False
    tree = _clean_tree(g, head, stash, excludes_of(app)) if stash else None
    if tree:  # the user's uncommitted changes, as an ordinary commit on top of HEAD
        base = g.out(
            "commit-tree",
            tree,
            "-p",
            head,
            "-m",
            "agents-state: uncommitted changes at the start of phase 2.1",
        )
        changes = True
    branch = integration_branch(state.startedAt)
    taken = set(g.out("branch", "--list", "--format=%(refname:short)", f"{branch}*").split())
    n = 1
    while any(b == branch or b.startswith(branch + "-") for b in taken):  # an earlier workflow's
        n += 1
        branch = f"{integration_branch(state.startedAt)}.{n}"
    return {
        "branch": branch,
        "base": base,
        "fromChanges": changes,
        "deleteMerged": app.config.stages.IMPLEMENT.tasks.deleteMergedBranches,
    }


def _clean_tree(g: Git, head: str, stash: str, excludes: Sequence[str]) -> str | None:
    """The tree of ``stash`` (the user's uncommitted changes to tracked files) without the
    changes no commit of the engine takes (``gitwork.clean``: generated, credential, excluded),
    which keep HEAD's version; None when no change is left.  Built in a temporary index: the
    user's own index is never touched."""
    import tempfile

    from agents_state.gitwork.clean import left_out

    tree = g.out("rev-parse", f"{stash}^{{tree}}")
    raw = g.run("diff", "--name-only", "-z", "--no-renames", head, tree).stdout
    changed = [p for p in raw.split("\0") if p]
    left = [p for p in changed if left_out(p, excludes) is not None]
    if not left:
        return tree if changed else None
    if len(left) == len(changed):
        return None
    with tempfile.TemporaryDirectory(prefix="agents-state-index-") as tmp:
        index = Git(g.cwd)
        index._env = {**g.env(), "GIT_INDEX_FILE": os.path.join(tmp, "index")}
        index.run("read-tree", tree)
        for i in range(0, len(left), 1000):
            index.run(
                "reset", "--quiet", head, "--", *(f":(literal){p}" for p in left[i : i + 1000])
            )
        return index.out("write-tree")


def ensure_integration(app: App, git: GitInfo) -> Git:
    """The integration branch (from its base if missing) and the engine's worktree of it."""
    path = worktree_path(app, git, INTEGRATION_DIR)
    if (path / ".git").exists():
        return Git(path)
    top = repo_of(app)
    if top is None:
        raise GitError(["rev-parse"], f"{app.root} is no longer inside a git repository")
    main = Git(top)
    if main.rev(f"refs/heads/{git.branch}") is None:
        main.run("branch", git.branch, git.base)
    main.run("worktree", "prune")
    main.run("worktree", "add", "--quiet", str(path), git.branch)
    return Git(path)


def ensure_task_worktree(app: App, git: GitInfo, task_id: str) -> Path:
    """The task's worktree on its own branch (made from the integration branch if missing)."""
    path = worktree_path(app, git, task_id)
    if (path / ".git").exists():
        return path
    intg = ensure_integration(app, git)
    branch = task_branch(git, task_id)
    intg.run("worktree", "prune")
    if intg.rev(f"refs/heads/{branch}") is None:
        intg.run("worktree", "add", "--quiet", "-b", branch, str(path), git.branch)
    else:  # a reclaimed task keeps the work its branch already holds
        intg.run("worktree", "add", "--quiet", str(path), branch)
    return path


def discard_worktrees(app: App, git: GitInfo, names: list[str]) -> None:
    """Remove merged tasks' worktrees: each folder, and git's own record of it (what ``git
    worktree prune`` would remove), renamed into ``.trash-*`` (one step each, so a kill never
    leaves half a worktree under a task's name, nor a record of a missing one); the trash is
    then deleted by a detached ``rm -rf`` (the deleting is off the merge's path; trash a killed
    run left behind goes with the next), else here when none can be started."""
    import shutil

    base = worktree_path(app, git, INTEGRATION_DIR).parent
    left = [p for p in base.glob(".trash-*")]
    trash, unknown = [], False
    ours = _worktree_record(base / INTEGRATION_DIR, None)  # the engine's own, made by it
    for name in names:
        path = base / name
        if not path.is_dir():
            continue
        record = _worktree_record(path, ours.parent) if ours else None
        moved = base / f".trash-{name}"
        shutil.rmtree(moved, ignore_errors=True)
        path.rename(moved)
        trash.append(moved)
        if record is None:
            unknown = True
            continue
        aside = base / f".trash-{name}+git"  # "+" is in no task id
        shutil.rmtree(aside, ignore_errors=True)
        try:
            record.rename(aside)  # git forgets the worktree at once (branch -D may follow)
            trash.append(aside)
        except OSError:  # another file system: deleted here
            shutil.rmtree(record, ignore_errors=True)
    if left or unknown:
        Git(app.root).run("worktree", "prune")
    _delete_detached([*trash, *(p for p in left if p not in trash)])


def delete_trash(path: Path) -> None:
    """Delete a folder a merge moved aside (``.trash-*``), here and now (doctor's repair)."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _delete_detached(paths: list[Path]) -> None:
    """``rm -rf`` of ``paths`` in a process of its own that outlives this one (a shell that
    starts it in the background and exits, so no child is left to wait for)."""
    import shutil
    import subprocess

    if not paths:
        return
    try:
        subprocess.run(
            ["/bin/sh", "-c", 'rm -rf -- "$@" >/dev/null 2>&1 &', "rm", *map(str, paths)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            check=False,
        )
    except OSError:
        for path in paths:
            shutil.rmtree(path, ignore_errors=True)


def _worktree_record(path: Path, records: Path | None) -> Path | None:
    """git's record of the worktree at ``path`` (``.git/worktrees/<name>``), when both point at
    each other and it lies in ``records`` (git's folder of them, as the engine's own worktree
    names it; ``None`` for the engine's own).  The ``.git`` file in a task's worktree is the
    agent's to change: never trusted alone."""
    try:
        line = (path / ".git").read_text(encoding="utf-8").strip()
        if not line.startswith("gitdir: "):
            return None
        record = Path(line[len("gitdir: ") :])
        back = (record / "gitdir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if record.parent.name != "worktrees" or os.path.realpath(back) != os.path.realpath(
        path / ".git"
    ):
        return None
    if records is not None and os.path.realpath(record.parent) != os.path.realpath(records):
        return None
    return record


def commit_leftovers(
    path: Path, message: str, excludes: Sequence[str] = (), since: str | None = None
) -> Staged:
    """Commit what the agent left uncommitted in its worktree, the clean way (``gitwork.clean``:
    no generated file, no credential, nothing ``excludes`` names); what it took and left out.
    ``since``: the commit the work began from; such files an agent committed itself since are
    taken out of the branch too (they stay in the worktree).

    A resolved merge (``task resolve``) is committed as that merge; conflict markers still in a
    file refuse it."""
    from agents_state.gitwork.clean import Staged, stage_clean

    if not (path / ".git").exists():
        return Staged(False, [], [])
    g = Git(path)
    _clear_stale(g.git_dir())
    merging = g.rev("MERGE_HEAD") is not None
    if not g.dirty() and not merging:
        return _drop(g, since, excludes, Staged(False, [], []))
    staged = stage_clean(g, excludes)
    left = g.run("diff", "--cached", "--check", ok=(0, 2)).stdout
    if merging and "conflict marker" in left:
        from agents_state.errors import ConflictLeftError

        files = sorted({ln.split(":", 1)[0] for ln in left.splitlines() if "conflict marker" in ln})
        raise ConflictLeftError(str(path), files)
    if merging:
        g.run("commit", "--quiet", "--no-edit", "--no-verify")
    elif g.run("diff", "--cached", "--quiet", ok=(0, 1)).returncode == 1:
        g.run("commit", "--quiet", "--no-verify", "-m", message)
    else:  # only left-out files changed: nothing to commit
        return _drop(g, since, excludes, staged)
    return _drop(g, since, excludes, staged._replace(made=True))


def _drop(g: Git, since: str | None, excludes: Sequence[str], staged: Staged) -> Staged:
    """``staged`` with the left-out files an agent committed itself since ``since`` taken out
    of the branch (never during a merge: a resolution is committed first)."""
    if since is None or g.rev("MERGE_HEAD") is not None:
        return staged
    from agents_state.gitwork.clean import drop_committed

    gone = drop_committed(g, since, excludes)
    if not gone:
        return staged
    from agents_state.gitwork.clean import left_out

    left = sorted({*staged.left, *((p, left_out(p, excludes) or "") for p in gone)})
    return staged._replace(made=True, left=left)


def _clear_stale(git_dir: Path, *more: Path) -> bool:
    """Lock files a killed git left in a worktree only the engine (under its lock) uses;
    True if there were any."""
    names = ("index.lock", "HEAD.lock", "ORIG_HEAD.lock", "MERGE_HEAD.lock")
    found = False
    for path in (*(git_dir / n for n in names), *more):
        if path.exists():
            path.unlink(missing_ok=True)
            found = True
    return found
