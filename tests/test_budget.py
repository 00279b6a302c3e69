"""Issue 24, budgets: a wave or fan-out that would start over budget asks the user; the answer
(raise, go on once, stop) is recorded like every other answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clitools import DATA, cli_json, run_cli, walk_to, wave_of

from agents_state.usage.record import record_agent

AGENT = DATA / "usage" / "agent.jsonl"
AGENT_TOKENS = 100_020  # the three responses of the recorded sub-agent (test_usage checks it)


def configure(root: Path, budget: dict[str, Any]) -> None:
    (root / ".agents" / "config.json").write_text(json.dumps({"budget": budget}))


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def spend(root: Path, agent: str = "a1") -> None:
    """One plan agent's recorded transcript booked on the current phase."""
    entry = record_agent(str(root), state(root), agent, "subagents:plan-agent", str(AGENT))
    assert entry is not None


def test_a_dispatch_says_what_is_left(root: Path) -> None:
    walk_to(root, "1.2")
    configure(root, {"maxTokens": 1_000_000})
    spend(root)
    action = cli_json(root, "next")
    assert action["kind"] == "dispatch_agents"
    assert action["budget"] == {
        "usedTokens": AGENT_TOKENS,
        "maxTokens": 1_000_000,
        "leftTokens": 1_000_000 - AGENT_TOKENS,
        "percent": 10,
    }
    assert action["instructions"].endswith(
        f"Token budget: {AGENT_TOKENS} of 1000000 used, {1_000_000 - AGENT_TOKENS} left."
    )


def test_a_warning_at_80_percent(root: Path) -> None:
    walk_to(root, "1.2")
    configure(root, {"maxTokens": 120_000})
    spend(root)
    action = cli_json(root, "next")
    assert action["kind"] == "dispatch_agents"
    assert action["instructions"].endswith(" Warning: 83% of the token budget is spent.")


def test_no_budget_no_change(root: Path) -> None:
    walk_to(root, "1.2")
    spend(root)
    action = cli_json(root, "next")
    assert "budget" not in action and "Token budget" not in action["instructions"]


def test_over_budget_asks_and_each_answer_is_recorded(root: Path) -> None:
    walk_to(root, "1.2")
    configure(root, {"maxTokens": 100_000})
    spend(root)
    ask = cli_json(root, "next")
    assert ask["kind"] == "ask_user" and ask["phase"] == "1.2"
    assert ask["reason"] == "the workflow's token budget is spent (100020 of 100000 tokens used)"
    assert [o["command"] for o in ask["options"]] == [
        "agents-state budget --raise 200000",
        "agents-state budget --once",
        "agents-state stop",
    ]
    assert ask["dispatch"] == "1.2"
    text = run_cli(root, "next").stdout
    assert "Not dispatched: the workflow's token budget is spent" in text
    # go on once: this fan-out starts, the next one asks again
    out = run_cli(root, "budget", "--once")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("budget answer recorded: go on once over the token budget (1.2)")
    go = cli_json(root, "next")
    assert go["kind"] == "dispatch_agents" and go["phase"] == "1.2"
    assert go["instructions"].endswith(
        f"run the command. Token budget: {AGENT_TOKENS} of 100000 used, 0 left. The budget is "
        "spent; the user chose to go on once with this dispatch."
    )  # the budget answer is no note for the agents
    assert go["budget"]["overOnce"] is True
    proc = run_cli(root, "phase", "complete", "1.2", "--artifact", "-", stdin="plan")
    assert proc.returncode == 0, proc.stderr
    again = cli_json(root, "next")
    assert (again["kind"], again["phase"], again["dispatch"]) == ("ask_user", "1.3", "1.3")
    # raise: goes on with what is left
    out = run_cli(root, "budget", "--raise", "300000")
    assert out.returncode == 0, out.stderr
    review = cli_json(root, "next")
    assert review["kind"] == "review" and review["budget"]["leftTokens"] == 300_000 - AGENT_TOKENS
    answers = [c["answer"] for c in state(root)["clarifications"]]
    assert answers == [
        "go on once over the token budget (1.2)",
        "raise the workflow token budget to 300000",
    ]
    assert state(root)["budget"] == {"maxTokens": 300000, "stages": {}, "allowOnce": "1.2"}
    shown = run_cli(root, "budget")
    assert shown.stdout == f"{AGENT_TOKENS} of 300000 tokens used, {300_000 - AGENT_TOKENS} left\n"


