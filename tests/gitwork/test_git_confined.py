"""The engine's git runs only where the engine put it (issue 32, item 2): a worktree's
``.git`` file and git's record of it are checked before any git call there, and the state's
``git`` block must name the engine's own places."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from clitools import run_proc
from gitrepo import at_tasks, cli_json, edit_line, git, run_cli, state, task_of


def _marker_repo(at: Path, marks: Path) -> None:
    """A git dir at ``at`` whose config runs a program (writing ``marks/ran``) on any status."""
    subprocess.run(["git", "init", "-q", "--bare", str(at)], check=True)
    script = marks / "fsmonitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marks}/ran\n")
    script.chmod(0o755)
    with (at / "config").open("a") as f:
        f.write(f"[core]\n\tbare = false\n\tfsmonitor = {script}\n")


def test_a_worktree_pointing_its_git_file_elsewhere_stops_task_done(root: Path) -> None:
    at_tasks(root, [{"id": "a"}])
    wt = Path(cli_json(root, "task", "start", "a")["worktree"])
    marks = root.parent / "marks"
    marks.mkdir()
    _marker_repo(wt / ".g", marks)
    original = (wt / ".git").read_text()
    (wt / ".git").write_text("gitdir: .g\n")  # what a task agent may write
    edit_line(wt / "f.txt", 1, "work")
    before = (root / ".agents" / "state.json").read_bytes()
    proc = run_proc(root, "task", "done", "a", "--summary", "a")
    assert proc.returncode == 5
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0] == (
        f"agents-state: error: {wt}/.git: reads 'gitdir: .g', not '{original.strip()}' as the "
        "engine made it; restore that line (an agent must never edit this file) and run the "
        "command again"
    )
    assert not (marks / "ran").exists()
    assert (root / ".agents" / "state.json").read_bytes() == before
    assert task_of(root, "a")["status"] == "in_progress"
    # the attack is real: plain git there runs the planted program
    subprocess.run(["git", "-C", str(wt), "status"], capture_output=True, check=False)
    assert (marks / "ran").exists()
    # restored as the message says, the same command goes through
    (marks / "ran").unlink()
    (wt / ".git").write_text(original)
    proc = run_proc(root, "task", "done", "a", "--summary", "a")
    assert proc.returncode == 0, proc.stderr
    assert not (marks / "ran").exists()


def test_git_s_record_of_the_worktree_is_checked_too(root: Path) -> None:
    at_tasks(root, [{"id": "a"}])
    wt = Path(cli_json(root, "task", "start", "a")["worktree"])
    record = Path((wt / ".git").read_text().strip().removeprefix("gitdir: "))
    marks = root.parent / "marks"
    marks.mkdir()
    _marker_repo(root.parent / "planted", marks)
    (record / "commondir").write_text(str(root.parent / "planted") + "\n")
    edit_line(wt / "f.txt", 1, "work")
    proc = run_proc(root, "task", "done", "a", "--summary", "a")
    assert proc.returncode == 5, proc.stderr
    assert proc.stderr.startswith(f"agents-state: error: {record}/commondir: reads '{root.parent}")
    assert "restore it to '../..'" in proc.stderr
    assert not (marks / "ran").exists()
    assert task_of(root, "a")["status"] == "in_progress"


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("worktrees", "../outside", "git.worktrees: is '../outside', not '.agents/worktrees'"),
        ("worktrees", "/tmp", "git.worktrees: is '/tmp', not '.agents/worktrees'"),
        ("branch", "--orphan", "git.branch: '--orphan' is not a branch under agents/"),
        ("branch", "main", "git.branch: 'main' is not a branch under agents/"),
        ("base", "--all", "git.base: '--all' is not a commit id"),
    ],
)
def test_a_forged_git_block_is_refused_before_any_checkout(
    root: Path, field: str, value: str, says: str
) -> None:
    at_tasks(root, [{"id": "a"}, {"id": "b"}])
    data = state(root)
    data["git"][field] = value
    (root / ".agents" / "state.json").write_text(json.dumps(data))
    before = (root / ".agents" / "state.json").read_bytes()
    made = set(root.parent.iterdir())
    for argv in (("task", "claim"), ("task", "start", "b")):
        proc = run_proc(root, *argv)
        assert proc.returncode == 5, proc.stderr
        assert proc.stderr.strip() == (
            f"agents-state: error: .agents/state.json: {says}; the engine never writes this: "
            "restore the state from a backup or start the workflow again"
        )
    assert (root / ".agents" / "state.json").read_bytes() == before
    assert set(root.parent.iterdir()) == made
    listed = git(root, "worktree", "list")  # the user's checkout and the engine's own only
    assert listed.count("\n") == 1 and "/.agents/worktrees/_integration " in listed
    proc = run_cli(root, "task", "done", "a")  # nor does done run git on its word
    assert proc.returncode == 5, proc.stderr


def test_a_project_that_is_itself_a_linked_worktree_works(tmp_path: Path) -> None:
    """The repository's git dir is found through the user's own ``.git`` file."""
    from clitools import walk_to
    from gitrepo import load, make_repo

    origin, proj = tmp_path / "origin", tmp_path / "proj"
    origin.mkdir()
    make_repo(origin)
    git(origin, "worktree", "add", "-q", str(proj))
    walk_to(proj, "2.1")
    load(proj, [{"id": "a"}])
    wt = Path(cli_json(proj, "task", "start", "a")["worktree"])
    edit_line(wt / "f.txt", 1, "work")
    proc = run_proc(proj, "task", "done", "a", "--summary", "a")
    assert proc.returncode == 0, proc.stderr
    assert "a completed" in proc.stdout
