"""Issue 27, item 4: every next action can be carried out as printed, whatever is installed.

A Codex review without Codex installed names the agent and model to use (issue 37: with Codex,
``agents-state review run``, tests/plugin/test_codex_review_e2e.py); a hard task runs as a task
agent; ``phase run`` writes its own results; 1.1's command carries ``--plan-agents``; an
agent that does a phase hands back, the orchestrator writes; a claim whose driver died says how
to take the task back.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from contract.helpers import js, sh, walk_to


def _config(root: Path, cfg: dict[str, Any]) -> None:
    (root / ".agents").mkdir(parents=True, exist_ok=True)
    (root / ".agents/config.json").write_text(json.dumps(cfg))


def test_a_codex_review_names_the_agent_and_model_to_use_without_the_tool(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTS_STATE_CODEX", str(root / "no-codex"))  # not installed
    a = walk_to(root, "1.3")  # the default review tool is codex-high
    assert a["kind"] == "review"
    assert a["agents"]["modelId"] == "codex-high"
    assert a["agents"]["agentModel"] is None
    assert a["agents"]["fallback"] == {
        "subagentType": "subagents:pr-reviewer",
        "agentModel": "opus",
    }
    assert a["agents"]["codex"] == {"model": None, "effort": "high", "installed": None}
    assert a["command"] == "agents-state phase complete 1.3 --artifact " + a["write"]
    assert (
        "codex-high is a Codex model, but no Codex CLI that can review (>= 0.154; npm install "
        '-g @openai/codex) is installed: dispatch subagents:pr-reviewer with model "opus" '
        "instead and write its review to the artifact."
    ) in a["instructions"]
    text = sh(root, "next")[1]
    assert (
        "  model: codex-high (a Codex model, but no Codex CLI >= 0.154 is installed: "
        'subagents:pr-reviewer with Agent model "opus")\n'
    ) in text
    assert "mcp__" not in text


def test_a_sonnet_review_has_no_fallback(root: Path) -> None:
    _config(root, {"stages": {"PLAN": {"review": {"tool": "sonnet"}}}})
    a = walk_to(root, "1.3")
    assert a["agents"]["agentModel"] == "sonnet" and "fallback" not in a["agents"]
    assert "Codex" not in a["instructions"]


def test_a_hard_task_runs_as_a_task_agent_with_opus(root: Path) -> None:
    walk_to(root, "2.1")
    tasks = {
        "tasks": [
            {"id": "easy-1", "title": "E", "complexity": "easy"},
            {"id": "hard-1", "title": "H", "complexity": "hard"},
        ]
    }
    (root / "t.json").write_text(json.dumps(tasks))
    assert sh(root, "tasks", "load", str(root / "t.json"))[0] == 0
    a = js(root, "next")
    by_id = {t["id"]: t for t in a["tasks"]}
    assert by_id["hard-1"]["model"] == "codex-xhigh"
    assert by_id["hard-1"]["agentModel"] == "opus"  # never None: an agent must run task done
    assert by_id["hard-1"]["codexConsult"]["supported"] is False  # docs/decisions.md
    assert "Codex is not consulted during a task" in by_id["hard-1"]["codexConsult"]["reason"]
    assert by_id["easy-1"]["agentModel"] == "sonnet" and "codexConsult" not in by_id["easy-1"]
    assert a["command"].startswith("agents-state task done <task-id>")
    text = sh(root, "next")[1]
    assert '  task hard-1 [hard, codex-xhigh]: H (Agent model "opus")\n' in text
    assert "call that MCP tool instead" not in text


def test_phase_run_has_no_write_line(root: Path) -> None:
    _config(root, {"stages": {"TEST": {"commands": {"test": "true"}}}})
    a = walk_to(root, "3.1")
    assert (a["command"], a["write"]) == ("agents-state phase run 3.1", None)
    assert "  write:" not in sh(root, "next")[1]


def test_brainstorms_then_line_carries_plan_agents_and_runs_as_printed(root: Path) -> None:
    a = walk_to(root, "1.1")
    words = shlex.split(a["command"])
    assert words[:5] == ["agents-state", "phase", "complete", "1.1", "--artifact"]
    assert words[-2] == "--plan-agents" and words[-1].isdigit()
    n = words[-1]
    assert (
        f"--plan-agents {n} is the estimate from the task's wording, used only when the "
        "brainstorm lists no areas" in (a["instructions"])
    )
    (root / a["write"]).write_text("# areas\n\n1. auth\n2. storage\n")
    code, _out, err = sh(root, *words[1:])  # as printed: the brainstorm's areas size 1.2
    assert code == 0, err
    state = json.loads((root / ".agents/state.json").read_text())
    assert state["stages"]["PLAN"]["phases"]["1.2"]["agentCount"] == 2


def test_single_planning_has_no_plan_agents_flag(root: Path) -> None:
    _config(root, {"stages": {"PLAN": {"planning": {"mode": "single"}}}})
    a = walk_to(root, "1.1")
    assert "--plan-agents" not in a["command"] and "--plan-agents" not in a["instructions"]


def test_an_agent_that_does_a_phase_hands_back_and_the_orchestrator_writes(root: Path) -> None:
    _config(root, {"stages": {"PLAN": {"brainstorm": {"inline": False, "model": "opus"}}}})
    a = walk_to(root, "1.1")
    assert a["kind"] == "dispatch_agents"
    assert (
        "One agent does this phase and hands its result back (agents never write .agents/): "
        "write it to the artifact yourself, then run the command."
    ) in a["instructions"]
    assert "writes the artifact" not in a["instructions"]


def test_a_claim_whose_driver_died_says_how_to_take_the_task_back(root: Path) -> None:
    walk_to(root, "2.1")
    (root / "t.json").write_text(json.dumps({"tasks": [{"id": "a", "title": "A"}]}))
    assert sh(root, "tasks", "load", str(root / "t.json"))[0] == 0
    assert sh(root, "task", "claim", "--agent", "w1")[0] == 0
    a = js(root, "next")  # the driver comes back after a kill: the claim still holds
    assert a["kind"] == "wait"
    assert a["instructions"].endswith(
        "If the session that launched them died (a crash, a kill), its agents died too: take "
        "their tasks back now with: agents-state resume --retry"
    )
    said = sh(root, "resume")[1]
    assert (
        "Task(s) a are claimed by task agents: if those died too, take the tasks back with: "
        "agents-state resume --retry (else they wait for their lease to end)."
    ) in said
    assert sh(root, "resume", "--retry")[0] == 0
    assert js(root, "next")["kind"] == "dispatch_agents"
