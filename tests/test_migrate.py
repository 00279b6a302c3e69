"""Issue 2: migrate version 1 and the .agents/tmp/ layout; refuse unknown versions."""

from __future__ import annotations

import json
from pathlib import Path

from clitools import cli_json, run_cli

V1 = {
    "task": "Add search",
    "currentStage": "IMPLEMENT",
    "currentPhase": "2.2",
    "planFilePath": "docs/plans/search.md",
    "stages": {
        "PLAN": {"status": "completed"},
        "IMPLEMENT": {"status": "in_progress"},
        "TEST": {"status": "pending", "enabled": False},
        "FINAL": {"status": "pending"},
    },
}


def test_migrate_version_1(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/subagents-state.json").write_text(json.dumps(V1))
    dry = run_cli(root, "migrate", "--dry-run")
    assert dry.returncode == 0 and dry.stdout.startswith("would migrate")
    assert not (root / ".agents/state.json").exists()
    proc = run_cli(root, "migrate")
    assert proc.returncode == 0, proc.stderr
    state = cli_json(root, "status")["workflow"]
    assert state["task"] == "Add search" and state["currentPhase"] == "2.2"
    phases = state["stages"]["IMPLEMENT"]["phases"]
    assert phases["2.1"]["status"] == "completed" and phases["2.2"]["status"] == "pending"
    assert state["stages"]["EXPLORE"]["status"] == "skipped"
    assert state["stages"]["TEST"]["status"] == "skipped"
    assert state["files"]["plan"] == "docs/plans/search.md"
    assert (root / ".agents/subagents-state.json.migrated").exists()


def test_migrate_tmp_layout(root: Path) -> None:
    tmp = root / ".agents/tmp"
    (tmp / "phases").mkdir(parents=True)
    (tmp / "phases/0-explore.md").write_text("# found\n")
    (tmp / "state.json").write_text(
        json.dumps({"version": 2, "task": "x", "status": "in_progress", "currentPhase": "1.1"})
    )
    proc = run_cli(root, "migrate")
    assert proc.returncode == 0, proc.stderr
    assert (root / ".agents/phases/0-explore.md").read_text() == "# found\n"
    assert cli_json(root, "next")["phase"] == "1.1"


def test_migrate_refuses_unknown_version(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/subagents-state.json").write_text('{"version": 7, "task": "x"}')
    proc = run_cli(root, "migrate")
    assert proc.returncode == 5
    assert proc.stderr == (
        "agents-state: error: .agents/subagents-state.json: version: 7 is "
        "not a version 1 file; migrate understands versions 1 "
        "(subagents-state.json) and the .agents/tmp/ layout\n"
    )
    assert not (root / ".agents/state.json").exists()
