"""Design 004's example state round-trips; bad state files get exact one-line errors and are
left byte-identical (issue 2)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from clitools import DATA, cli_json, run_cli

from agents_state.store.codec import decode_state, encode_state


def _subset(orig: Any, new: Any, path: str = "") -> None:
    """Every field of ``orig`` is in ``new`` with the same value."""
    if isinstance(orig, dict):
        assert isinstance(new, dict), path
        for k, v in orig.items():
            assert k in new, f"lost field {path}.{k}"
            _subset(v, new[k], f"{path}.{k}")
    else:
        assert orig == new, f"{path}: {orig!r} != {new!r}"


def test_design_004_example_round_trips() -> None:
    raw = (DATA / "design004_state.json").read_bytes()
    state = decode_state(raw, "state.json")
    out = json.loads(encode_state(state, "state.json"))
    _subset(json.loads(raw), out)
    again = encode_state(decode_state(encode_state(state, "x"), "x"), "x")
    assert json.loads(again) == out


def test_design_004_example_shows_in_status(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/state.json").write_bytes((DATA / "design004_state.json").read_bytes())
    proc = run_cli(root, "status")
    assert proc.returncode == 0, proc.stderr
    assert "Workflow: Add OAuth authentication with Google and GitHub" in proc.stdout
    assert "▶ 2.1  Parallel Task Execution" in proc.stdout
    data = cli_json(root, "status")
    assert data["workflow"]["currentPhase"] == "2.1"
    assert data["workflow"]["compaction"] == {
        "lastCompactedAt": "PLAN",
        "history": ["EXPLORE", "PLAN"],
        "skipped": [],  # boundaries passed without a compaction (issue 27)
    }


def test_design_004_failure_object_loads() -> None:
    doc = json.loads((DATA / "design004_state.json").read_text())
    doc.update(json.loads((DATA / "design004_failure.json").read_text()))
    state = decode_state(json.dumps(doc).encode(), "s")
    assert state.failure is not None and state.failure.context is not None
    assert state.failure.context.failedTask == "task-3"


def test_lenient_read_of_drifted_files() -> None:
    doc = {
        "version": "2",
        "task": "t",
        "status": "In Progress",
        "currentPhase": 1.2,
        "files": [],
        "failure": "agent crashed",
        "stopRequested": "true",
        "stages": {"PLAN": {"status": "in_progress", "phases": {"1.3": {"issues": [{}, {}]}}}},
    }
    state = decode_state(json.dumps(doc).encode(), "s")
    assert state.status == "in_progress" and state.currentPhase == "1.2"
    assert state.currentStage == "PLAN" and state.files == {}
    assert state.failure is not None and state.failure.error == "agent crashed"
    assert state.stopRequested is True and state.phase("1.3").issues == 2
    assert set(state.stages) == {"EXPLORE", "PLAN", "IMPLEMENT", "TEST", "FINAL"}


BAD_STATES = [
    (
        "empty",
        b"",
        "agents-state: error: .agents/state.json: is empty (a write was "
        "interrupted?); run: agents-state doctor --repair\n",
    ),
    (
        "truncated",
        b'{"version": 2, "task": "x", "sta',
        "agents-state: error: .agents/state.json: not valid JSON (unexpected end of data: line 1 "
        "column 33 (char 32)); run: agents-state doctor\n",
    ),
    (
        "not an object",
        b"[1, 2]",
        "agents-state: error: .agents/state.json: expected a JSON object, got list\n",
    ),
    (
        "wrong type",
        b'{"version": 2, "task": "x", "revision": "many"}',
        "agents-state: error: .agents/state.json: revision: Input should be a valid integer, "
        "unable to parse string as an integer (got 'many')\n",
    ),
    (
        "bad status",
        b'{"version": 2, "task": "x", "stages": {"PLAN": {"status": "weird"}}}',
        "agents-state: error: .agents/state.json: stages.PLAN.status: Input should be 'pending', "
        "'in_progress', 'completed', 'failed', 'blocked', 'stopped' or 'skipped' (got 'weird')\n",
    ),
    (
        "missing task",
        b'{"version": 2}',
        "agents-state: error: .agents/state.json: task: Field required\n",
    ),
    (
        "future version",
        b'{"version": 3, "task": "x"}',
        "agents-state: error: .agents/state.json: version: 3 is not understood; this "
        "agents-state reads versions 1, 2 (upgrade agents-state for newer files)\n",
    ),
    (
        "version 1",
        b'{"version": 1, "task": "x"}',
        "agents-state: error: .agents/state.json: version: is 1 (the original plugin's layout); "
        "run: agents-state migrate\n",
    ),
    (
        "unknown phase",
        b'{"version": 2, "task": "x", "currentPhase": "9.9"}',
        "agents-state: error: .agents/state.json: currentPhase: '9.9' is not a phase; phases are "
        "0, 1.1, 1.2, 1.3, 2.1, 2.2, 2.3, 3.1, 3.2, 3.3, 4.1, 4.2, 4.3\n",
    ),
    (
        "unknown stage",
        b'{"version": 2, "task": "x", "stages": {"DEPLOY": {}}}',
        "agents-state: error: .agents/state.json: stages.DEPLOY: unknown stage; stages are "
        "EXPLORE, PLAN, IMPLEMENT, TEST, FINAL\n",
    ),
    (
        "phase in wrong stage",
        b'{"version": 2, "task": "x", "stages": {"PLAN": {"phases": {"2.1": {}}}}}',
        "agents-state: error: .agents/state.json: stages.PLAN.phases.2.1: not "
        "a phase of PLAN; its phases are 1.1, 1.2, 1.3\n",
    ),
]


@pytest.mark.parametrize("name,data,message", BAD_STATES, ids=[b[0] for b in BAD_STATES])
@pytest.mark.parametrize(
    "command",
    [["status"], ["next"], ["phase", "complete", "0"], ["dispatch", "other"], ["task", "claim"]],
)
def test_bad_state_gives_one_line_and_changes_nothing(
    root: Path, name: str, data: bytes, message: str, command: list[str]
) -> None:
    (root / ".agents").mkdir()
    path = root / ".agents/state.json"
    path.write_bytes(data)
    before = os.stat(path).st_mtime_ns
    proc = run_cli(root, *command)
    assert proc.returncode == 5, proc.stderr
    assert proc.stderr == message
    assert "Traceback" not in proc.stderr + proc.stdout
    assert path.read_bytes() == data and os.stat(path).st_mtime_ns == before


def test_unknown_phase_id_is_refused_everywhere(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    before = (root / ".agents/state.json").read_bytes()
    for cmd in (
        ["phase", "complete", "9"],
        ["phase", "start", "../x"],
        ["phase", "fail", "5.1", "--error", "e"],
    ):
        proc = run_cli(root, *cmd)
        assert proc.returncode == 3, cmd
        assert proc.stderr.startswith(
            f"agents-state: error: unknown phase '{cmd[2]}'; phases are 0, 1.1, 1.2"
        )
    assert (root / ".agents/state.json").read_bytes() == before


def test_json_errors_are_json_on_stderr(root: Path) -> None:
    proc = run_cli(root, "phase", "complete", "0", "--json")
    assert proc.returncode == 3 and proc.stdout == ""
    assert json.loads(proc.stderr) == {
        "error": {
            "code": "not_found",
            "exit": 3,
            "message": "no workflow in this directory; start one with: agents-state dispatch "
            '"<task>"',
        }
    }


def test_state_symlink_out_of_tree_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "state.json").write_text('{"version": 2, "task": "x"}')
    (root / ".agents").mkdir()
    (root / ".agents/state.json").symlink_to(outside / "state.json")
    proc = run_cli(root, "status")
    assert proc.returncode == 5
    assert proc.stderr == (
        "agents-state: error: .agents/state.json: is a symbolic link, not a "
        "regular file; agents-state does not follow links or open special "
        "files in .agents/ (replace it with a regular file)\n"
    )


def test_agents_dir_symlink_out_of_tree_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / ".agents").symlink_to(outside)
    proc = run_cli(root, "dispatch", "x")
    assert proc.returncode == 5
    assert proc.stderr == (
        f"agents-state: error: .agents: resolves outside the project "
        f"({outside}); a symbolic link out of the tree is refused\n"
    )
    assert list(outside.iterdir()) == []


def test_agents_dir_in_a_symlink_loop_is_refused_in_one_line(root: Path) -> None:
    """A ``.agents`` that is a link to itself: one line, exit 5 (it was an internal error when
    the check went through ``pathlib``'s RuntimeError)."""
    (root / ".agents").symlink_to(root / ".agents")
    for args, shown in ((("status",), ".agents/state.json"), (("dispatch", "x"), ".agents")):
        proc = run_cli(root, *args)
        assert (proc.returncode, proc.stdout) == (5, ""), args
        assert proc.stderr == (
            f"agents-state: error: {shown}: cannot be resolved: Too many levels of symbolic links\n"
        )


def test_task_result_name_cannot_escape(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    (root / "r.md").write_text("x")
    proc = run_cli(root, "task", "done", "../../etc", "--result", str(root / "r.md"))
    assert proc.returncode == 5
    assert proc.stderr == (
        "agents-state: error: task id: name: '../../etc' is not allowed; use "
        "letters, digits, '.', '_' and '-' only (no '/', '..' or absolute "
        "paths)\n"
    )
