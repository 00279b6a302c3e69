"""Issue 36: a person's gate answer is never approved for a model or an agent, and the first
PreToolUse hook denies it outright (deny beats the commands' ``Bash(agents-state *)`` grant),
naming the command the person runs.  Run as the host runs the hooks: the plugin's launcher with
the payload on stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clitools import run_cli, walk_to
from hookcalls import bash, launch_hook

from agents_state.hooks.permission import approval

ANSWERS = [
    "agents-state gate approve 1.1 --by NAME",
    'agents-state gate reject 1.1 --by claude --note "looks fine"',
    "agents-state --root . gate approve 1.1 --by me",
    "agents-state --json gate approve 1.1 --by me",
    "bash -c 'agents-state gate approve 1.1 --by me'",
    "python -m agents_state gate approve 1.1 --by me",
]
AGENT = {"agent_id": "a1", "agent_type": "subagents:task-agent"}


@pytest.fixture
def project(root: Path) -> Path:
    walk_to(root, "1.1")
    (root / ".agents" / "config.json").write_text(json.dumps({"gates": ["1.1"]}))
    assert run_cli(root, "phase", "complete", "1.1", "--artifact", "-", stdin="x").returncode == 0
    return root


@pytest.mark.parametrize("command", ANSWERS)
def test_no_conversation_or_agent_gets_a_gate_answer_approved(project: Path, command: str) -> None:
    assert approval(bash(project, command)) is None
    assert approval(bash(project, command, **AGENT)) is None


@pytest.mark.parametrize("who", ["main", "agent"])
@pytest.mark.parametrize("command", ANSWERS)
def test_the_first_hook_denies_a_gate_answer_and_names_the_persons_command(
    project: Path, command: str, who: str
) -> None:
    before = (project / ".agents" / "state.json").read_bytes()
    out = launch_hook(
        project, "pre-tool-use", bash(project, command, **(AGENT if who == "agent" else {}))
    )
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    reason = answer["permissionDecisionReason"]
    assert reason.startswith("agents-state: a gate is a person's decision; no model or agent ")
    assert "run in their own shell: agents-state gate approve 1.1 --by NAME" in reason
    assert 'agents-state gate reject 1.1 --by NAME --note "WHY"' in reason
    assert (project / ".agents" / "state.json").read_bytes() == before
    assert launch_hook(project, "permission", bash(project, command)).stdout == ""


def test_reading_the_gates_stays_allowed(project: Path) -> None:
    for command in ("agents-state gate list", "agents-state next", "agents-state status"):
        out = launch_hook(project, "pre-tool-use", bash(project, command))
        assert (out.returncode, out.stdout) == (0, ""), command


def test_a_gate_answer_is_denied_with_no_workflow_in_the_folder(root: Path) -> None:
    """``--store URL`` reaches a workflow elsewhere: the launcher's no-workflow shortcut must
    still hand a gate answer to the hook."""
    root.mkdir(parents=True, exist_ok=True)
    command = "agents-state --store postgresql://u@h/db?workflow=w gate approve 1.1 --by me"
    out = launch_hook(root, "pre-tool-use", bash(root, command))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
