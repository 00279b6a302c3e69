"""Issue 24, acceptance: a budget stops the next fan-out through the real host.

The workflow is walked to phase 1.2 with the CLI, with ``budget.maxTokens`` 50,000 in the
project's configuration.  Then the real ``claude -p --plugin-dir .`` runs a scripted
orchestrator that follows the next action literally: it launches the plan agents (the stub
bills each 40,010 tokens), records 1.2, and asks for the next step.  The SubagentStop hooks
booked the plan agents' usage from their own transcripts, so the next fan-out (the plan review)
is not dispatched: the action is ``ask_user`` with the three options, and the orchestrator asks.
A second run (``--continue``) carries the user's answer, "raise the budget", and even grants
the ``agents-state budget`` command: the orchestrator runs the option's command and the hook
denies it, a budget being the person's decision (issue 32). The person raises it in their own
shell, and a third run goes on with the review.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from claude_cli import VENV_BIN, require_claude, run_claude
from hookcalls import launch_hook, payload
from stub_api import Block, StubAPI, request_text, tool_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from clitools import walk_to

pytestmark = pytest.mark.slow

TASK = "Add a health endpoint"
GO_ON = "Go on with the workflow."
RAISE = "Raise the budget to 1000000 tokens."
PLAN_INPUT = 40_000  # what the stub bills a plan agent's response
BUDGET = 50_000


def handoff(task_id: str, summary: str) -> str:
    data = {
        "task_id": task_id,
        "phase": "research",
        "status": "complete",
        "decision": "PROCEED",
        "context_summary": summary,
        "issues": [],
        "findings": {"issues": []},
    }
    return "Done.\n\n```json\n" + json.dumps(data, indent=2) + "\n```"


def usage(n: int, body: dict[str, Any]) -> dict[str, int]:
    system = request_text({"system": body.get("system")})
    planning = "# Plan agent" in system
    return {
        "input_tokens": PLAN_INPUT if planning else 100,
        "output_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


class Orchestrator:
    """The scripted model: follows each next action literally; plan agents and the reviewer
    answer with a handoff at once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self.main = self.script()
        next(self.main)
        self.results: list[tuple[str, str]] = []
        self.actions: list[dict[str, Any]] = []
        self.agents: list[str] = []
        self.error: BaseException | None = None

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        system = request_text({"system": body.get("system")})
        if "# Plan agent" in system:
            self.agents.append("plan")
            return [{"type": "text", "text": handoff("plan-1", "Plan: one route, one model.")}]
        if "# PR reviewer" in system:
            self.agents.append("reviewer")
            return [{"type": "text", "text": handoff("review-1.3", "The plan is sound.")}]
        everything = request_text({"messages": body.get("messages", [])})
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Agent" not in tools or GO_ON not in everything:
            return None  # side requests: titles and the like
        with self.lock:
            try:
                return self.main.send(body)
            except BaseException as e:
                self.error = e
                return [{"type": "text", "text": f"script failed: {e!r}"}]

    def run(self, command: str) -> Generator[list[Block], dict[str, Any], str]:
        body = yield [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]
        (out,) = tool_results(body).values()
        self.results.append((command, out))
        return out

    def next_action(self) -> Generator[list[Block], dict[str, Any], dict[str, Any]]:
        action: dict[str, Any] = json.loads((yield from self.run("agents-state next --json")))
        self.actions.append(action)
        return action

    def launch(self, action: dict[str, Any]) -> Generator[list[Block], dict[str, Any], None]:
        agents = action["agents"]
        subagent = agents["subagentType"] or "subagents:pr-reviewer"
        model = {"model": agents["agentModel"]} if agents.get("agentModel") else {}
        calls: list[Block] = [
            {
                "type": "tool_use",
                "name": "Agent",
                "input": {
                    "subagent_type": subagent,
                    "description": f"{action['phaseName']} {i + 1}",
                    "prompt": f"{action['phaseName']}: area {i + 1} of '{TASK}'",
                    **model,
                    "run_in_background": False,
                },
            }
            for i in range(agents["count"])
        ]
        body = yield calls
        self.results.extend(("Agent", out) for out in tool_results(body).values())

    def record(self, action: dict[str, Any]) -> Generator[list[Block], dict[str, Any], None]:
        content = json.dumps({"issues": []}) if action["write"].endswith(".json") else "# plan\n"
        path = str(self.root / action["write"])
        write = {"file_path": path, "content": content}
        yield [{"type": "tool_use", "name": "Write", "input": write}]
        yield from self.run(action["command"])

    def script(self) -> Generator[list[Block], dict[str, Any], None]:
        yield []
        action = yield from self.next_action()
        assert (action["kind"], action["phase"]) == ("dispatch_agents", "1.2"), action
        yield from self.launch(action)
        yield from self.record(action)
        action = yield from self.next_action()
        assert action["kind"] == "ask_user", action
        body = yield [{"type": "text", "text": "The token budget is spent. " + action["reason"]}]
        assert RAISE in request_text({"messages": body["messages"]})  # the user answered
        raise_cmd = action["options"][0]["command"].rsplit(" ", 1)[0] + " 1000000"
        yield from self.run(raise_cmd)  # denied: a person's decision (issue 32)
        body = yield [{"type": "text", "text": "Only you can raise it, in your own shell."}]
        assert GO_ON in request_text({"messages": body["messages"]})  # the person raised it
        action = yield from self.next_action()
        assert (action["kind"], action["phase"]) == ("review", "1.3"), action
        yield from self.launch(action)
        yield from self.record(action)
        action = yield from self.next_action()
        yield [{"type": "text", "text": f"Next: {action['kind']} {action['phase']}. Stopping."}]


