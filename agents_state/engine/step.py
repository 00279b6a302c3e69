"""``next_step(state, config, now, facts)``: the whole next step as a ``Decision`` (pure).

``engine.nextaction.decide`` chooses the workflow's step; this adds what applies to it: a review
by a Codex model (``engine.codexreview``), the token budgets (``engine.budget``), the fan-out as
the host's Workflow (``engine.native``) and, for a blocked or failed workflow's question, the
host's refusals of the step with the rule each needs.  What the engine cannot know by itself
comes in ``Facts``: what the shell measured or read (the context's size, the tool calls, the
usage book, the refusals file, the installed Codex, the fan-out path).  The costly facts are
functions the engine calls only when a gate applies, so that ``next`` reads the usage book, the
refusals or runs ``codex --version`` only when the step needs them.  ``views/`` renders the
decision (``views.nextaction.render``); no choice is made there.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agents_state.engine.decision import Decision, Refusals, Refused, no_workflow
from agents_state.engine.nextaction import decide

if TYPE_CHECKING:
    from agents_state.config import Config
    from agents_state.models import State

__all__ = ["Facts", "next_step", "refused_rules"]

Usage = tuple[int, dict[str, int]]  # tokens used by the workflow, and by stage


class Facts:
    """What the shell knows about this step and the engine cannot: ``context_tokens`` and
    ``context_window`` (the main conversation's size, when known), ``tool_calls`` (since the
    last compaction), ``usage`` (the tokens booked, for the budgets), ``refusals`` (the host's
    refused calls recorded since a time, ISO), ``codex`` (the installed Codex CLI's version,
    None when none can review), ``native`` (fan-outs run as the host's Workflow) and ``advice``
    (False leaves out the compaction advice: the Workflow approval judges a call printed before
    the tool calls since).  The costly ones are functions, called only when a gate needs them."""

    __slots__ = (
        "advice",
        "codex",
        "context_tokens",
        "context_window",
        "native",
        "refusals",
        "tool_calls",
        "usage",
    )

    def __init__(
        self,
        *,
        tool_calls: int = 0,
        context_tokens: int | None = None,
        context_window: int | None = None,
        usage: Callable[[], Usage] | None = None,
        refusals: Callable[[str | None], list[dict[str, Any]]] | None = None,
        codex: Callable[[], str | None] | None = None,
        native: bool = False,
        advice: bool = True,
    ) -> None:
        self.tool_calls, self.context_tokens, self.context_window = (
            tool_calls,
            context_tokens,
            context_window,
        )
        self.usage, self.refusals, self.codex = usage, refusals, codex
        self.native, self.advice = native, advice

    def __repr__(self) -> str:
        return f"Facts({', '.join(f'{k}={getattr(self, k)!r}' for k in self.__slots__)})"


def next_step(state: State | None, config: Config, now: datetime, facts: Facts) -> Decision:
    """The next step, every gate applied; ``no_workflow`` without a state."""
    if state is None:
        return no_workflow()
    f = facts
    d = decide(state, config, now, f.tool_calls, f.context_tokens, f.context_window, f.advice)
    if d.words[0] == "review" and d.agents and d.agents["model"].startswith("codex-"):
        from agents_state.engine.codexreview import codex_step  # issue 37

        d = codex_step(d, config, f.codex() if f.codex else None)
    if f.usage is not None and (config.budget.maxTokens or config.budget.stages or state.budget):
        from agents_state.engine.budget import budget_gate  # issue 24

        used, by_stage = f.usage()
        d = budget_gate(state, config, d, used, by_stage)
    if f.native and d.words[0] in ("phase_agents", "review", "wave"):
        from agents_state.engine.native import native_decision  # issue 25

        d = native_decision(state, d)
    if d.kind == "ask_user" and state.status in ("blocked", "failed") and f.refusals:
        phase = state.phase(state.currentPhase) if state.currentPhase else None
        calls = f.refusals(phase.startedAt if phase else None)  # the refusals of this step
        if calls:
            d.refusals = Refusals(calls, refused_rules(calls))
    return d


def refused_rules(calls: list[dict[str, Any]]) -> list[Refused]:
    """One entry per rule (a person's decision: per rule and call), from its newest call."""
    rules: dict[str, Refused] = {}
    for r in reversed(calls):
        person = not r.get("rules")  # a person's decision: named by its call
        key = f"{r['rule']} {r.get('target')}" if person else r["rule"]
        if key in rules:
            continue
        shown = r.get("target") if person or r.get("tool") != "Bash" else None
        agent = r.get("agent")
        rules[key] = Refused(
            str(r["tool"]),
            shown,
            r.get("agentType"),
            None if agent in (None, "main") else str(agent),
            r["rule"],
            person,
        )
    return list(reversed(rules.values()))
