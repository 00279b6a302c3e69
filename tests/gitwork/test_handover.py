"""Issue 33, item 3: the result handed over.

``done`` (and ``status``) name where the work is (branch, commit, the folder it is checked out
in) and the one command that brings it into the user's branch; with the ``commit`` git workflow
the engine fast-forwards the user's branch itself when their checkout is clean.  Under isolation
every path the next action prints works from any folder (the model may have cd'd into a
worktree).  Real git, the installed CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from clitools import CLI, artifact_body, walk_to
from gitrepo import cli_json, edit_line, git, integration, load, make_repo, run_cli, state


def _finish(root: Path, workflow: str, dirty: bool = False) -> str:
    """A one-task workflow under isolation, walked to its end; the completion's output.
    ``dirty``: the user edits their checkout while the workflow runs."""
    make_repo(root)
    walk_to(root, "2.1")
    (root / ".agents" / "config.json").write_text(
        json.dumps({"stages": {"FINAL": {"git": {"workflow": workflow}}}})
    )
    load(root, [{"id": "a", "title": "A", "files": ["f.txt"]}])
    where = Path(cli_json(root, "task", "start", "a")["worktree"])
    edit_line(where / "f.txt", 4, "by a")
    assert run_cli(root, "task", "done", "a", "--summary", "a").returncode == 0
    if dirty:
        edit_line(root / "f.txt", 100, "the user's own unsaved line")
    for _ in range(40):
        action = cli_json(root, "next")
        if action["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        assert action["kind"] != "done", action
        body = artifact_body(action["write"])
        proc = run_cli(root, "phase", "complete", action["phase"], "--artifact", "-", stdin=body)
        assert proc.returncode == 0, proc.stderr
        if json.loads((root / ".agents" / "state.json").read_text())["status"] == "completed":
            return proc.stdout
    raise AssertionError("the workflow never completed")


def _folder(root: Path) -> str:
    return str((root / ".agents" / "worktrees" / "_integration").resolve())


def test_done_names_the_branch_commit_folder_and_the_command(root: Path) -> None:
    out = _finish(root, "branch+PR")
    branch = integration(root)
    commit = git(root, "rev-parse", branch)
    said = (
        f"The work is on branch {branch} at commit {commit[:12]}, checked out in "
        f"{_folder(root)}; your checkout (main) does not have it yet: bring it in with: "
        f"git merge --ff-only {branch}."
    )
    assert said in out
    action = cli_json(root, "next")
    assert action["kind"] == "done" and action["instructions"].endswith(said)
    assert action["handover"] == {
        "branch": branch,
        "commit": commit,
        "folder": _folder(root),
        "userBranch": "main",
        "inUserBranch": False,
        "command": f"git merge --ff-only {branch}",
    }
    assert said in run_cli(root, "status").stdout
    assert "by a" not in (root / "f.txt").read_text()  # the user's checkout is left alone


def test_the_commit_workflow_brings_the_work_into_a_clean_checkout(root: Path) -> None:
    out = _finish(root, "commit")
    branch = integration(root)
    assert "; brought into your branch main (fast-forward)." in out
    assert git(root, "rev-parse", "main") == git(root, "rev-parse", branch)
    assert (root / "f.txt").read_text().splitlines()[4] == "by a"
    assert "; it is in main already." in cli_json(root, "status")["next"]["instructions"]


def test_the_commit_workflow_leaves_uncommitted_changes_untouched(root: Path) -> None:
    out = _finish(root, "commit", dirty=True)
    branch = integration(root)
    assert (
        "; not brought into your branch: your checkout has uncommitted changes (left untouched); "
        f"bring it in with: git merge --ff-only {branch}."
    ) in out
    assert git(root, "rev-parse", "main") == state(root)["git"]["base"]
    lines = (root / "f.txt").read_text().splitlines()
    assert (lines[4], lines[100]) == ("line 4", "the user's own unsaved line")


def test_next_prints_absolute_paths_under_isolation(root: Path) -> None:
    make_repo(root)
    walk_to(root, "2.1")
    load(root, [{"id": "a", "title": "A", "files": ["f.txt"]}])
    wave = cli_json(root, "next")
    assert wave["tasks"][0]["worktree"] == f"{root}/.agents/worktrees/a"
    assert all(p.startswith(f"{root}/.agents/phases/") for p in wave["read"])
    where = Path(cli_json(root, "task", "start", "a")["worktree"])
    edit_line(where / "f.txt", 4, "by a")
    assert run_cli(root, "task", "done", "a", "--summary", "a").returncode == 0
    action = cli_json(root, "next")
    assert action["phase"] == "2.2"
    assert action["write"].startswith(f"{root}/.agents/phases/")
    assert f"checked out in {root}/.agents/worktrees/_integration;" in action["instructions"]
    assert f"--artifact {root}/.agents/phases/" in action["command"]
    # and the command works from inside the integration worktree (where the model cd'd)
    body = artifact_body(action["write"])
    Path(action["write"]).write_text(body)
    proc = subprocess.run(
        ["/bin/sh", "-c", f"cd {root}/.agents/worktrees/_integration && {action['command']}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{Path(CLI).parent}:/usr/bin:/bin"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
