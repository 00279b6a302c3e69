"""Issue 15 acceptance: a literal-minded model drives the INSTALLED CLI only through ``next``.

Walk 1: the test command fails, 3.2 fixes it, 3.1 runs again and passes, the workflow finishes.
Walk 2: the tests keep failing: the walk ends in the ask-the-user step, never ``completed``.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from clitools import cli_json, run_cli

TASKS = {
    "tasks": [
        {"id": "t1", "title": "route"},
        {"id": "t2", "title": "tests", "dependencies": ["t1"]},
    ]
}


def _config(root: Path, test_cmd: str) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps(
            {
                "stages": {"TEST": {"commands": {"lint": "true", "test": test_cmd}}},
                "retries": {"maxPerPhase": 2},
            }
        )
    )


def _act(root: Path, a: dict[str, Any]) -> None:
    """Do exactly what the action says: write its artifact, run its command."""
    cmd = a["command"]
    if a.get("tasks"):
        for t in a["tasks"]:
            assert run_cli(root, "task", "start", t["id"]).returncode == 0
            proc = run_cli(root, "task", "done", t["id"], "--summary", f"did {t['title']}")
            assert proc.returncode == 0, proc.stderr
        return
    if a.get("write") and not cmd.startswith("agents-state phase run"):
        path = root / a["write"]
        if cmd.startswith("agents-state tasks load"):
            path.write_text(json.dumps(TASKS))
        elif path.suffix == ".json":
            path.write_text('{"issues": []}')
        else:
            path.write_text(f"# {a['phaseName']}\n")
    if a["phase"] == "3.2":
        (root / "fixed").write_text("fix\n")  # what the analysis phase changes in the project
    proc = run_cli(root, *shlex.split(cmd)[1:])
    assert proc.returncode == 0, (cmd, proc.stderr)


def _walk(root: Path, limit: int = 80) -> tuple[list[str], dict[str, Any]]:
    trail: list[str] = []
    for _ in range(limit):
        a = cli_json(root, "next")
        if a["kind"] in ("done", "ask_user", "blocked"):
            return trail, a
        trail.append(f"{a['phase']}:{a['kind']}")
        _act(root, a)
    raise AssertionError(trail)


@pytest.mark.slow
def test_literal_walks_through_the_installed_cli(tmp_path: Path) -> None:
    fixed = tmp_path / "fixed-walk"
    fixed.mkdir()
    _config(fixed, "test -f fixed || { echo 'FAILED test_login'; exit 1; }")
    assert run_cli(fixed, "dispatch", "Add a health endpoint").returncode == 0
    trail, last = _walk(fixed)
    runs = [s for s in trail if s.startswith(("3.1", "3.2")) and not s.endswith("compact")]
    assert runs == ["3.1:run_commands", "3.2:work_inline", "3.1:run_commands"]
    assert last["kind"] == "done"
    assert last["instructions"].endswith("Tests: passed.")
    assert json.loads((fixed / ".agents/state.json").read_text())["status"] == "completed"

    broken = tmp_path / "broken-walk"
    broken.mkdir()
    _config(broken, "echo 'FAILED test_login'; exit 1")
    assert run_cli(broken, "dispatch", "Add a health endpoint").returncode == 0
    trail, last = _walk(broken)
    runs = [s for s in trail if s.startswith(("3.1", "3.2")) and not s.endswith("compact")]
    assert runs == ["3.1:run_commands", "3.2:work_inline"] * 2 + ["3.1:run_commands"]
    assert last["kind"] == "ask_user"
    assert [o["command"] for o in last["options"]] == [
        "agents-state resume --retry",
        "agents-state resume --skip",
        "agents-state resume --abort",
    ]
    state = json.loads((broken / ".agents/state.json").read_text())
    assert state["status"] == "blocked" and state["status"] != "completed"
    results = json.loads((broken / ".agents/phases/3.1-test-results.json").read_text())
    assert results["failed"] == ["test"]
    assert results["commands"][1]["outputTail"] == "FAILED test_login"
    status = run_cli(broken, "status")
    assert "BLOCKED: tests still fail after 2 fix round(s)" in status.stdout
