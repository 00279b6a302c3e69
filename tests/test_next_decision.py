"""Issue 26: the next action is decided by the engine as data and worded by ``views/``; the
decision is tested here without its words, and every sentence the engine can ask for exists."""

from __future__ import annotations

import re
from pathlib import Path

from test_waves import T0, _at_tasks

from agents_state.config import Config
from agents_state.engine.nextaction import decide
from agents_state.views import nextaction as words

ENGINE = Path(__file__).resolve().parent.parent / "agents_state" / "engine" / "nextaction.py"
MERGES = ENGINE.with_name("mergeaction.py")  # the merge and resolve steps (issue 22)
BUDGET = ENGINE.with_name("budget.py")  # the budget's question (issue 24)
NATIVE = ENGINE.with_name("native.py")  # a fan-out as one Workflow call (issue 25)
TASKS = ENGINE.with_name("nexttasks.py")  # phase 2.1's steps
DECISION = ENGINE.with_name("decision.py")  # the decision as data (``no_workflow``)
GATES = ENGINE.with_name("gatewait.py")  # a person's gate (issue 36)


def test_a_wave_is_decided_without_words() -> None:
    d = decide(_at_tasks({"a": [], "b": [], "c": ["a"]}), Config(), T0)
    assert (d.kind, d.phase.id if d.phase else None, d.words) == (
        "dispatch_agents",
        "2.1",
        ("wave", {"wave": 1}),
    )
    assert d.agents is not None and d.agents["count"] == 2
    assert [t["id"] for t in d.extra["tasks"]] == ["a", "b"]
    assert d.command == "agents-state task done <task-id> --summary '<one line>'"


def test_the_context_size_turns_any_step_into_compact() -> None:
    d = decide(_at_tasks({"a": []}), Config(), T0, context_tokens=10**9)
    assert d.kind == "compact" and d.words[0] == "compact_tokens"
    assert d.extra == {"contextTokens": 10**9, "contextWindow": 200_000}


def test_every_sentence_the_engine_asks_for_is_worded_and_no_other() -> None:
    source = "".join(
        p.read_text(encoding="utf-8")
        for p in (ENGINE, BUDGET, MERGES, NATIVE, TASKS, DECISION, GATES)
    )
    asked = set(re.findall(r'\("([a-z_]+)", (?:\{|facts\))', source))
    assert asked == set(words._WORDS) | set(words._NOTES)
    assert set(words._WORDS).isdisjoint(words._NOTES)
