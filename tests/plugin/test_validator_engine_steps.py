"""Issue 23: the docs say validators get the engine-step approvals, but their profile's Bash
allowlist denied `agents-state`.  Now both hooks agree, checked through the launcher as Claude
Code runs them: a validator may run the engine's read and record steps a sub-agent needs
(task, handoff, status, next, context), nothing else of the engine, and no credential file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookcalls import bash, launch_hook

VALIDATOR = "subagents:quality-validator"


def hook(root: Path, event: str, agent: str, command: str) -> str:
    """``hook <event>``'s decision: allow, deny: <reason>, or "" (no answer)."""
    call = bash(root, command, agent=agent)
    proc = launch_hook(root, event, call, CLAUDE_PROJECT_DIR=str(root))
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    if not proc.stdout.strip():
        return ""
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    decision = out["permissionDecision"]
    return decision if decision == "allow" else f"{decision}: {out['permissionDecisionReason']}"


@pytest.fixture
def project(root: Path) -> Path:
    (root / ".agents" / "phases").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text('{"status": "in_progress"}')
    (root / ".env").write_text("KEY=do-not-leak\n")
    return root


@pytest.mark.parametrize(
    "command",
    [
        'agents-state task done t1 --summary "Checked: all tests pass"',
        "agents-state task fail t1 --error lint",
        "agents-state handoff validate -",
        "agents-state status",
        "agents-state next --json",
        "agents-state context",
    ],
)
def test_a_validator_runs_the_engine_steps_it_needs(project: Path, command: str) -> None:
    assert hook(project, "pre-tool-use", VALIDATOR, command) == ""  # the profile: no deny
    assert hook(project, "permission", VALIDATOR, command) == "allow"  # no prompt either


@pytest.mark.parametrize(
    "command",
    [
        "agents-state phase complete 0",
        "agents-state phase run 3.1",
        "agents-state dispatch --rep''lace x",  # a person's decision, hidden: see the next test
        "agents-state resume --abort",
        "agents-state --store postgresql://db/w status",
    ],
)
def test_nothing_else_of_the_engine(project: Path, command: str) -> None:
    if "--rep''lace" in command:  # issue 32: the person's decision is denied as that, first
        answer = hook(project, "pre-tool-use", VALIDATOR, command)
        assert answer.startswith(
            "deny: agents-state: throwing the active workflow away is a person's decision; no "
            "model or agent makes it (refused: dispatch --replace)."
        )
        assert 'run in their own shell: agents-state dispatch --replace "TASK"' in answer
        return
    words = command.split()
    shown = " ".join(words[:3])
    assert hook(project, "pre-tool-use", VALIDATOR, command) == (
        f"deny: agents-state: the validator profile runs only allowlisted Bash commands (tests, "
        f"linters, builds, git read commands, looking at files); '{shown}' is not on the Bash "
        "allowlist of this profile (allowed: agents-state context, handoff, next, status, "
        "task). Use Read, Grep or Glob, or ask for the command in toolProfiles.validator."
        "bashAllow (~/.claude/subagents-config.json); "
        "if the task needs it, finish with decision CLARIFY."
    )
    assert hook(project, "permission", VALIDATOR, command) == ""


def test_no_credential_through_the_engine(project: Path) -> None:
    got = hook(project, "pre-tool-use", VALIDATOR, "agents-state handoff validate .env")
    assert got.startswith("deny: agents-state: the validator profile may not read or search")
