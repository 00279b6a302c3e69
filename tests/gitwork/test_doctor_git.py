"""doctor and worktree isolation (issue 22): worktrees and branches the state no longer names
are found, and removed by --repair unless a branch holds commits no other branch has."""

from __future__ import annotations

import json
from pathlib import Path

from gitrepo import at_tasks, cli_json, edit_line, git, integration, run_cli


def test_doctor_finds_and_removes_orphans_but_keeps_unique_work(root: Path) -> None:
    at_tasks(root, [{"id": "a"}, {"id": "b"}])
    out = cli_json(root, "task", "start", "a")
    edit_line(Path(out["worktree"]) / "f.txt", 1, "by a")
    assert run_cli(root, "doctor").stdout == "doctor: no problems found\n"
    # an earlier workflow's leftovers: a worktree on a branch main holds, and a branch of its own
    git(root, "worktree", "add", "-q", "-b", "agents/old-x", ".agents/worktrees/x", "main")
    git(root, "branch", "agents/old-y", "main")
    wt = root / ".agents" / "worktrees" / "x"
    edit_line(wt / "f.txt", 2, "unique")
    git(wt, "commit", "-qam", "work only agents/old-x has")
    proc = run_cli(root, "doctor", "--json")
    found = {f["code"]: f for f in json.loads(proc.stdout)["findings"]}
    assert found["git_orphans"]["message"] == (
        "worktrees or branches the state no longer names: .agents/worktrees/x, agents/old-y"
    )
    assert found["git_branch_kept"]["message"] == (
        "branch agents/old-x is not named by the state and holds commits no other branch has"
    )
    assert found["git_branch_kept"]["repairable"] is False
    proc = run_cli(root, "doctor", "--repair")
    assert "repaired: removed the worktree .agents/worktrees/x" in proc.stdout
    assert "repaired: deleted the branch agents/old-y (its commits are on another branch)" in (
        proc.stdout
    )
    assert not wt.exists()
    refs = git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/agents/").split()
    assert sorted(refs) == sorted([integration(root), f"{integration(root)}-a", "agents/old-x"])
    assert (root / ".agents" / "worktrees" / "a" / "f.txt").read_text().splitlines()[1] == "by a"
    again = json.loads(run_cli(root, "doctor", "--json").stdout)["findings"]
    assert [f["code"] for f in again] == ["git_branch_kept"]


def test_doctor_removes_worktrees_a_killed_merge_left_moved_aside(root: Path) -> None:
    at_tasks(root, [{"id": "a"}])
    trash = root / ".agents" / "worktrees" / ".trash-a"
    (trash / "sub").mkdir(parents=True)
    (trash / "sub" / "f.txt").write_text("x\n")
    found = json.loads(run_cli(root, "doctor", "--json").stdout)["findings"]
    assert [f["message"] for f in found if f["code"] == "git_orphans"] == [
        "worktrees or branches the state no longer names: .agents/worktrees/.trash-a"
    ]
    proc = run_cli(root, "doctor", "--repair")
    assert "repaired: removed the worktree .agents/worktrees/.trash-a" in proc.stdout
    assert not trash.exists()
