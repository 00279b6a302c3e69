"""Kill -9 at every step of a merge (issue 22): the engine processes that commit the last task
and run the merge queue (``task done``, then ``next``: issue 33) are killed right after their
N-th git command, or while it runs, for N = 1, 2, ... until the run finishes unkilled.  After
each kill the workflow is resumed as an orchestrator would (the task agent's ``task done`` again
if it was not recorded, then what ``next`` says): every task's change is in the integration
branch, every task is recorded merged once, and no commit that any branch ever pointed at (the
reflogs) is lost.

The kill comes from a ``git`` on PATH that runs the real one and then kills its caller (SIGKILL);
git itself is not replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from clitools import CLI, run_cli, walk_to
from gitrepo import edit_line, git, integration, load, make_repo, show, task_of

pytestmark = pytest.mark.slow

REAL_GIT = shutil.which("git")
SHIM = """#!/bin/sh
n=$(cat "$SHIM_DIR/count" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$SHIM_DIR/count"
if [ "$n" = "$KILL_AT" ]; then
  if [ "$KILL_MODE" = during ]; then
    "$REAL_GIT" "$@" &
    child=$!
    sleep 0.00$((n % 8))
    kill -9 "$PPID" "$child" 2>/dev/null
    exit 137
  fi
  "$REAL_GIT" "$@"
  kill -9 "$PPID"
  exit 137
fi
exec "$REAL_GIT" "$@"
"""
TASKS = [
    {"id": "a", "title": "A", "files": ["f.txt"]},
    {"id": "b", "title": "B", "files": ["f.txt"]},
    {"id": "c", "title": "C", "files": ["f.txt"]},
    {"id": "d", "title": "D", "dependencies": ["a", "b", "c"]},
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("merge-kill-template")
    walk_to(base, "2.1")
    return base


def _setup(root: Path, template: Path) -> None:
    root.mkdir()
    shutil.copytree(template / ".agents", root / ".agents")
    make_repo(root)
    load(root, TASKS)
    for k, tid in enumerate("abc"):
        out = json.loads(run_cli(root, "task", "start", tid, "--json").stdout)
        edit_line(Path(out["worktree"]) / "f.txt", 10 * k, f"by {tid}")
    git(root / ".agents" / "worktrees" / "c", "add", "f.txt")
    git(root / ".agents" / "worktrees" / "c", "commit", "-qm", "c's own commit")
    edit_line(root / ".agents" / "worktrees" / "c" / "f.txt", 50, "c left this uncommitted")
    for tid in "ab":
        assert run_cli(root, "task", "done", tid, "--summary", tid).returncode == 0


def _killed_done(root: Path, shim_dir: Path, kill_at: int, mode: str) -> int:
    (shim_dir / "count").write_text("0")
    env = {
        **os.environ,
        "PATH": f"{shim_dir}:{os.environ['PATH']}",
        "SHIM_DIR": str(shim_dir),
        "KILL_AT": str(kill_at),
        "KILL_MODE": mode,
        "REAL_GIT": str(REAL_GIT),
    }
    for argv in (["task", "done", "c", "--summary", "c done"], ["next", "--json"]):
        proc = subprocess.run(  # issue 33: the done commits, the next merges (one git count)
            [CLI, "--root", str(root), *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        if proc.returncode != 0:
            return proc.returncode
    return 0


def _resume(root: Path) -> bool:
    """What the orchestrator does next: redo an unrecorded done, then follow ``next``; True
    if the kill came inside a merge run (its intent recorded, its results not)."""
    state = json.loads((root / ".agents" / "state.json").read_text())
    interrupted = "intent" in state["git"]
    if interrupted:  # status tells the user, too
        status = run_cli(root, "status").stdout
        assert "a merge run was interrupted: agents-state merge finishes it" in status
    if task_of(root, "c")["status"] != "completed":
        proc = run_cli(root, "task", "done", "c", "--summary", "c done")
        assert proc.returncode == 0, proc.stderr
    for _ in range(3):
        action = json.loads(run_cli(root, "next", "--json").stdout)
        if action["kind"] == "dispatch_agents":
            return interrupted
        assert action["command"] == "agents-state merge", action
        proc = run_cli(root, "merge")
        assert proc.returncode == 0, proc.stderr
    raise AssertionError("the merge never finished")


def _check(root: Path) -> None:
    branch = integration(root)
    lines = show(root, branch).splitlines()
    assert [lines[0], lines[10], lines[20], lines[50]] == [
        "by a",
        "by b",
        "by c",
        "c left this uncommitted",
    ]
    tip = git(root, "rev-parse", branch)
    merges = git(root, "log", "--first-parent", "--merges", "--format=%s", branch).splitlines()
    assert merges == ["Merge task c: C", "Merge task b: B", "Merge task a: A"]  # each once
    for tid in "abc":
        t = task_of(root, tid)
        assert t["merge"] == "merged", (tid, t)
        assert git(root, "rev-parse", f"{t['mergeCommit']}^2") == t["head"]
    refs = git(root, "for-each-ref", "--format=%(refname)", "refs/heads/agents").split()
    for ref in refs:  # every commit any branch of the workflow ever held is still reachable
        for sha in git(root, "reflog", "show", "--format=%H", ref, "--").split():
            ok = subprocess.run(
                [str(REAL_GIT), "-C", str(root), "merge-base", "--is-ancestor", sha, tip],
                check=False,
            )
            assert ok.returncode == 0, f"{ref}: {sha} is not in {branch}"
    phase = json.loads((root / ".agents" / "state.json").read_text())
    waves = phase["stages"]["IMPLEMENT"]["phases"]["2.1"]["waves"]
    assert [w["status"] for w in waves] == ["completed", "in_progress"]
    assert "intent" not in phase["git"]


@pytest.mark.parametrize("mode", ["after", "during"])
def test_kill_at_every_git_step_of_a_merge(tmp_path: Path, template: Path, mode: str) -> None:
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    (shim_dir / "git").write_text(SHIM)
    (shim_dir / "git").chmod(0o755)
    kills = inside = 0
    for n in range(1, 200):
        root = tmp_path / f"run-{mode}-{n}"
        _setup(root, template)
        code = _killed_done(root, shim_dir, n, mode)
        if code == 0:  # it ran past its last git command: the loop is complete
            _check(root)
            break
        assert code == -9, f"step {n}: exit {code}"
        kills += 1
        inside += _resume(root)
        _check(root)
        shutil.rmtree(root, ignore_errors=True)  # a detached rm -rf may still be emptying the trash
    else:
        raise AssertionError("the merge never finished unkilled")
    assert kills >= 12  # the commit of what c left, three merges and the steps around them
    assert inside >= 4  # killed between the recorded intent and the recorded results
