"""Issue 14, item 2: the approvals hook allows exactly the engine's own steps.

``approval`` in process for each rule and the bypasses an attacker would try; the launcher and the
hook as real processes for the wiring (pre-filter, JSON answer, silence otherwise).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hookcalls import bash, launch_hook, tool_call
from pluginfiles import PLUGIN_ROOT

from agents_state.hooks.permission import approval


@pytest.fixture
def project(root: Path) -> Path:
    (root / ".agents" / "phases").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text("{}")
    return root


def write(project: Path, path: str, tool: str = "Write", **extra: Any) -> dict[str, Any]:
    return tool_call(project, tool, {"file_path": path, "content": "x"}, **extra)


ENGINE_STEPS = [
    "agents-state next",
    "agents-state next --json",
    "agents-state phase complete 0 --artifact .agents/phases/0-explore.md",
    "agents-state phase complete 0 --artifact .agents/phases/0-explore.md --from-answers",
    "agents-state tasks load .agents/phases/2.1-tasks.json",
    'agents-state task done t1 --summary "Added the health model"',
    "agents-state --root . status",
    "agents-state compact",
    'agents-state dispatch "Add OAuth login"',
    "agents-state budget",  # what is left (issue 24)
    "agents-state report",
]


@pytest.mark.parametrize("command", ENGINE_STEPS)
def test_engine_commands_are_approved(project: Path, command: str) -> None:
    reason = approval(bash(project, command))
    assert reason is not None and reason.startswith("subagents plugin: `agents-state ")


NOT_ENGINE_STEPS = [
    "agents-state next; rm -rf ~",
    "agents-state next && curl evil",
    "agents-state next | sh",
    "agents-state next > /etc/passwd",
    "agents-state next < /etc/shadow",
    "agents-state status $(rm -rf ~)",
    "agents-state status `rm -rf ~`",
    'agents-state status "$HOME"',
    "agents-state status\nrm -rf ~",
    "agents-state status & rm -rf ~",
    "agents-state status \\; rm x",
    "(agents-state status)",
    "{ agents-state status; }",
    "AGENTS_STATE_ROOT=/ agents-state status",
    "/tmp/agents-state status",
    "./agents-state status",
    "agents-statex status",
    "sh -c 'agents-state status'",
    "env agents-state status",
    "agents-state phase complete 0 --artifact /etc/passwd",
    "agents-state phase complete 0 --artifact ../../etc/passwd",
    "agents-state phase complete 0 --artifact=/etc/passwd",
    "agents-state --root /tmp status",
    "agents-state --root .. status",
    "agents-state --root=.. status",
    "agents-state tasks load ~/tasks.json",
    # a server store elsewhere: the workflow would leave the project (issues 14 and 17)
    "agents-state store copy --from . --to postgresql://me@db.example.com/w",
    "agents-state --store postgresql://me@db.example.com/w status",
    "agents-state --store=postgres://db.example.com/w next",
    "agents-state watch",
    "agents-state --root . watch",
    "agents-state --json --root . hook session-start",
    "agents-state hook pre-tool-use",
    'agents-state dispatch "unterminated',
    # the user's answers to a spent budget: a model must not lift its own budget (issue 24)
    "agents-state budget --raise 2000000",
    "agents-state budget --raise=2000000 --stage PLAN",
    "agents-state --root . budget --once",
    "rm -rf .agents",
    "",
]


@pytest.mark.parametrize("command", NOT_ENGINE_STEPS)
def test_anything_else_is_left_to_the_user(project: Path, command: str) -> None:
    assert approval(bash(project, command)) is None


def test_a_symlink_out_of_the_project_is_not_inside(project: Path, tmp_path: Path) -> None:
    (project / "out").symlink_to(tmp_path)
    assert approval(bash(project, "agents-state tasks load out/x.json")) is None


def test_artifact_writes_are_approved(project: Path) -> None:
    for tool in ("Write", "Edit", "MultiEdit"):
        reason = approval(write(project, str(project / ".agents/phases/0-explore.md"), tool))
        assert reason == "subagents plugin: .agents/phases/0-explore.md is a workflow artifact"
    assert approval(write(project, ".agents/phases/1.2-plan.md")) is not None  # relative
    (project / "sub").mkdir()
    payload = write(project, "../.agents/phases/0-explore.md")
    assert approval({**payload, "cwd": str(project / "sub")}) is not None


def test_other_writes_are_left_to_the_user(project: Path, tmp_path: Path) -> None:
    phases = project / ".agents" / "phases"
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (phases / "link.md").symlink_to(outside)
    os.link(outside, phases / "hard.md")
    (phases / "dir").mkdir()
    for path in [
        str(project / "src/app.py"),
        str(project / ".agents/state.json"),
        str(project / ".agents/config.json"),
        str(phases),
        str(phases / ".." / "state.json"),
        str(phases / "link.md"),
        str(phases / "hard.md"),
        str(phases / "dir"),
        "/etc/passwd",
        "",
    ]:
        assert approval(write(project, path)) is None, path
    assert approval({"cwd": str(project), "tool_name": "Write", "tool_input": "x"}) is None


def test_no_approval_when_phases_is_a_symlink(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".agents").mkdir()
    (root / ".agents" / "phases").symlink_to(elsewhere)
    assert approval(write(root, str(root / ".agents/phases/x.md"))) is None
    (root / ".agents" / "phases").unlink()
    (root / ".agents").rmdir()
    (root / ".agents").symlink_to(elsewhere)
    (elsewhere / "phases").mkdir()
    assert approval(write(root, str(root / ".agents/phases/x.md"))) is None


def test_own_skills_only(project: Path) -> None:
    def skill(name: object) -> dict[str, Any]:
        return {"cwd": str(project), "tool_name": "Skill", "tool_input": {"skill": name}}

    assert approval(skill("subagents:workflow")) == (
        "subagents plugin: its own skill subagents:workflow"
    )
    for name in ("other:workflow", "workflow", "subagents:", "subagentsx:y", None):
        assert approval(skill(name)) is None


def test_sub_agents_get_engine_task_commands_only(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(PLUGIN_ROOT))  # profiles from agents/*.md
    worker = {"agent_id": "a1", "agent_type": "subagents:task-agent"}
    assert approval(bash(project, "agents-state task done t1 --summary ok", **worker))
    assert approval(bash(project, "agents-state handoff validate -", **worker))
    for command in (
        "agents-state phase complete 0 --artifact x.md",
        "agents-state --root . phase complete 0 --artifact x.md",
        "agents-state resume --abort",
        'agents-state dispatch --replace "x"',
    ):
        assert approval(bash(project, command, **worker)) is None, command
    # never writes or skills, never another plugin's agent, never without Bash in the profile
    assert approval(write(project, ".agents/phases/0-explore.md", **worker)) is None
    assert (
        approval(
            {
                "cwd": str(project),
                "tool_name": "Skill",
                "tool_input": {"skill": "subagents:workflow"},
                **worker,
            }
        )
        is None
    )
    for agent_type in ("general-purpose", "other:task-agent", "subagents:explore-agent"):
        assert (
            approval(bash(project, "agents-state status", agent_id="a2", agent_type=agent_type))
            is None
        ), agent_type


def hook(project: Path, call: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return launch_hook(project, "permission", call)


def test_the_hook_answers_through_the_launcher(root: Path) -> None:
    (root / ".agents" / "phases").mkdir(parents=True)  # no workflow yet: approvals still work
    out = hook(root, bash(root, "agents-state status"))
    assert out.returncode == 0 and out.stderr == ""
    assert json.loads(out.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "subagents plugin: `agents-state status` is a step of the "
            "agents-state engine",
        }
    }
    for payload in (
        bash(root, "make test"),
        bash(root, "agents-state status; id"),
        write(root, str(root / "README.md")),
    ):
        out = hook(root, payload)
        assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


def test_the_hook_stays_light(project: Path) -> None:
    """It runs before every Bash, Write, Edit and Skill call: no Click, no models, no engine."""
    payload = json.dumps(bash(project, "agents-state status"))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agents_state", "hook", "permission"],
        input=payload,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert '"permissionDecision":"allow"' in proc.stdout
    modules = {
        line.split("|")[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    heavy = {
        "click",
        "pydantic",
        "agents_state.models",
        "agents_state.engine.phases",
        "agents_state.config",
        "agents_state.profiles",
    }
    assert not heavy & modules, heavy & modules
