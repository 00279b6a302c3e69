"""The result handed over (issue 33): where the work of a workflow is, and bringing it home.

Under worktree isolation the user's checkout is left alone, so the work is on the integration
branch, checked out in the engine's integration worktree.  ``facts`` says where (branch, commit,
folder) and the one command that brings it into the user's branch; ``bring_in`` does it for the
``commit`` git workflow when the user's checkout allows it without touching their changes: no
change to a tracked file, on a branch, and the work a fast-forward of it (git itself refuses to
overwrite an untracked file).  Every answer comes from git as it is now, so ``status`` and
``next`` say what is true even after the user merged by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.models import State

__all__ = ["bring_in", "facts", "sentence", "with_handover"]


def facts(app: App, state: State) -> dict[str, Any] | None:
    """Where the work is: ``branch``, ``commit``, ``folder`` (or None when gone), the user's
    ``userBranch`` (None: detached), ``inUserBranch`` and the ``command`` to bring it there;
    None without isolation or a repository."""
    git = state.git
    if git is None:
        return None
    from agents_state.engine.worktrees import INTEGRATION_DIR
    from agents_state.gitwork.git import Git, GitError, find_repo
    from agents_state.gitwork.rooms import work_dir

    top = find_repo(app.root)
    if top is None:
        return None
    main = Git(top)
    try:
        commit = main.rev(f"refs/heads/{git.branch}")
        head = main.rev("HEAD")
        user = main.run("symbolic-ref", "--quiet", "--short", "HEAD", ok=(0, 1)).stdout.strip()
        inside = bool(commit and head and main.is_ancestor(commit, head))
        ff = bool(commit and head and main.is_ancestor(head, commit))
    except GitError:
        return None
    if commit is None:
        return None
    folder = work_dir(app, git, INTEGRATION_DIR)
    return {
        "branch": git.branch,
        "commit": commit,
        "folder": str(folder.resolve()) if folder.is_dir() else None,
        "userBranch": user or None,
        "inUserBranch": inside,
        "command": f"git merge {'--ff-only ' if ff else ''}{git.branch}",
    }


def sentence(f: dict[str, Any], brought: str = "") -> str:
    """The words ``done`` and ``status`` add (issue 33)."""
    where = f"The work is on branch {f['branch']} at commit {f['commit'][:12]}" + (
        f", checked out in {f['folder']}" if f["folder"] else ""
    )
    if brought:
        return f"{where}; {brought}."
    mine = f["userBranch"] or "your checkout"
    if f["inUserBranch"]:
        return f"{where}; it is in {mine} already."
    return (
        f"{where}; your checkout ({mine}) does not have it yet: bring it in with: {f['command']}."
    )


def bring_in(app: App, state: State) -> str:
    """With the ``commit`` git workflow, fast-forward the user's branch to the work when their
    checkout allows it untouched; the words saying what happened ("" without isolation)."""
    f = facts(app, state)
    if f is None or f["inUserBranch"]:
        return ""
    from agents_state.gitwork.git import Git, GitError, find_repo

    top = find_repo(app.root)
    assert top is not None  # facts found it
    main = Git(top)
    why = ""
    if f["userBranch"] is None:
        why = "your checkout is on no branch (detached HEAD)"
    elif not f["command"].startswith("git merge --ff-only"):
        why = f"{f['userBranch']} has moved on since the workflow began"
    elif main.out("status", "--porcelain", "--untracked-files=no"):
        why = "your checkout has uncommitted changes (left untouched)"
    if not why:
        try:
            main.run("merge", "--ff-only", "--quiet", f["branch"])
        except GitError as e:
            why = f"git refused the fast-forward ({e.message})"
    if why:
        return f"not brought into your branch: {why}; bring it in with: {f['command']}"
    return f"brought into your branch {f['userBranch']} (fast-forward)"


def with_handover(app: App, state: State, action: dict[str, Any]) -> dict[str, Any]:
    """Once the workflow is done under isolation, the action says where the work is
    (``handover``, and a sentence of its instructions)."""
    if state.status != "completed":
        return action
    f = facts(app, state)
    if f is None:
        return action
    return {**action, "handover": f, "instructions": f"{action['instructions']} {sentence(f)}"}
