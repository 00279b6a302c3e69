"""Issue 27, item 2: a project step the host refused explains itself in the blocked next action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clitools import cli_json, run_cli

from agents_state.store.refusals import refusal_of, rule_for

TASK_AGENT = "subagents:task-agent"
REFUSED = (
    "Claude requested permissions to write to /work/src/app.py, but you haven't granted it yet."
)


@pytest.mark.parametrize(
    ("tool", "tool_input", "rule"),
    [
        ("Edit", {"file_path": "src/app.py"}, "Edit"),
        ("MultiEdit", {"file_path": "src/app.py"}, "Edit"),
        ("Write", {"file_path": "src/app.py"}, "Write"),
        ("Bash", {"command": "make   test"}, "Bash(make test)"),
        ("Bash", {"command": "pytest " + "x" * 100}, "Bash(pytest *)"),
        ("Bash", {}, "Bash"),
        ("WebFetch", {"url": "https://example.org"}, "WebFetch"),
    ],
)
def test_the_rule_that_lets_a_call_run(tool: str, tool_input: dict[str, Any], rule: str) -> None:
    assert rule_for(tool, tool_input) == rule


def test_only_refusals_are_kept() -> None:
    failed = {"tool_name": "Bash", "tool_input": {"command": "make test"}, "error": "Exit code 2"}
    assert refusal_of(failed, "2026-01-01T00:00:00Z") is None
    refused = {
        "tool_name": "Write",
        "tool_input": {"file_path": "/work/src/app.py"},
        "error": REFUSED,
        "agent_id": "a7",
        "agent_type": "subagents:task-agent",
    }
    assert refusal_of(refused, "2026-01-01T00:00:00Z") == {
        "agent": "a7",
        "agentType": "subagents:task-agent",
        "tool": "Write",
        "target": "/work/src/app.py",
        "rule": "Write",
        "error": REFUSED,
        "at": "2026-01-01T00:00:00Z",
    }


def _failure(root: Path, **payload: Any) -> None:
    data = {"hook_event_name": "PostToolUseFailure", "cwd": str(root), "session_id": "s", **payload}
    proc = run_cli(root, "hook", "post-tool-use-failure", stdin=json.dumps(data))
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr


def _block(root: Path) -> None:
    stop = {
        "task_id": "explore-1",
        "phase": "research",
        "status": "blocked",
        "decision": "STOP",
        "reason": REFUSED,
        "context_summary": "The write was refused.",
    }
    proc = run_cli(root, "handoff", "record", "-", "--phase", "0", stdin=json.dumps(stop))
    assert proc.returncode == 0, proc.stderr


def test_a_blocked_workflow_names_the_refusal_and_the_rule(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    _failure(  # a task agent's write, refused headless; then a test command of another agent
        root,
        tool_name="Write",
        tool_input={"file_path": "src/app.py", "content": "x"},
        error=REFUSED,
        agent_id="a1",
        agent_type="subagents:task-agent",
    )
    _failure(root, tool_name="Read", tool_input={"file_path": "x"}, error="File does not exist.")
    assert json.loads((root / ".agents" / "refusals.json").read_text())["a1"]["rule"] == "Write"
    _block(root)
    a = cli_json(root, "next")
    assert a["kind"] == "ask_user"
    said = (
        "Claude Code refused Write src/app.py to subagents:task-agent (agent a1). To let an "
        'unattended run (claude -p) go on, add "Write" to permissions.allow in '
        ".claude/settings.json (docs/plugin.md, Unattended runs), then retry the step."
    )
    assert a["reason"] == f"research explore-1 said STOP: {REFUSED} {said}"
    assert a["instructions"].endswith(said)
    assert a["refusal"]["agent"] == "a1" and a["refusal"]["tool"] == "Write"


def test_a_block_without_a_refusal_is_worded_as_before(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    _failure(root, tool_name="Bash", tool_input={"command": "make"}, error="Exit code 2")
    _block(root)
    a = cli_json(root, "next")
    assert a["kind"] == "ask_user" and "refusal" not in a
    assert a["reason"] == f"research explore-1 said STOP: {REFUSED}"


def _asked(root: Path, **payload: Any) -> None:
    data = {"hook_event_name": "PermissionRequest", "cwd": str(root), "session_id": "s", **payload}
    proc = run_cli(root, "hook", "permission-request", stdin=json.dumps(data))
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr


def test_a_permission_request_headless_is_the_refusal(root: Path) -> None:
    """Headless, the host refuses what it would ask, and PostToolUseFailure does not fire."""
    assert run_cli(root, "dispatch", "x").returncode == 0
    command = {"command": "make test"}
    _asked(root, tool_name="Bash", tool_input=command, agent_id="a2", agent_type=TASK_AGENT)
    assert not (root / ".agents" / "toolcalls.log").exists()  # asked, not yet a call
    _block(root)
    a = cli_json(root, "next")
    assert 'add "Bash(make test)" to permissions.allow' in a["reason"]
    assert "Claude Code refused Bash make test to subagents:task-agent (agent a2)." in a["reason"]


def test_a_request_a_person_approved_is_forgotten(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    write = {"file_path": "src/app.py", "content": "x"}
    _asked(root, tool_name="Write", tool_input=write, agent_id="a3", agent_type=TASK_AGENT)
    data = {"cwd": str(root), "tool_name": "Write", "tool_input": write, "agent_id": "a3"}
    assert run_cli(root, "hook", "post-tool-use", stdin=json.dumps(data)).returncode == 0
    assert json.loads((root / ".agents" / "refusals.json").read_text()) == {}
    _block(root)
    assert "refusal" not in cli_json(root, "next")
