"""The merge queue's own steps (issue 22, the faster queue): each task merged as ``git merge
--no-ff`` would (a merge commit whose parents are the integration head and the task's head),
the integration worktree moved once, clean, to the last merge; a head already in the branch is
"nothing new"; merged worktrees leave no record in git; a worktree's ``.git`` file an agent
rewrote never makes the engine delete anything else."""

from __future__ import annotations

import json
from pathlib import Path

from gitrepo import (
    at_tasks,
    cli_json,
    edit_line,
    git,
    integration,
    run_cli,
    state,
    task_of,
    trash_gone,
)

from agents_state.app import App
from agents_state.gitwork.queue import run_queue


def _work(root: Path, tid: str, line: int) -> Path:
    out = Path(cli_json(root, "task", "start", tid)["worktree"])
    edit_line(out / "f.txt", line, f"by {tid}")
    return out


def _done(root: Path, tid: str) -> None:
    proc = run_cli(root, "task", "done", tid, "--summary", f"{tid} done")
    assert proc.returncode == 0, proc.stderr
    assert run_cli(root, "next").returncode == 0  # issue 33: the wave merges at the next next


def test_each_task_is_a_merge_commit_and_the_worktree_moves_once(root: Path) -> None:
    at_tasks(root, [{"id": t, "title": f"edit {t}"} for t in ("a", "b", "c")])
    base = state(root)["git"]["base"]
    for k, tid in enumerate("abc"):
        _work(root, tid, 10 * k)
        _done(root, tid)
    branch = integration(root)
    log = git(root, "log", "--first-parent", "--format=%H %P|%s", f"{base}..{branch}")
    rows = [line.split("|") for line in reversed(log.splitlines())]
    previous = base
    for (ids, subject), tid in zip(rows, "abc", strict=True):
        commit, first, second = ids.split()
        t = task_of(root, tid)
        assert (first, second, subject) == (previous, t["head"], f"Merge task {tid}: edit {tid}")
        assert t["mergeCommit"] == commit and t["merge"] == "merged"
        previous = commit
    intg = root / ".agents" / "worktrees" / "_integration"
    assert git(intg, "rev-parse", "HEAD") == previous == git(root, "rev-parse", branch)
    assert git(intg, "status", "--porcelain") == ""
    lines = (intg / "f.txt").read_text().splitlines()
    assert (lines[0], lines[10], lines[20]) == ("by a", "by b", "by c")
    # git keeps no record of the removed worktrees (nothing left to prune), at once
    listed = git(root, "worktree", "list", "--porcelain")
    assert "prunable" not in listed and listed.count("worktree ") == 2
    assert sorted(p.name for p in (root / ".git" / "worktrees").iterdir()) == ["_integration"]
    # the folders moved aside are deleted by a detached rm -rf
    base = root / ".agents" / "worktrees"
    assert sorted(p.name for p in base.iterdir() if not p.name.startswith(".trash-")) == [
        "_integration"
    ]
    trash_gone(root)


def test_a_head_already_in_the_branch_is_nothing_new(root: Path) -> None:
    at_tasks(root, [{"id": "a"}, {"id": "b"}])
    _work(root, "a", 1)
    _done(root, "a")
    wt = Path(cli_json(root, "task", "start", "b")["worktree"])
    _done(root, "b")
    assert task_of(root, "b")["merge"] == "nochange"
    assert not wt.exists()
    assert git(root, "log", "-1", "--format=%s", integration(root)) == "Merge task a: task"


def test_a_rewritten_git_file_never_deletes_anything_else(root: Path) -> None:
    at_tasks(root, [{"id": "a"}, {"id": "b"}])
    decoy = root.parent / "decoy" / "worktrees" / "x"
    decoy.mkdir(parents=True)
    wa = _work(root, "a", 1)
    _work(root, "b", 30)
    _done(root, "a")
    # the agent points its .git at a folder it made look like git's record of it
    (decoy / "gitdir").write_text(str(wa / ".git") + "\n")
    (wa / ".git").write_text(f"gitdir: {decoy}\n")
    _done(root, "b")
    assert (decoy / "gitdir").exists()
    assert task_of(root, "a")["merge"] == "merged" and task_of(root, "b")["merge"] == "merged"
    assert not wa.exists()
    trash_gone(root)
    listed = git(root, "worktree", "list", "--porcelain")
    assert "prunable" not in listed and listed.count("worktree ") == 2


def test_a_queue_run_with_nothing_due_does_nothing(root: Path) -> None:
    at_tasks(root, [{"id": "a"}])
    assert run_queue(App(root)) is None


def test_a_task_without_change_says_so_at_done_and_at_the_merge(root: Path) -> None:
    at_tasks(root, [{"id": "a"}, {"id": "b"}, {"id": "c"}])
    for tid in "abc":
        cli_json(root, "task", "start", tid)
    edit_line(root / ".agents" / "worktrees" / "c" / "f.txt", 5, "by c")
    branch = integration(root)
    a = run_cli(root, "task", "done", "a", "--summary", "nothing needed")
    assert a.stdout.strip() == f"a completed; no change on its branch {branch}-a (nothing to merge)"
    b = run_cli(root, "task", "done", "b", "--summary", "nothing", "--json")
    assert json.loads(b.stdout)["message"] == (
        f"b completed; no change on its branch {branch}-b (nothing to merge)"
    )
    c = run_cli(root, "task", "done", "c", "--summary", "line 5")
    assert c.stdout.startswith("c completed; the wave is done")
    assert cli_json(root, "next")["merged"] == (
        f"merged 1 task(s) into {branch}; without change (nothing to merge): a, b; "
        "wave 1 completed; phase 2.1 completed"
    )
    assert [task_of(root, t)["merge"] for t in "abc"] == ["nochange", "nochange", "merged"]
