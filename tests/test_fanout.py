"""Issue 25 (core, in process): a fan-out as one Workflow call -- its agents, their prompts, the
resume subset -- and the rule that chooses the native path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_waves import T0, _at_tasks

from agents_state.config import Config
from agents_state.engine import events as ev
from agents_state.engine.fanout import (
    HANDOFF_SCHEMA,
    marker,
    marker_of,
    note_answer,
    note_launch,
    recorded,
    workflow_call,
)
from agents_state.engine.native import native_path
from agents_state.engine.nextaction import decide
from agents_state.engine.phases import apply, new_state
from agents_state.models import State
from agents_state.views.nextaction import next_action
from agents_state.views.prompts import rendered

HOST = {"AI_AGENT": "claude-code_2-1-330_agent"}


def _explore(count: int = 3) -> State:
    return new_state(ev.Start(task="add a login page", agent_counts={"0": count}), T0)


def _call(state: State, config: Config | None = None) -> dict[str, Any] | None:
    """The engine's call with its prompts in words (issue 35: ``views.prompts`` writes them)."""
    call = workflow_call(state, decide(state, config or Config(), T0))
    return None if call is None else rendered({"workflow": call})["workflow"]


def _keys(call: dict[str, Any] | None) -> list[str]:
    assert call is not None
    return [a["key"] for a in call["args"]["agents"]]


def test_explore_agents_each_get_a_marker_their_area_type_model_and_the_schema() -> None:
    state = _explore(3)
    call = _call(state)
    assert call is not None and call["name"] == "subagents:fanout"
    args = call["args"]
    assert {k: args[k] for k in ("v", "workflow", "phase", "fanout")} == {
        "v": 1,
        "workflow": state.startedAt,
        "phase": "0",
        "fanout": "0",
    }
    assert _keys(call) == ["E1", "E2", "E3"]
    second = args["agents"][1]
    assert second["agentType"] == "subagents:explore-agent"
    assert second["model"] == "sonnet"  # the Agent tool's family of sonnet-4.5
    assert second["label"] == "0 E2"
    assert second["schema"] == HANDOFF_SCHEMA
    lines = second["prompt"].split("\n")
    assert lines[0] == "[agents-state fanout 0 agent E2]"
    assert lines[1] == "Task: add a login page"
    assert "Explore area 2 of 3:" in second["prompt"]
    assert marker_of(second["prompt"]) == ("0", "E2")
    assert _call(state) == call  # the same state, the same call: the approval relies on it


def test_plan_agents_plan_the_brainstorms_areas_by_number() -> None:
    state = _explore(2)
    for pid in ("0", "1.1"):
        state = apply(state, ev.PhaseComplete(phase=pid), T0).state
    state.phase("1.2").agentCount = 4
    call = _call(state)
    assert _keys(call) == ["P1", "P2", "P3", "P4"]
    assert call is not None
    prompt = call["args"]["agents"][2]["prompt"]
    assert prompt.startswith("[agents-state fanout 1.2 agent P3]\n")
    assert "Plan area 3 of 4: the 3. area listed in .agents/phases/1.1-brainstorm.md" in prompt
    assert call["args"]["agents"][2]["agentType"] == "subagents:plan-agent"


def test_a_review_is_one_reviewer_and_a_codex_review_stays_a_review_run() -> None:
    state = _explore(1)
    for pid in ("0", "1.1", "1.2"):
        state = apply(state, ev.PhaseComplete(phase=pid), T0).state
    assert _call(state) is None  # 1.3 reviews with codex-high by default: review run
    assert next_action(state, Config(), T0, native=True) == next_action(state, Config(), T0)
    config = Config.model_validate({"stages": {"PLAN": {"review": {"tool": "opus-4.5"}}}})
    call = _call(state, config)
    assert _keys(call) == ["R1"]
    assert call is not None and call["args"]["fanout"] == "1.3"
    agent = call["args"]["agents"][0]
    assert (agent["agentType"], agent["model"]) == ("subagents:pr-reviewer", "opus")
    assert "severity high or above send the work back" in agent["prompt"]


