"""Issue 25, the host side: the plugin's workflow script ``workflows/fanout.js`` run by the real
``claude -p --plugin-dir .`` (stub model), with hand-written arguments (ARGS version 1).

The stub's main conversation makes the one ``Workflow`` call; the host runs the script, which
launches the agents; the stub answers each by the marker line of its prompt; the script's return
value comes back as a ``<task-notification>``.  A user-settings hook logs SubagentStart,
SubagentStop and PermissionRequest; the user settings allow Workflow (what the engine's approvals
hook does for the engine's own calls is tested with the engine, in test_native_e2e.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from claude_cli import CLAUDE, hook_events, log_hook_events, require_claude, run_claude
from fanout_stub import (
    AgentCall,
    FanoutAgents,
    Notice,
    fanout_marker,
    notification,
    structured_errors,
)
from pluginfiles import PLUGIN_ROOT
from stub_api import Block, StubAPI, request_text, tool_results

GO = "Run the fan-out now."
SCHEMA = {
    "type": "object",
    "properties": {
        "task_id": {"type": "string"},
        "decision": {"type": "string", "enum": ["PROCEED", "BLOCK"]},
        "context_summary": {"type": "string"},
    },
    "required": ["task_id", "decision", "context_summary"],
}


def args(*agents: dict[str, Any]) -> dict[str, Any]:
    return {"v": 1, "workflow": "wf-test", "phase": "0", "fanout": "0", "agents": list(agents)}


def explorer(key: str, **extra: Any) -> dict[str, Any]:
    return {
        "key": key,
        "label": f"{key} explore area {key}",
        "agentType": "subagents:explore-agent",
        "model": "haiku",
        "prompt": f"[agents-state fanout 0 agent {key}]\nMap area {key} of the project.",
        **extra,
    }


def answer(call: AgentCall) -> Any:
    if call.schema is not None:
        return {"task_id": call.key, "decision": "PROCEED", "context_summary": f"{call.key} done"}
    return f"Area {call.key} has nothing yet."


class OneFanout:
    """The main conversation: one Workflow call with ``ARGS``, then it waits for the result."""

    def __init__(self, call_args: Any, agents: FanoutAgents) -> None:
        self.args = call_args
        self.agents = agents
        self.launched: list[str] = []  # the Workflow tool's result
        self.notices: list[Notice] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        blocks = self.agents(body)
        if blocks is not None:
            return blocks
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Workflow" not in tools or GO not in request_text(body):
            return None  # side requests: titles and the like
        with self.lock:
            found = notification(body)
            if found:
                self.notices += found
                return [{"type": "text", "text": "The fan-out is back."}]
            results = tool_results(body)
            if results:
                self.launched += results.values()
                return [{"type": "text", "text": "Waiting for the fan-out."}]
            call = {"name": "subagents:fanout", "args": self.args}
            return [{"type": "tool_use", "name": "Workflow", "input": call}]


def settings(home: Path, log: Path) -> None:
    events = ("SubagentStart", "SubagentStop", "PermissionRequest")
    log_hook_events(home, log, events, {"permissions": {"allow": ["Workflow"]}})


def run(root: Path, flow: OneFanout, tmp_path: Path) -> tuple[StubAPI, Path]:
    require_claude()
    log = tmp_path / "events.jsonl"
    settings(Path(os.environ["HOME"]), log)
    with StubAPI(flow) as api:
        proc = run_claude(root, api, GO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return api, log


def test_the_plugin_ships_the_fanout_workflow(tmp_path: Path) -> None:
    require_claude()
    home = tmp_path / "validate-home"
    home.mkdir()
    proc = subprocess.run(
        [
            CLAUDE,
            "plugin",
            "validate",
            "--strict",
            "--json",
            str(PLUGIN_ROOT / ".claude-plugin" / "plugin.json"),
        ],
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "DISABLE_TELEMETRY": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["success"] is True and report["strict"] is True
    assert report["provides"]["workflows"] == ["subagents:fanout"]
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []


def test_a_fanout_runs_through_the_real_host(root: Path, tmp_path: Path) -> None:
    schema_agent = {
        "key": "E2",
        "label": "E2 answers by schema",
        "prompt": "[agents-state fanout 0 agent E2]\nSay what area E2 holds.",
        "schema": SCHEMA,
    }
    agents = FanoutAgents(answer)
    flow = OneFanout(args(explorer("E1"), schema_agent), agents)
    api, log = run(root, flow, tmp_path)

    # one launch, one notification with the script's value: the keys and a one-line outcome of
    # each answer, in ARGS' order (issue 34: the SubagentStop hook records the whole answers)
    assert len(flow.launched) == 1 and "Run ID: wf_" in flow.launched[0], flow.launched
    (notice,) = flow.notices
    assert notice.status == "completed" and notice.failures == "", notice.text
    assert notice.result == {
        "v": 1,
        "fanout": "0",
        "results": [
            {"key": "E1", "outcome": "Area E1 has nothing yet."},
            {"key": "E2", "outcome": "PROCEED: E2 done"},
        ],
    }
    assert agents.counts == {"E1": 1, "E2": 1}
    # the host lists the plugin's workflow to the model (as a skill, with its whenToUse)
    main = [r for r in api.requests if "Workflow" in {t["name"] for t in r.get("tools") or []}]
    assert "- subagents:fanout: One fan-out of an agents-state workflow" in request_text(main[0])

    # each agent got its prompt, its agent file, its model; the schema came verbatim
    (e1,) = [r for r in api.requests if fanout_marker(r) == ("0", "E1")]
    (e2,) = [r for r in api.requests if fanout_marker(r) == ("0", "E2")]
    assert "# Explore agent" in request_text({"system": e1.get("system")})
    assert "haiku" in e1["model"]
    assert "Map area E1 of the project." in request_text({"messages": e1["messages"][:1]})
    assert "StructuredOutput" not in {t["name"] for t in e1["tools"]}
    (tool,) = [t for t in e2["tools"] if t["name"] == "StructuredOutput"]
    assert tool["input_schema"] == SCHEMA

    # SubagentStart / SubagentStop fired for both, with type, id and transcript path
    starts, stops = hook_events(log, "SubagentStart"), hook_events(log, "SubagentStop")
    assert sorted(e["agent_type"] for e in starts) == [
        "subagents:explore-agent",
        "workflow-subagent",
    ]
    assert sorted(e["agent_type"] for e in stops) == [
        "subagents:explore-agent",
        "workflow-subagent",
    ]
    assert {e["agent_id"] for e in starts} == {e["agent_id"] for e in stops}
    for stop in stops:
        path = Path(stop["agent_transcript_path"])
        assert path.name == f"agent-{stop['agent_id']}.jsonl" and path.exists()
        assert path.parent.parent.name == "workflows" and path.parent.name.startswith("wf_")
        first = json.loads(path.read_text().splitlines()[0])
        assert (
            f"agent {'E1' if stop['agent_type'] != 'workflow-subagent' else 'E2'}]"
            in json.dumps(first)
        )
    by_type = {e["agent_type"]: e for e in stops}
    assert (
        by_type["subagents:explore-agent"]["last_assistant_message"] == "Area E1 has nothing yet."
    )
    assert "last_assistant_message" not in by_type["workflow-subagent"]  # a schema agent has none
    assert hook_events(log, "PermissionRequest") == []


def test_a_wrong_structured_answer_is_retried_by_the_host(root: Path, tmp_path: Path) -> None:
    schema_agent = {
        "key": "T1",
        "label": "T1 by schema",
        "prompt": "[agents-state fanout 2.1-w1 agent T1]\nImplement T1.",
        "schema": SCHEMA,
    }
    wrong = {"task_id": "T1", "decision": "MAYBE", "context_summary": "a wrong answer"}
    agents = FanoutAgents(answer, wrong_first={"T1"}, wrong=wrong)
    flow = OneFanout({**args(schema_agent), "phase": "2.1", "fanout": "2.1-w1"}, agents)
    api, log = run(root, flow, tmp_path)

    # the stub answered wrongly, then rightly; the host sent the error back in between
    assert agents.structured["T1"] == [wrong, answer_of("T1")]
    (again,) = [r for r in api.requests if fanout_marker(r) and tool_results(r)]
    (error,) = structured_errors(again)
    assert error.startswith(
        "Output does not match required schema: /decision: must be equal to one of"
    )
    # only the valid answer came back; the wrong one is nowhere in the result
    (notice,) = flow.notices
    assert notice.status == "completed" and notice.failures == "", notice.text
    assert notice.result == {
        "v": 1,
        "fanout": "2.1-w1",
        "results": [{"key": "T1", "outcome": "PROCEED: T1 done"}],
    }
    assert "a wrong answer" not in notice.text
    # the host's journal kept the valid answer only
    (stop,) = hook_events(log, "SubagentStop")
    journal = Path(stop["agent_transcript_path"]).parent / "journal.jsonl"
    lines = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
    assert [r["result"] for r in lines if r["type"] == "result"] == [answer_of("T1")]


def answer_of(key: str) -> dict[str, Any]:
    return {"task_id": key, "decision": "PROCEED", "context_summary": f"{key} done"}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"v": 2}, "subagents:fanout: args.v must be 1, got 2"),
        ({**args(), "agents": []}, "subagents:fanout: args.agents must be a non-empty list"),
        (
            args(explorer("E1"), explorer("E1")),
            'subagents:fanout: args.agents[1].key "E1" is used twice',
        ),
        ("not json at all", "subagents:fanout: args is text that is not JSON"),
    ],
)
def test_bad_arguments_fail_the_run_with_one_line(
    root: Path, tmp_path: Path, bad: Any, message: str
) -> None:
    agents = FanoutAgents(answer)
    flow = OneFanout(bad, agents)
    run(root, flow, tmp_path)
    (notice,) = flow.notices
    assert notice.status == "failed"
    assert f"failed: Error: {message} (pass the call `agents-state next` prints)" in notice.text
    assert agents.counts == {}  # no agent ran