def test_stop_is_the_third_answer(root: Path) -> None:
    walk_to(root, "1.2")
    configure(root, {"maxTokens": 1000})
    spend(root)
    assert cli_json(root, "next")["kind"] == "ask_user"
    assert run_cli(root, "stop").returncode == 0
    assert state(root)["status"] == "stopped"


def test_a_stage_budget(root: Path) -> None:
    walk_to(root, "1.2")
    configure(root, {"stages": {"PLAN": 50_000, "IMPLEMENT": 10}})
    spend(root)
    ask = cli_json(root, "next")
    assert ask["kind"] == "ask_user"
    assert ask["reason"] == "stage PLAN's token budget is spent (100020 of 50000 tokens used)"
    assert ask["options"][0]["command"] == "agents-state budget --raise 125021 --stage PLAN"
    assert run_cli(root, "budget", "--raise", "125021", "--stage", "PLAN").returncode == 0
    go = cli_json(root, "next")
    assert go["kind"] == "dispatch_agents"
    assert go["budget"]["stage"] == {
        "name": "PLAN",
        "maxTokens": 125_021,
        "usedTokens": AGENT_TOKENS,
        "leftTokens": 125_021 - AGENT_TOKENS,
    }


def test_a_started_wave_is_not_held_back(root: Path) -> None:
    ids = wave_of(root, 3)
    configure(root, {"maxTokens": 10})
    spend(root)
    assert cli_json(root, "next")["kind"] == "ask_user"
    assert run_cli(root, "task", "claim", ids[0], "--agent", "w").returncode == 0
    # the wave started before the budget ran out: its other tasks still go
    action = cli_json(root, "next")
    assert action["kind"] == "dispatch_agents" and action["wave"] == 1


def test_once_with_nothing_held_back_is_refused(root: Path) -> None:
    walk_to(root, "1.2")
    configure(root, {"maxTokens": 1_000_000})
    before = (root / ".agents" / "state.json").read_bytes()
    out = run_cli(root, "budget", "--once")
    assert out.returncode == 4  # a refused transition
    assert out.stderr == (
        "agents-state: error: budget is not spent: cannot go on once (no dispatch is waiting "
        "on the budget)\n"
    )
    assert (root / ".agents" / "state.json").read_bytes() == before


def test_bad_budgets_are_refused_with_the_field(root: Path) -> None:
    walk_to(root, "0")
    for budget, problem in (
        ({"maxTokens": 0}, "budget.maxTokens: must be a number of tokens of at least 1 (got 0)"),
        (
            {"stages": {"PLN": 5}},
            "budget.stages: unknown stage 'PLN'; use one of EXPLORE, PLAN, IMPLEMENT, TEST, FINAL",
        ),
        (
            {"warnPercent": 120},
            "budget.warnPercent: Input should be less than or equal to 100 (got 120)",
        ),
    ):
        configure(root, budget)
        out = run_cli(root, "config", "validate")
        assert out.returncode == 5
        assert out.stderr == f"agents-state: error: .agents/config.json: {problem}\n"
    for args, msg in (
        (("--once", "--raise", "5"), "--raise cannot be combined with --once"),
        (("--stage", "PLAN"), "--stage needs --raise TOKENS"),
    ):
        (root / ".agents" / "config.json").unlink(missing_ok=True)
        out = run_cli(root, "budget", *args)
        assert out.returncode == 2 and msg in out.stderr