def test_a_wave_runs_its_ready_tasks_by_id_and_each_prompt_names_its_task() -> None:
    state = _at_tasks({"a": [], "b": [], "c": ["a"]})
    call = _call(state)
    assert _keys(call) == ["a", "b"]
    assert call is not None and call["args"]["fanout"] == "2.1-w1"
    prompt = call["args"]["agents"][1]["prompt"]
    assert prompt.split("\n")[:3] == [
        "[agents-state fanout 2.1-w1 agent b]",
        "Workflow task: t",
        "Your task: b",
    ]
    assert "agents-state task start b" in prompt
    assert "agents-state task done b --summary" in prompt
    assert call["args"]["agents"][1]["agentType"] == "subagents:task-agent"
    # a finished task leaves the call; the next wave is a new fan-out
    state = apply(state, ev.TaskDone(task_id="a"), T0).state
    assert _keys(_call(state)) == ["b"]
    state = apply(state, ev.TaskDone(task_id="b"), T0).state
    call = _call(state)
    assert _keys(call) == ["c"] and call is not None and call["args"]["fanout"] == "2.1-w2"


def test_after_a_crash_the_call_holds_only_the_agents_not_yet_answered() -> None:
    state = _explore(3)
    assert note_answer(state, "0", "E2", {"decision": "PROCEED"}, "2026-01-29T10:01:00Z")
    assert not note_answer(state, "0", "E2", {"decision": "PROCEED"}, "2026-01-29T10:02:00Z")
    assert _keys(_call(state)) == ["E1", "E3"]
    note_answer(state, "0", "E1", "plain text", "2026-01-29T10:03:00Z")
    note_answer(state, "0", "E3", {"decision": "PROCEED"}, "2026-01-29T10:03:00Z")
    assert _call(state) is None
    assert sorted(recorded(state, "0")) == ["E1", "E2", "E3"]
    native = next_action(state, Config(), T0, native=True)
    assert native["workflow"] is None and native["answered"] == 3
    assert "All 3 agents have answered." in native["instructions"]
    assert ".agents/phases/fanout-0.json" in native["read"]


def test_answers_of_a_former_run_of_the_phase_do_not_count() -> None:
    state = _explore(2)
    note_answer(state, "0", "E1", {"decision": "PROCEED"}, "2026-01-29T10:01:00Z")
    state.phase("0").startedAt = "2026-01-29T11:00:00Z"  # the phase ran again (sent back)
    assert recorded(state, "0") == {}
    assert _keys(_call(state)) == ["E1", "E2"]


def test_issue_32_a_launch_counts_once_per_session_and_run_of_the_phase() -> None:
    state = _explore(3)
    at = "2026-01-29T10:01:00Z"
    assert note_launch(state, "0", "s1", ["E1", "E2", "E3"], at) == []
    assert note_launch(state, "0", "s1", ["E3"], at) == ["E3"]  # the same session again
    assert note_launch(state, "0", "s2", ["E1", "E2", "E3"], at) == []  # a new session
    state.phase("0").attempts += 1  # the phase failed and runs again
    assert note_launch(state, "0", "s1", ["E1"], at) == []
    # a phase sent back keeps its first startedAt: each review round is another run
    state.phase("0").startedAt = "2026-01-29T11:00:00Z"
    assert note_launch(state, "0", "s1", ["E1"], at) == []
    assert note_launch(state, "0", "s1", ["E1"], at) == ["E1"]
    state.phase("1.3").reviewRounds += 1
    assert note_launch(state, "0", "s1", ["E1"], at) == []
    assert note_answer(state, "0", "E2", {"decision": "PROCEED"}, at)  # answers keep launches
    assert note_launch(state, "0", "s1", ["E1"], at) == ["E1"]


def test_off_the_native_path_the_action_is_todays() -> None:
    state = _explore(3)
    today = next_action(state, Config(), T0)
    assert "workflow" not in today
    native = next_action(state, Config(), T0, native=True)
    assert native["workflow"] == _call(state)
    same = ("workflow", "instructions", "command")
    assert {k: v for k, v in native.items() if k not in same} == {
        k: v for k, v in today.items() if k not in same
    }
    assert native["command"] == today["command"] + " --from-answers"  # issue 34
    assert "as ONE Workflow call, exactly the call below" in native["instructions"]
    # a step that is not a fan-out is the same on both paths
    done = apply(state, ev.PhaseComplete(phase="0"), T0).state
    assert next_action(done, Config(), T0, native=True) == next_action(done, Config(), T0)


