"""Issue 2: .agents.example/ stays loadable as the schema evolves, and shows wave 2 running."""

from __future__ import annotations

import shutil
from pathlib import Path

from clitools import cli_json, run_cli

EXAMPLE = Path(__file__).parent.parent / ".agents.example"


def test_example_folder_loads_and_shows(root: Path) -> None:
    shutil.copytree(EXAMPLE, root / ".agents")
    status = cli_json(root, "status")["workflow"]
    assert status["currentStage"] == "IMPLEMENT" and status["currentPhase"] == "2.1"
    wave = status["stages"]["IMPLEMENT"]["phases"]["2.1"]["currentWave"]
    assert wave["index"] == 2
    state = status["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert state["waves"] == {"total": 3, "completed": 1, "in_progress": 1, "pending": 1}
    assert state["taskCounts"] == {"completed": 3, "in_progress": 1, "pending": 2}
    verbose = cli_json(root, "status", "--verbose")["workflow"]
    assert [w["status"] for w in verbose["stages"]["IMPLEMENT"]["phases"]["2.1"]["waves"]] == [
        "completed",
        "in_progress",
        "pending",
    ]
    for path in status["files"].values():
        assert (root / path).is_file(), path
    proc = run_cli(root, "status", "--verbose")
    assert proc.returncode == 0 and "wave 2/3" in proc.stdout
    assert cli_json(root, "next")["kind"] in ("dispatch_agents", "wait")
    events = (root / ".agents/events.jsonl").read_text().splitlines()
    assert len(events) == cli_json(root, "status")["workflow"]["revision"]
