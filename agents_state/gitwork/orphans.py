"""Doctor's look at worktree isolation (issue 22): worktrees and branches the state no longer
names.

A worktree under ``.agents/worktrees/`` that the state does not need (a merged task's, one of
an earlier workflow, a folder git no longer knows) is removed by ``--repair``.  A branch
``agents/...`` the state does not name is deleted only when another branch holds its commits
(a merged task's branch): a branch with commits nowhere else (an earlier workflow's result,
say) is reported and kept, so that ``--repair`` never loses a commit.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from agents_state.engine.worktrees import INTEGRATION_DIR, MERGED, task_branch
from agents_state.errors import AgentsStateError
from agents_state.gitwork.git import Git, find_repo
from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from agents_state.doctor.diagnose import Diagnosis
    from agents_state.models import State

__all__ = ["Orphans", "check_git", "find_orphans", "remove_orphans"]

WORKTREES = Path(".agents") / "worktrees"


class Orphans(NamedTuple):
    worktrees: list[Path]  # to remove
    branches: list[str]  # merged elsewhere: to delete
    kept: list[str]  # branches with commits nowhere else: reported only
    strays: list[Path]  # folders git does not know as worktrees: reported only


def _named(state: State | None) -> tuple[set[str], set[str]]:
    """Worktree names and branches the state still needs."""
    if state is None or state.git is None:
        return set(), set()
    git = state.git
    tasks = state.phase(TASK_PHASE).tasks or {}
    trees = {INTEGRATION_DIR} | {t for t, s in tasks.items() if s.merge not in MERGED}
    branches = {git.branch} | {
        task_branch(git, t)
        for t, s in tasks.items()
        if not (git.deleteMerged and s.merge == "merged")
    }
    return trees, branches


def find_orphans(root: Path, state: State | None) -> Orphans | None:
    """None outside a git repository (nothing to look at)."""
    top = find_repo(root)
    if top is None:
        return None
    g = Git(top)
    trees, branches = _named(state)
    base = (root / WORKTREES).resolve()
    listed = set()
    for line in g.out("worktree", "list", "--porcelain").splitlines():
        if line.startswith("worktree "):
            path = Path(line[len("worktree ") :])
            if path.parent == base:
                listed.add(path.name)
    present = (
        {p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith(".trash-")}
        if base.is_dir()
        else set()
    )  # .trash-*: merged worktrees moved aside for deletion (rooms.discard_worktrees)
    orphan_trees = sorted(base / n for n in listed - trees)
    if base.is_dir():  # merged worktrees a killed run moved aside and did not delete
        orphan_trees += sorted(p for p in base.iterdir() if p.name.startswith(".trash-"))
    strays = sorted(base / n for n in present - listed - trees)
    refs = g.out("for-each-ref", "--format=%(refname:short)", "refs/heads/agents/").split()
    gone: list[str] = []
    kept: list[str] = []
    for ref in sorted(set(refs) - branches):
        held = set(g.out("branch", "--contains", ref, "--format=%(refname:short)").split())
        (gone if held - {ref} else kept).append(ref)
    return Orphans(orphan_trees, gone, kept, strays)


def remove_orphans(root: Path, found: Orphans) -> list[str]:
    top = find_repo(root)
    if top is None:
        return []
    g = Git(top)
    done = []
    for path in found.worktrees:
        if path.name.startswith(".trash-"):
            from agents_state.gitwork.rooms import delete_trash

            delete_trash(path)
        else:
            g.run("worktree", "remove", "--force", "--force", str(path), ok=(0, 128))
        done.append(f"removed the worktree {path.relative_to(root.resolve())}")
    g.run("worktree", "prune")
    for ref in found.branches:
        g.run("branch", "-D", ref)
        done.append(f"deleted the branch {ref} (its commits are on another branch)")
    return done


def check_git(d: Diagnosis) -> None:
    """Doctor's findings about the worktrees and branches of worktree isolation the state no
    longer names (``cmd_doctor`` adds them to each diagnosis; the doctor package sits below
    this one)."""
    if not (d.store.dir / "worktrees").is_dir():
        return
    try:
        found = find_orphans(d.store.root, d.state)
    except AgentsStateError as e:
        d.add("git", "warning", f"could not look at the git worktrees: {e.message}", "", False)
        return
    if found is None:
        return
    d.git_orphans = found
    names = [str(p.relative_to(d.store.root.resolve())) for p in found.worktrees]
    if names or found.branches:
        d.add(
            "git_orphans",
            "warning",
            "worktrees or branches the state no longer names: " + ", ".join(names + found.branches),
            "remove those worktrees and delete those branches (other branches hold their commits)",
        )
    for ref in found.kept:
        d.add(
            "git_branch_kept",
            "note",
            f"branch {ref} is not named by the state and holds commits no other branch has",
            f"kept; delete it by hand if it is not wanted: git branch -D {ref}",
            False,
        )
    for path in found.strays:
        d.add(
            "git_stray",
            "note",
            f"{path.relative_to(d.store.root.resolve())} is not a git worktree",
            "delete the folder by hand if nothing in it is wanted",
            False,
        )