@pytest.mark.parametrize(
    "text",
    [
        "[agents-state fanout 0 agent E1] trailing",
        "[agents-state fanout ../x agent E1]",
        "[agents-state fanout 0 agent E 1]",
        "no marker",
        "",
    ],
)
def test_only_a_whole_marker_line_names_an_agent(text: str) -> None:
    assert marker_of(text) is None


def test_a_marker_reads_back_also_inside_the_hosts_wrapper() -> None:
    assert marker_of(marker("2.1-w3", "task-7") + "\nrest") == ("2.1-w3", "task-7")
    wrapped = (
        "[Workflow harness \u2014 computed task] The computed task text follows:\n\n"
        "  [agents-state fanout 1.2 agent P2]\n  Task: x\n  [agents-state fanout 0 agent E1]"
    )
    assert marker_of(wrapped) == ("1.2", "P2")  # the first whole marker line


def test_the_schema_is_the_handoff_response_schema() -> None:
    from agents_state.views.schema_export import generate

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: strip(v)
                for k, v in node.items()
                if k not in ("title", "default", "$schema", "description")
            }
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    assert strip(generate("handoff-response")) == HANDOFF_SCHEMA


# -- the path ------------------------------------------------------------------------------------


def _settings(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_auto_is_native_only_under_a_host_that_has_workflow(tmp_path: Path) -> None:
    root = str(tmp_path)
    env = {"HOME": str(tmp_path / "home")}
    assert not native_path("auto", root, env).native  # a terminal: no host
    ok = native_path("auto", root, {**env, **HOST})
    assert ok.native and ok.reason == "Claude Code 2.1.330 offers the Workflow tool"
    assert ok.as_dict() == {"path": "workflow", "reason": ok.reason}
    old = native_path("auto", root, {**env, "AI_AGENT": "claude-code_2-1-200_agent"})
    assert old.as_dict() == {
        "path": "agents",
        "reason": "Claude Code 2.1.200 is older than 2.1.330 (no Workflow tool)",
    }
    assert native_path("auto", root, {**env, "AI_AGENT": "claude-code_3-0-0"}).native
    assert not native_path("auto", root, {**env, "AI_AGENT": "cursor_1-0-0"}).native


@pytest.mark.parametrize(
    "extra,reason",
    [
        ({"CLAUDE_CODE_DISABLE_WORKFLOWS": "1"}, "CLAUDE_CODE_DISABLE_WORKFLOWS is set"),
        ({"CLAUDE_CODE_WORKFLOWS": "0"}, "CLAUDE_CODE_WORKFLOWS is 0"),
    ],
)
def test_the_hosts_switches_turn_it_off(tmp_path: Path, extra: dict[str, str], reason: str) -> None:
    env = {"HOME": str(tmp_path / "home"), **HOST, **extra}
    assert native_path("auto", str(tmp_path), env).as_dict() == {"path": "agents", "reason": reason}
    assert native_path("on", str(tmp_path), env).native  # on: whatever the host says


@pytest.mark.parametrize(
    "where,data,said",
    [
        ("home/.claude/settings.json", {"enableWorkflows": False}, "enableWorkflows is false in"),
        ("cfg/settings.json", {"disableWorkflows": True}, "disableWorkflows is true in the user"),
        (".claude/settings.json", {"disableWorkflows": True}, "in the project settings"),
        (".claude/settings.local.json", {"enableWorkflows": False}, "in the local settings"),
    ],
)
def test_settings_files_turn_it_off(
    tmp_path: Path, where: str, data: dict[str, Any], said: str
) -> None:
    env = {"HOME": str(tmp_path / "home"), **HOST}
    if where.startswith("cfg/"):
        env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    _settings(tmp_path / where, data)
    path = native_path("auto", str(tmp_path), env)
    assert not path.native and said in path.reason
    assert str(tmp_path / where) in path.reason


def test_other_settings_and_broken_files_leave_it_on(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), **HOST}
    _settings(tmp_path / ".claude" / "settings.json", {"enableWorkflows": True})
    (tmp_path / ".claude" / "settings.local.json").write_text("{not json")
    assert native_path("auto", str(tmp_path), env).native
    assert native_path("off", str(tmp_path), env).as_dict() == {
        "path": "agents",
        "reason": "fanout.native is off",
    }


