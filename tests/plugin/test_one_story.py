"""Issue 14, item 4: the next action, the skills and the agent files tell one story."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pluginfiles import PLUGIN_ROOT

from agents_state.engine.nextaction import agent_tool_model
from agents_state.views.nextaction import COMPACT_STEPS

_EXE = Path(sys.executable).with_name("agents-state")
CMD = [str(_EXE)] if _EXE.exists() else [sys.executable, "-m", "agents_state"]


def skill(name: str) -> str:
    return (PLUGIN_ROOT / "skills" / name / "SKILL.md").read_text()


@pytest.mark.parametrize(
    ("configured", "passed"),
    [
        ("sonnet-4.5", "sonnet"),
        ("sonnet", "sonnet"),
        ("opus-4.5", "opus"),
        ("opus", "opus"),
        ("haiku", "haiku"),
        ("inherit", "inherit"),
        ("claude-sonnet-4-5-20250514", "sonnet"),
        ("claude-3-5-haiku-20241022", "haiku"),
        ("codex-high", None),
        ("codex-xhigh", None),
        ("mcp__reviewer__review", None),  # an MCP tool named as a model
    ],
)
def test_the_agent_tool_gets_a_family_never_a_versioned_id(
    configured: str, passed: str | None
) -> None:
    assert agent_tool_model(configured) == passed


def test_the_next_action_names_the_value_to_pass(root: Path) -> None:
    run = [*CMD, "--root", str(root)]
    subprocess.run([*run, "dispatch", "Add OAuth login"], check=True, capture_output=True)
    action = json.loads(
        subprocess.run([*run, "next", "--json"], check=True, capture_output=True, text=True).stdout
    )
    assert action["agents"]["agentModel"] == "sonnet"
    assert action["agents"]["modelId"].startswith("claude-sonnet-")
    assert 'model "sonnet"' in action["instructions"]
    text = subprocess.run([*run, "next"], check=True, capture_output=True, text=True).stdout
    assert '  model: "sonnet" (Agent tool model; configured sonnet-4.5 = claude-sonnet-' in text


def test_compaction_is_recorded_first_everywhere() -> None:
    assert COMPACT_STEPS.index("agents-state compact") < COMPACT_STEPS.index("/compact (")
    row = next(line for line in skill("workflow").splitlines() if line.startswith("| compact"))
    assert row.index("agents-state compact") < row.index("`/compact`")


def test_the_orchestrator_writes_the_tasks_file_everywhere() -> None:
    text = skill("workflow")
    assert "`.agents/phases/2.1-tasks.json`" in text
    assert "agents-state tasks load .agents/phases/2.1-tasks.json" in text
    assert "tasks-input" not in text and "by hand" not in text


def test_skills_wait_for_background_agents_and_pass_the_agent_model() -> None:
    text = skill("workflow")
    assert "background" in text and "notification" in text
    assert "sonnet-4.5 ->" not in text  # no hand mapping of aliases any more
    assert "never a versioned id" in text


def test_worktree_isolation_is_one_story() -> None:
    """Issue 22: where the agent works, what it commits, what the engine does after."""
    from agents_state.views.nextaction import ISOLATED

    agent = PLUGIN_ROOT / "agents" / "task-agent.md"
    dispatcher = " ".join(skill("workflow").split())  # the phases with agents (issue 34)
    agent_text = agent.read_text()
    for needle in ("agents-state task start <task-id>", "prints the folder to work in"):
        assert needle in ISOLATED
    assert "`agents-state task start <id>` first" in dispatcher
    assert "prints the folder to work in" in dispatcher
    assert "`task done <id>` commits what the agent left uncommitted" in dispatcher
    assert "`agents-state merge --resolve <id>`" in dispatcher
    assert '`stages.IMPLEMENT.tasks.isolation: "none"`' in dispatcher
    assert "If it prints `work in <folder>` (JSON: `worktree`)" in agent_text
    assert "`task done` commits whatever you leave but generated files" in agent_text
    # issue 33: the wave merges after its agents have stopped, in every text that says it
    assert (
        "merges your\n   branch into the workflow's integration branch once the wave's agents"
        in (agent_text)
    )
    assert "once its agents have stopped" in ISOLATED