def test_a_spent_budget_stops_the_next_fan_out_until_the_user_answers(root: Path) -> None:
    require_claude()
    config = {
        "budget": {"maxTokens": BUDGET},
        "stages": {"PLAN": {"planning": {"maxParallelAgents": 2}}},
    }
    (root / ".claude").mkdir()
    (root / ".claude" / "subagents-config.json").write_text(json.dumps(config))
    walk_to(root, "1.2", TASK)
    flow = Orchestrator(root)
    with StubAPI(flow, usage) as api:
        first = run_claude(root, api, GO_ON)
        assert flow.error is None, flow.error
        assert first.returncode == 0, first.stderr
        asked = flow.actions[-1]
        reviewers_before_answer = flow.agents.count("reviewer")
        # the user asks the model to raise it, even granting the command: the hook denies it,
        # a budget is the person's decision (issues 24, 32); the person runs it themselves
        second = run_claude(
            root, api, "--continue", RAISE, "--allowedTools", "Bash(agents-state budget *)"
        )
        assert flow.error is None, (flow.error, flow.results[-3:])
        assert second.returncode == 0, second.stderr
        unraised = json.loads((root / ".agents" / "state.json").read_text())
        assert (unraised.get("budget") or {}).get("maxTokens") != 1_000_000  # not raised
        person = subprocess.run(
            [str(Path(VENV_BIN) / "agents-state"), "budget", "--raise", "1000000"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert person.returncode == 0, person.stderr
        third = run_claude(root, api, "--continue", GO_ON)
        assert flow.error is None, (flow.error, flow.results[-3:])
        assert third.returncode == 0, third.stderr

    # the host may write a turn's last response after its Stop hook ran (the closing text of
    # the second run): the next session's start books it, to the phase of the last booking
    book = json.loads((root / ".agents" / "usage.json").read_text())
    (main,) = [p for p in book["transcripts"] if "/subagents/" not in p]
    start = payload(root, "SessionStart", source="resume", transcript_path=main)
    resumed = launch_hook(root, "session-start", start)
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr, resumed.stderr

    plans = flow.agents.count("plan")
    assert plans == flow.actions[0]["agents"]["count"] >= 1
    # before the plan fan-out the action said what was left
    assert flow.actions[0]["budget"]["maxTokens"] == BUDGET
    assert flow.actions[0]["budget"]["leftTokens"] > plans * 10  # only the orchestrator so far
    # the plan agents' usage was booked from their transcripts, to the token
    book = json.loads((root / ".agents" / "usage.json").read_text())
    booked = [a for a in book["agents"].values() if a["type"] == "subagents:plan-agent"]
    assert len(booked) == plans
    for a in booked:
        assert (a["phase"], a["phaseBy"]) == ("1.2", "start")  # where it started, not by time
        (tokens,) = a["tokens"].values()
        assert tokens == {"input": PLAN_INPUT, "output": 10, "cacheRead": 0, "cacheWrite": 0}
    # the next fan-out was not dispatched: ask_user, with the three options
    assert asked["kind"] == "ask_user" and asked["phase"] == "1.3"
    assert asked["reason"].startswith("the workflow's token budget is spent (")
    assert [o["option"] for o in asked["options"]] == ["raise", "once", "stop"]
    assert reviewers_before_answer == 0
    # after the answer: recorded like every other answer, and the review ran
    state = json.loads((root / ".agents" / "state.json").read_text())
    assert state["budget"]["maxTokens"] == 1_000_000
    assert state["clarifications"][-1]["answer"] == "raise the workflow token budget to 1000000"
    assert flow.agents.count("reviewer") == 1, flow.results
    reviewer = [a for a in book["agents"].values() if a["type"] == "subagents:pr-reviewer"]
    assert [(a["phase"], a["phaseBy"]) for a in reviewer] == [("1.3", "start")]
    assert book["notes"] == []
    log = [json.loads(ln) for ln in (root / ".agents" / "subagents.jsonl").read_text().splitlines()]
    starts = [(e["agent_type"], e["phase"]) for e in log if e["event"] == "start"]
    assert starts == [("subagents:plan-agent", "1.2")] * plans + [("subagents:pr-reviewer", "1.3")]
    # the orchestrator's own responses, by phase: next, the fan-out, the write and the record in
    # 1.2; in 1.3 the next that asked, the question, then (second run) the denied raise and its
    # closing text, (third run, after the person's raise) next, the review's fan-out, write and
    # record; in 2.1 the last next and the closing text.  The responses right after a phase
    # moved share its second: by order, not time, they are 1.3's
    assert {p: m["messages"] for p, m in book["main"].items()} == {"1.2": 4, "1.3": 8, "2.1": 2}
    phases = {pid: p["status"] for s in state["stages"].values() for pid, p in s["phases"].items()}
    assert phases["1.2"] == phases["1.3"] == "completed"
    raised = [out for c, out in flow.results if c.startswith("agents-state budget --raise")]
    assert len(raised) == 1 and "is a person's decision" in raised[0], flow.results