def test_under_worktree_isolation_each_task_prompt_names_its_worktree() -> None:
    from agents_state.models import GitInfo

    state = _at_tasks({"a": [], "b": []})
    state.git = GitInfo(branch="agents/wf", base="0" * 40)
    call = _call(state)
    assert call is not None
    prompt = call["args"]["agents"][0]["prompt"]
    assert (
        "First run: agents-state task start a (worktree isolation is on: it makes your worktree "
        ".agents/worktrees/a and prints its folder; work only there, with absolute paths, and "
        "cd into it for every shell command)." in prompt.split("\n")
    )
    native = next_action(state, Config(), T0, native=True)
    assert native["instructions"].endswith(
        " Worktree isolation is on: each prompt names its task worktree."
    )
    assert all("isolation" not in a for a in call["args"]["agents"])  # ours, not the host's


def test_issue_33_the_plan_fan_out_is_sized_by_the_brainstorms_areas(root: Path) -> None:
    """The 1.1 command carries the estimate from the task's wording (here 4); a brainstorm that
    lists 2 areas ran 4 plan agents, and agents 3 and 4 were told to plan an area not there."""
    from clitools import cli_json, run_cli, walk_to

    task = (
        "Add OAuth login with Google and GitHub, sessions, a settings page, audit logging and docs"
    )
    walk_to(root, "1.1", task)
    action = cli_json(root, "next")
    command = action["command"].split()
    assert command[-2] == "--plan-agents" and int(command[-1]) > 2, command
    brainstorm = (
        "# Brainstorm\n\n## Approach\nOne OAuth library.\n\n## Areas\n"
        "- auth: the OAuth flow\n  - callbacks and tokens\n- ui: the settings page\n\n"
        "## Risks\n- rate limits\n"
    )
    args = [*command[1:3], "1.1", "--artifact", "-", *command[-2:]]  # as printed
    proc = run_cli(root, *args, stdin=brainstorm)
    assert proc.returncode == 0, proc.stderr
    plan = cli_json(root, "next")
    assert (plan["phase"], plan["agents"]["count"]) == ("1.2", 2)
    state = json.loads((root / ".agents" / "state.json").read_text())
    assert state["stages"]["PLAN"]["phases"]["1.2"]["agentCount"] == 2


@pytest.mark.parametrize(
    ("text", "areas"),
    [
        ("## Plan areas\n1. api\n2. ui\n3. docs\n", ["api", "ui", "docs"]),
        ("# Areas\n* one\n\n# Next\n* not an area\n", ["one"]),
        ('```json\n{"findings": {"areas": ["a", "b"]}}\n```\n', ["a", "b"]),
        ("No list of areas here.\n", []),
    ],
)
def test_issue_33_the_areas_a_brainstorm_lists(text: str, areas: list[str]) -> None:
    from agents_state.engine.areas import brainstorm_areas

    assert brainstorm_areas(text) == areas


def test_issue_33_a_task_on_the_agent_path_gets_task_start_and_its_worktree() -> None:
    """With Workflow off (or a task dispatched again after a crash) the orchestrator wrote the
    prompt itself, without task start and the worktree: the agent wrote in the user's tree."""
    from agents_state.models import GitInfo

    state = _at_tasks({"a": [], "b": []})
    state.git = GitInfo(branch="agents/wf", base="0" * 40)
    action = next_action(state, Config(), T0, native=False)
    assert "workflow" not in action
    a = next(t for t in action["tasks"] if t["id"] == "a")
    lines = a["prompt"].split("\n")
    assert lines[:2] == ["Workflow task: t", "Your task: a"]
    assert (
        "First run: agents-state task start a (worktree isolation is on: it makes your worktree "
        ".agents/worktrees/a and prints its folder; work only there, with absolute paths, and "
        "cd into it for every shell command)." in lines
    )
    assert lines[-2].startswith("When done, record it: agents-state task done a --summary")
    assert lines[-1].startswith("End your answer with your handoff response as a JSON block")
    assert "[agents-state fanout" not in a["prompt"]  # no fan-out answer on this path
    assert "each with its task's prompt (tasks[].prompt) verbatim" in action["instructions"]
    from agents_state.views.render import render_action

    text = render_action(action)
    assert "    | First run: agents-state task start a (worktree isolation is on:" in text
