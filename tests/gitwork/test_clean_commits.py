"""Issue 33, item 1: a commit of the engine takes the change, not what running it left behind.

Real git, the real CLI, and a real ``python`` importing the module in the task's worktree (it
writes ``__pycache__/`` in a project that does not ignore it, as a task's own check does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from clitools import walk_to
from gitrepo import cli_json, git, integration, load, run_cli, state, task_of

MODULE = "".join(f"LINE_{i} = {i}\n" for i in range(80))


def _project(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    (root / "mod.py").write_text(MODULE)
    git(root, "add", "mod.py")
    git(root, "commit", "-qm", "init")


def _import_in(folder: Path) -> None:
    """The task's own check: import the module there, as a user's shell does (bytecode on)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run(
        [sys.executable, "-c", "import mod; print(mod.LINE_1)"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert list((folder / "__pycache__").glob("mod.*.pyc")), "the import wrote no bytecode"


def _edit(folder: Path, n: int, text: str) -> None:
    lines = (folder / "mod.py").read_text().splitlines(keepends=True)
    lines[n] = text + "\n"
    (folder / "mod.py").write_text("".join(lines))


def _files(root: Path, ref: str) -> list[str]:
    return git(root, "ls-tree", "-r", "--name-only", ref).splitlines()


def test_two_tasks_importing_one_module_merge_without_bytecode(root: Path) -> None:
    _project(root)
    walk_to(root, "2.1")
    load(root, [{"id": t, "title": f"edit {t}", "files": ["mod.py"]} for t in ("a", "b")])
    for tid, line in (("a", 2), ("b", 70)):
        where = Path(cli_json(root, "task", "start", tid)["worktree"])
        _edit(where, line, f"LINE_{line} = '{tid}'")
        _import_in(where)
        proc = run_cli(root, "task", "done", tid, "--summary", f"{tid} edits line {line}")
        assert proc.returncode == 0, proc.stderr
        assert "__pycache__" not in " ".join(_files(root, task_of(root, tid)["head"]))
    merged = run_cli(root, "merge", "--json")
    assert merged.returncode == 0, merged.stderr
    assert [task_of(root, t)["merge"] for t in "ab"] == ["merged", "merged"]
    branch = integration(root)
    assert _files(root, branch) == ["mod.py"]
    final = git(root, "show", f"{branch}:mod.py").splitlines()
    assert (final[2], final[70]) == ("LINE_2 = 'a'", "LINE_70 = 'b'")


def test_env_file_and_excluded_paths_stay_out_and_are_named(root: Path) -> None:
    _project(root)
    walk_to(root, "2.1")
    (root / ".agents" / "config.json").write_text(
        json.dumps(
            {"stages": {"FINAL": {"git": {"excludePatterns": [".agents/**", "docs/plans/**"]}}}}
        )
    )
    load(root, [{"id": "a", "title": "edit a", "files": ["mod.py"]}, {"id": "b"}])
    where = Path(cli_json(root, "task", "start", "a")["worktree"])
    _edit(where, 3, "LINE_3 = 'a'")
    (where / ".env").write_text("TOKEN=secret\n")
    (where / "docs" / "plans").mkdir(parents=True)
    (where / "docs" / "plans" / "plan.md").write_text("# plan\n")
    (where / "notes.txt").write_text("a new file the task did not list\n")
    git(where, "add", ".env")  # even staged by the agent, it is left out
    out = cli_json(root, "task", "done", "a", "--summary", "a edits line 3")
    head = task_of(root, "a")["head"]
    assert sorted(_files(root, head)) == ["mod.py", "notes.txt"]
    assert out["message"].endswith(
        "; new files outside its files: notes.txt; left out of its commit (generated, "
        "credential or excluded; still in the worktree): .env, docs/plans/plan.md"
    )
    assert (where / ".env").read_text() == "TOKEN=secret\n"  # left where it was
    summary = task_of(root, "a")["summary"]
    assert summary == "a edits line 3 (new files outside its files: notes.txt)"
    assert state(root)["git"]["branch"]


def _to_phase(root: Path, phase: str) -> dict[str, Any]:
    from clitools import artifact_body

    for _ in range(30):
        action = cli_json(root, "next")
        if action["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        if action["kind"] == "run_commands" and action["command"] == "agents-state merge":
            assert run_cli(root, "merge").returncode == 0
            continue
        if action["phase"] == phase:
            return dict(action)
        body = artifact_body(action["write"])
        proc = run_cli(root, "phase", "complete", action["phase"], "--artifact", "-", stdin=body)
        assert proc.returncode == 0, proc.stderr
    raise AssertionError(f"phase {phase} not reached")


def test_a_fix_in_the_integration_worktree_is_on_the_branch_before_the_tests(root: Path) -> None:
    _project(root)
    walk_to(root, "2.1")
    (root / ".agents" / "config.json").write_text(
        json.dumps({"stages": {"TEST": {"commands": {"fixed": "grep -q fixed mod.py"}}}})
    )
    load(root, [{"id": "a", "title": "edit a", "files": ["mod.py"]}])
    where = Path(cli_json(root, "task", "start", "a")["worktree"])
    _edit(where, 3, "LINE_3 = 'a'")
    assert run_cli(root, "task", "done", "a", "--summary", "a").returncode == 0
    _to_phase(root, "2.2")
    intg = root / ".agents" / "worktrees" / "_integration"
    _edit(intg, 5, "LINE_5 = 'reviewed'")
    _import_in(intg)
    from clitools import artifact_body

    action = cli_json(root, "next")
    body = artifact_body(action["write"])
    done = run_cli(root, "phase", "complete", "2.2", "--artifact", "-", stdin=body)
    assert done.returncode == 0, done.stderr
    branch = integration(root)
    assert f"; committed the changes in {intg} on {branch}" in done.stdout
    assert "left out of the commit (generated, credential or excluded): __pycache__/" in done.stdout
    assert "LINE_5 = 'reviewed'" in git(root, "show", f"{branch}:mod.py")
    _to_phase(root, "3.1")
    _edit(intg, 7, "LINE_7 = 'fixed'")  # the 3.2 case: a fix left in the working files
    proc = run_cli(root, "phase", "run", "3.1")
    assert proc.returncode == 0, proc.stderr
    assert "LINE_7 = 'fixed'" in git(root, "show", f"{branch}:mod.py")
    assert _files(root, branch) == ["mod.py"]
    assert git(intg, "status", "--porcelain", "--untracked-files=no") == ""


def test_generated_files_an_agent_committed_itself_leave_the_branch(root: Path) -> None:
    """``git add -A && git commit`` in the worktree (the agent may commit there): the bytecode
    it committed is taken out of its branch at done, so the wave still merges cleanly."""
    _project(root)
    walk_to(root, "2.1")
    load(root, [{"id": t, "title": f"edit {t}", "files": ["mod.py"]} for t in ("a", "b")])
    for tid, line in (("a", 2), ("b", 70)):
        where = Path(cli_json(root, "task", "start", tid)["worktree"])
        _edit(where, line, f"LINE_{line} = '{tid}'")
        _import_in(where)
        git(where, "add", "-A")
        git(where, "commit", "-qm", f"{tid}: my change")
        out = cli_json(root, "task", "done", tid, "--summary", f"{tid} edits line {line}")
        assert "left out of its commit" in out["message"]
        assert "__pycache__/mod." in out["message"]
        assert _files(root, task_of(root, tid)["head"]) == ["mod.py"]
        assert list((where / "__pycache__").glob("mod.*.pyc"))  # still in the worktree
    action = cli_json(root, "next")
    assert action["merged"].startswith(f"merged 2 task(s) into {integration(root)}")
    assert _files(root, integration(root)) == ["mod.py"]


def test_plans_the_model_committed_in_the_integration_worktree_leave_the_branch(
    root: Path,
) -> None:
    from clitools import artifact_body

    _project(root)
    walk_to(root, "2.1")
    (root / ".agents" / "config.json").write_text(
        json.dumps(
            {"stages": {"FINAL": {"git": {"excludePatterns": [".agents/**", "docs/plans/**"]}}}}
        )
    )
    load(root, [{"id": "a", "title": "edit a", "files": ["mod.py"]}])
    where = Path(cli_json(root, "task", "start", "a")["worktree"])
    _edit(where, 3, "LINE_3 = 'a'")
    assert run_cli(root, "task", "done", "a", "--summary", "a").returncode == 0
    action = _to_phase(root, "2.2")
    intg = root / ".agents" / "worktrees" / "_integration"
    (intg / "docs" / "plans").mkdir(parents=True)
    (intg / "docs" / "plans" / "plan.md").write_text("# the plan\n")
    _edit(intg, 9, "LINE_9 = 'simpler'")
    git(intg, "add", "-A")
    git(intg, "commit", "-qm", "simplify, with the plan")
    body = artifact_body(action["write"])
    done = run_cli(root, "phase", "complete", "2.2", "--artifact", "-", stdin=body)
    assert done.returncode == 0, done.stderr
    assert "left out of the commit (generated, credential or excluded): docs/plans/plan.md" in (
        done.stdout
    )
    assert _files(root, integration(root)) == ["mod.py"]
    assert "LINE_9 = 'simpler'" in git(root, "show", f"{integration(root)}:mod.py")
    assert (intg / "docs" / "plans" / "plan.md").exists()


def test_the_users_uncommitted_plans_stay_out_of_the_integration_branch(root: Path) -> None:
    """The engine's own commit of the user's uncommitted changes (the integration branch's base)
    follows the rule too; the user's index and files are left as they were."""
    _project(root)
    (root / "docs" / "plans").mkdir(parents=True)
    (root / "docs" / "plans" / "plan.md").write_text("# plan v1\n")
    git(root, "add", "docs")
    git(root, "commit", "-qm", "plans")
    walk_to(root, "2.1")
    (root / ".agents" / "config.json").write_text(
        json.dumps(
            {"stages": {"FINAL": {"git": {"excludePatterns": [".agents/**", "docs/plans/**"]}}}}
        )
    )
    (root / "docs" / "plans" / "plan.md").write_text("# plan v2, the user's draft\n")
    _edit(root, 4, "LINE_4 = 'the user'")
    before = git(root, "status", "--porcelain")
    out = load(root, [{"id": "a", "title": "edit a", "files": ["mod.py"]}])
    assert "plus a commit of your uncommitted changes" in out["message"]
    base = state(root)["git"]["base"]
    assert git(root, "show", f"{base}:docs/plans/plan.md") == "# plan v1"
    assert "LINE_4 = 'the user'" in git(root, "show", f"{base}:mod.py")
    assert git(root, "status", "--porcelain") == before
    assert (root / "docs" / "plans" / "plan.md").read_text() == "# plan v2, the user's draft\n"
