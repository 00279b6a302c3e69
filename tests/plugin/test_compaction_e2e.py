"""Issue 27, acceptance, through the real host (``claude -p`` against the scripted stub):

- a whole workflow whose conversation stays small reaches done in one run without asking the
  user once: every stage boundary is recorded as skipped;
- headless without project rules, a task agent's write is refused by the host; the workflow
  blocks and ends with an ``ask_user`` whose reason names the rule to add.

The run where compaction is needed (asked at the boundary, not elsewhere) is
``test_workflow_e2e.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from claude_cli import require_claude
from stub_api import Block, StubAPI, request_text, tool_results
from test_workflow_e2e import TASK, Workflow, fenced, handoff, run_host, text

pytestmark = pytest.mark.slow


def test_a_small_conversation_runs_to_done_without_asking(root: Path) -> None:
    require_claude()  # no rule: without TEST commands the plugin approves the 3.1 report (issue 33)
    flow = Workflow(root)
    flow.grow_in_stages = False
    with StubAPI(flow) as api:
        run = run_host(root, api, f"/subagents:dispatch {TASK}")
    assert flow.error is None, (flow.error, flow.trace[-3:])
    assert run.returncode == 0, run.stderr
    state = json.loads((root / ".agents" / "state.json").read_text())
    assert state["status"] == "completed"
    assert flow.asked_to_compact == [] and flow.stopped_with is None
    assert state["compaction"].get("history", []) == []
    assert state["compaction"]["skipped"] == ["EXPLORE", "PLAN", "IMPLEMENT", "TEST"]
    said = [out for c, out in flow.engine_results if c == "agents-state next --json"]
    assert any("no compaction needed" in out for out in said)


class RefusedWrite(Workflow):
    """Task agents write their file first; headless with no rules the host refuses it, and the
    agent stops with the refusal as its reason (as a literal agent does)."""

    def sub_agent(self, kind: str, body: dict[str, Any]) -> list[Block]:
        if kind != "task":
            return super().sub_agent(kind, body)
        first = request_text({"messages": (body.get("messages") or [])[:1]})
        task = re.search(r"task (t\d)", first)
        tid = task.group(1) if task else "t?"
        results = tool_results(body)
        if not results:  # it starts its task first: only its holder may report it (issue 32)
            start = {"command": f"agents-state task start {tid}", "description": "start"}
            return [{"type": "tool_use", "name": "Bash", "input": start}]
        if any("claimed and started" in r for r in results.values()):
            path = str(self.root / "health" / f"{tid}.py")
            write = {"file_path": path, "content": "x"}
            return [{"type": "tool_use", "name": "Write", "input": write}]
        refusal = " ".join(results.values())
        self.refusals.append(refusal)
        stop = handoff(tid, "write", "The write was refused.", decision="STOP", status="blocked")
        return text(fenced({**stop, "reason": refusal[:300]}))

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.refusals: list[str] = []


def test_a_refused_write_ends_with_the_rule_to_add(root: Path) -> None:
    require_claude()
    flow = RefusedWrite(root)
    flow.grow_in_stages = False
    with StubAPI(flow) as api:
        run = run_host(root, api, f"/subagents:dispatch {TASK}")
    assert flow.error is None, (flow.error, flow.trace[-3:])
    assert run.returncode == 0, run.stderr
    assert flow.refusals, "no task agent was refused"
    action = flow.stopped_with
    assert action is not None and action["kind"] == "ask_user", action
    assert "add to permissions.allow in .claude/settings.local.json" in action["reason"]
    assert "subagents:task-agent" in action["reason"]
    assert 'allow "Edit(health/t' in action["reason"]  # issue 33: the narrow rule, path and all
    assert all(r["rules"][0].startswith("Edit(health/t") for r in action["refusals"])
