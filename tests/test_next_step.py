"""Issue 35, item 1: ``engine.next_step`` decides the whole step, gates and refusals included;
the costly facts are asked only when a gate needs them, and ``views`` only renders."""

from __future__ import annotations

from typing import Any

from test_waves import T0

from agents_state import engine
from agents_state.config import Config
from agents_state.engine import events as ev
from agents_state.engine.phases import new_state
from agents_state.engine.step import Facts
from agents_state.models import State
from agents_state.views.nextaction import render, with_refusals


def _state() -> State:
    return new_state(ev.Start(task="add a login page", agent_counts={"0": 3}), T0)


class Asked:
    """The costly facts, each counting its calls."""

    def __init__(self, calls: list[dict[str, Any]] | None = None) -> None:
        self.asked: list[str] = []
        self.calls = calls or []

    def usage(self) -> tuple[int, dict[str, int]]:
        self.asked.append("usage")
        return 900, {"DISCOVER": 900}

    def refusals(self, since: str | None) -> list[dict[str, Any]]:
        self.asked.append(f"refusals since {since}")
        return self.calls

    def codex(self) -> str | None:
        self.asked.append("codex")
        return None

    def facts(self) -> Facts:
        return Facts(usage=self.usage, refusals=self.refusals, codex=self.codex)


def test_a_step_with_no_gate_asks_for_no_costly_fact() -> None:
    asked = Asked()
    d = engine.next_step(_state(), Config(), T0, asked.facts())
    assert (d.kind, d.words[0], d.refusals) == ("dispatch_agents", "phase_agents", None)
    assert asked.asked == []


def test_a_budget_reads_the_usage_and_says_what_is_left() -> None:
    asked = Asked()
    config = Config.model_validate({"budget": {"maxTokens": 1000}})
    d = engine.next_step(_state(), config, T0, asked.facts())
    assert asked.asked == ["usage"]
    assert d.extra["budget"]["leftTokens"] == 100 and d.extra["budget"]["warning"] == 90


REFUSED = [
    {"at": "x", "tool": "Bash", "target": "npm test", "rule": '"Bash(npm test)"', "rules": ["r"]},
    {
        "at": "y",
        "tool": "Write",
        "target": "/p/src/a.py",
        "rule": '"Write(src/**)"',
        "rules": ["r"],
        "agentType": "subagents:task-agent",
        "agent": "a1",
    },
    {"at": "z", "tool": "Bash", "target": "npm test", "rule": '"Bash(npm test)"', "rules": ["r"]},
]


def test_a_blocked_steps_refusals_are_part_of_the_decision_one_per_rule() -> None:
    state = _state()
    state.status = "blocked"
    asked = Asked(REFUSED)
    d = engine.next_step(state, Config(), T0, asked.facts())
    assert d.kind == "ask_user" and d.refusals is not None
    assert asked.asked == [f"refusals since {state.phase('0').startedAt}"]
    assert d.refusals.calls == REFUSED
    rules = [(r.tool, r.target, r.agent_type, r.agent, r.rule) for r in d.refusals.rules]
    assert rules == [
        ("Write", "/p/src/a.py", "subagents:task-agent", "a1", '"Write(src/**)"'),
        ("Bash", None, None, None, '"Bash(npm test)"'),  # its newest call; a rule names it
    ]
    out = with_refusals(render(d), d.refusals, "/p")
    assert out["reason"].endswith(
        '\n- Write src/a.py (subagents:task-agent a1): allow "Write(src/**)"'
        '\n- Bash (orchestrator): allow "Bash(npm test)"'
    )
    assert out["refusals"] == REFUSED


def test_no_refusal_of_the_step_leaves_the_question_as_it_is() -> None:
    state = _state()
    state.status = "failed"
    d = engine.next_step(state, Config(), T0, Asked().facts())
    assert d.kind == "ask_user" and d.refusals is None


def test_the_engine_names_each_prompt_and_the_view_writes_it() -> None:
    """Issue 35: the decision holds a ``Prompt`` (which brief, its facts), never the text."""
    from test_waves import _at_tasks

    from agents_state.engine.fanout import Prompt

    d = engine.next_step(_at_tasks({"a": [], "b": []}), Config(), T0, Facts(native=True))
    call = d.extra["workflow"]["args"]["agents"]
    assert [type(a["prompt"]) for a in call] == [Prompt, Prompt]
    assert [t["prompt"].kind for t in d.extra["tasks"]] == ["agent_task", "agent_task"]
    shown = render(d)
    first = shown["workflow"]["args"]["agents"][0]["prompt"]
    assert first.startswith("[agents-state fanout 2.1-w1 agent a]\n")
    assert "agents-state task start a" in shown["tasks"][0]["prompt"]
