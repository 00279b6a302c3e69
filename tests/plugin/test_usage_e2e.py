"""Issue 24, item 5 through the real host: ten agents stopping at once lose no count.

The real ``claude -p --plugin-dir .`` runs a scripted orchestrator at phase 0 that launches ten
explore agents in one message.  The stub holds each agent's first reply until all ten have asked
(so the ten run at once, and answer, and stop, together), bills each agent its own figures, and
keeps what it billed.  The SubagentStart hooks wrote each agent's entry in phase 0; the ten
SubagentStop hooks, running together, each booked its agent's transcript under the lock: every
agent's tokens, and the total, are what the stub billed, to the token.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from claude_cli import require_claude, run_claude
from stub_api import Block, StubAPI, request_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from clitools import run_cli

pytestmark = pytest.mark.slow

GO_ON = "Go on with the workflow."
N = 10
KINDS = ("input", "output", "cacheRead", "cacheWrite")
AREA = re.compile(r"Explore area (\d+) of the task")


def handoff(area: int) -> str:
    data = {
        "task_id": f"explore-{area}",
        "phase": "research",
        "status": "complete",
        "decision": "PROCEED",
        "context_summary": f"Area {area}: nothing to change.",
        "issues": [],
    }
    return "Done.\n\n```json\n" + json.dumps(data) + "\n```"


class TenAtOnce:
    """The scripted model: ten Agent calls in one message; each agent's first reply waits until
    all ten have asked (a condition, with a generous bound so that a host that runs fewer at once
    fails the test instead of hanging it)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.asked: set[int] = set()
        self.apart = False  # an agent's wait ran out before all ten had asked
        self.billed: dict[int, list[dict[str, int]]] = {}
        self.main_calls = 0

    @staticmethod
    def area(body: dict[str, Any]) -> int | None:
        if "# Explore agent" not in request_text({"system": body.get("system")}):
            return None
        m = AREA.search(request_text({"messages": body.get("messages", [])}))
        return int(m.group(1)) if m else None

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        area = self.area(body)
        if area is not None:
            with self.cond:
                self.asked.add(area)
                self.cond.notify_all()
                if not self.cond.wait_for(lambda: len(self.asked) == N, timeout=240):
                    self.apart = True
            return [{"type": "text", "text": handoff(area)}]
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Agent" not in tools or GO_ON not in request_text({"messages": body["messages"]}):
            return None  # side requests: titles and the like
        self.main_calls += 1
        if self.main_calls > 1:
            return [{"type": "text", "text": "All ten areas answered. Stopping."}]
        return [
            {
                "type": "tool_use",
                "name": "Agent",
                "input": {
                    "subagent_type": "subagents:explore-agent",
                    "description": f"Explore area {i}",
                    "prompt": f"Explore area {i} of the task 'Add a health endpoint'.",
                    "run_in_background": False,
                },
            }
            for i in range(N)
        ]

    def usage(self, n: int, body: dict[str, Any]) -> dict[str, int]:
        area = self.area(body)
        if area is None:
            return {
                "input_tokens": 5,
                "output_tokens": 5,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            }
        billed = {
            "input_tokens": 1000 + area,
            "output_tokens": 20 + area,
            "cache_creation_input_tokens": 300 + area,
            "cache_read_input_tokens": 5000 * (area + 1),
        }
        with self.cond:
            self.billed.setdefault(area, []).append(billed)
        return billed


def booked(billed: list[dict[str, int]]) -> dict[str, int]:
    """What the book should hold for an agent billed ``billed``, in the book's names."""
    names = {
        "input": "input_tokens",
        "output": "output_tokens",
        "cacheRead": "cache_read_input_tokens",
        "cacheWrite": "cache_creation_input_tokens",
    }
    return {k: sum(b[names[k]] for b in billed) for k in KINDS}


def test_ten_agents_stopping_at_once_through_the_host_lose_no_count(root: Path) -> None:
    require_claude()
    root.mkdir(parents=True, exist_ok=True)
    assert run_cli(root, "dispatch", "Add a health endpoint").returncode == 0
    flow = TenAtOnce()
    with StubAPI(flow, flow.usage) as api:
        proc = run_claude(root, api, GO_ON, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert not flow.apart, f"only {sorted(flow.asked)} were under way at once"
    assert sorted(flow.billed) == list(range(N))

    book = json.loads((root / ".agents" / "usage.json").read_text())
    agents = [a for a in book["agents"].values() if a["type"] == "subagents:explore-agent"]
    assert len(agents) == N
    assert {(a["phase"], a["phaseBy"]) for a in agents} == {("0", "start")}
    got = sorted(tuple(t[k] for k in KINDS) for a in agents for t in a["tokens"].values())
    want = sorted(tuple(booked(flow.billed[i])[k] for k in KINDS) for i in range(N))
    assert got == want  # each agent its own figures, to the token, none lost or doubled
    assert book["notes"] == []
    total = sum(sum(row) for row in want)
    usage = json.loads(run_cli(root, "status", "--json").stdout)["workflow"]["usage"]
    assert usage["phases"]["0"]["agents"] == N
    assert usage["phases"]["0"]["tokens"] - usage["phases"]["0"]["main"] == total
    log = [json.loads(ln) for ln in (root / ".agents" / "subagents.jsonl").read_text().splitlines()]
    stops = [e for e in log if e["event"] == "stop"]
    assert len(stops) == N and all(e.get("recorded") is not False for e in stops)
    assert sorted(e["tokens"] for e in stops) == sorted(sum(row) for row in want)
