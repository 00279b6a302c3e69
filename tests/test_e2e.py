"""Issue 2: drive the installed console script from dispatch to completed, following only
``next --json``, and check the files on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clitools import artifact_body, cli_json, run_cli

TASKS = {
    "tasks": [
        {"id": "t1", "title": "model", "complexity": "easy", "dependencies": []},
        {"id": "t2", "title": "api", "complexity": "medium", "dependencies": ["t1"]},
        {"id": "t3", "title": "ui", "complexity": "hard", "dependencies": ["t1"]},
    ]
}


def _do(root: Path, action: dict[str, Any]) -> None:
    """Carry out one action as a literal-minded orchestrator would."""
    cmd = action["command"]
    if action["kind"] == "dispatch_agents" and action.get("tasks"):
        for t in action["tasks"]:
            assert run_cli(root, "task", "start", t["id"]).returncode == 0
            proc = run_cli(root, "task", "done", t["id"], "--summary", f"did {t['id']}")
            assert proc.returncode == 0, proc.stderr
        return
    if action.get("write"):
        out = root / action["write"]
        out.parent.mkdir(parents=True, exist_ok=True)
        if cmd.startswith("agents-state tasks load"):
            out.write_text(json.dumps(TASKS))
        else:
            out.write_text(artifact_body(action["write"]))
    args = cmd.split()[1:]
    proc = run_cli(root, *args)
    assert proc.returncode == 0, (cmd, proc.stderr)


def test_walk_every_phase_by_following_next(root: Path) -> None:
    proc = run_cli(root, "dispatch", "Add a health endpoint")
    assert proc.returncode == 0, proc.stderr
    assert "NEXT: dispatch" in proc.stdout
    seen_phases, kinds = [], set()
    for _ in range(60):
        action = cli_json(root, "next")
        kinds.add(action["kind"])
        if action["kind"] == "done":
            break
        if action["phase"] and action["phase"] not in seen_phases:
            seen_phases.append(action["phase"])
        _do(root, action)
    else:
        raise AssertionError("workflow did not finish")
    # the tests pass at once: 3.2 (analyse failures) is skipped (issue 15)
    assert seen_phases == [
        "0",
        "1.1",
        "1.2",
        "1.3",
        "2.1",
        "2.2",
        "2.3",
        "3.1",
        "3.3",
        "4.1",
        "4.2",
        "4.3",
    ]
    assert {"dispatch_agents", "work_inline", "review", "run_commands", "compact"} <= kinds
    state = json.loads((root / ".agents/state.json").read_text())
    assert state["status"] == "completed"
    assert all(s["status"] == "completed" for s in state["stages"].values())
    assert state["compaction"]["history"] == ["EXPLORE", "PLAN", "IMPLEMENT", "TEST"]
    tasks = state["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert [w["tasks"] for w in tasks["waves"]] == [["t1"], ["t2", "t3"]]
    assert all(w["status"] == "completed" for w in tasks["waves"])
    phases = sorted(p.name for p in (root / ".agents/phases").iterdir())
    # 12 phase artifacts (3.2 skipped), the task summary and one output file per stage
    assert [p for p in phases if "output" in p] == [
        f"{s}-output.md" for s in sorted(["EXPLORE", "PLAN", "IMPLEMENT", "TEST", "FINAL"])
    ]
    assert len(phases) == 12 + 1 + 5 and "2.1-summary.md" in phases
    assert (
        "Tests: passed (the model's report, no TEST commands)."
        in cli_json(root, "next")["instructions"]
    )
    events = (root / ".agents/events.jsonl").read_text().splitlines()
    assert len(events) == state["revision"]
    assert [json.loads(e)["rev"] for e in events] == list(range(1, state["revision"] + 1))
    status = run_cli(root, "status")
    assert status.returncode == 0 and "status: completed" in status.stdout


def test_dispatch_refuses_while_active_and_replaces_on_request(root: Path) -> None:
    assert run_cli(root, "dispatch", "first").returncode == 0
    proc = run_cli(root, "dispatch", "second")
    assert proc.returncode == 4
    assert proc.stderr == (
        "agents-state: error: workflow is active (in_progress, phase 0): cannot start another "
        "(task: 'first'; continue it with: agents-state next, or archive it and start anew "
        'with: agents-state dispatch --replace "<task>")\n'
    )
    proc = run_cli(root, "dispatch", "--replace", "second")
    assert proc.returncode == 0
    assert "previous one archived to .agents/archive/" in proc.stdout
    assert cli_json(root, "status")["workflow"]["task"] == "second"
    assert cli_json(root, "status")["workflow"]["revision"] == 2


def test_task_from_stdin_is_taken_literally(root: Path) -> None:
    proc = run_cli(root, "dispatch", "--task-file", "-", stdin="fix login; rm -rf ~\n")
    assert proc.returncode == 0, proc.stderr
    assert cli_json(root, "status")["workflow"]["task"] == "fix login; rm -rf ~"


def test_no_workflow_is_a_normal_answer(root: Path) -> None:
    for cmd in (["status"], ["next"], ["dispatch"], ["context"]):
        proc = run_cli(root, *cmd)
        assert proc.returncode == 0, cmd
    assert run_cli(root, "status").stdout == (
        'No active workflow. Start one: agents-state dispatch "<task>"\n'
    )
    assert cli_json(root, "next")["kind"] == "start"
    assert not (root / ".agents").exists()


def test_dry_run_writes_nothing(root: Path) -> None:
    before = sorted(p.name for p in root.iterdir())
    proc = run_cli(root, "dispatch", "--dry-run", "Refactor the auth module")
    assert proc.returncode == 0
    assert "DRY RUN" in proc.stdout and "4.3" in proc.stdout
    plan = cli_json(root, "dispatch", "--dry-run", "Refactor the auth module")
    assert [s["stage"] for s in plan["stages"]] == ["EXPLORE", "PLAN", "IMPLEMENT", "TEST", "FINAL"]
    assert sorted(p.name for p in root.iterdir()) == before
