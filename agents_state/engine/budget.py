"""Token budgets (issue 24, pure): what is left before a dispatch, and the user's answers.

``budget.maxTokens`` limits the workflow, ``budget.stages.<STAGE>`` a stage; tokens are the
usage the hooks booked from the host's transcripts (``usage/``).  Before a wave or a fan-out
(a ``dispatch_agents`` or ``review`` action that has not started yet) the next action says what
is left; one that would start with a budget spent is not dispatched: the next action is
``ask_user`` with three options, raise the budget, go on once, stop.  The answer is an event
(``BudgetAnswer``), recorded with the other answers in ``clarifications``.  Past
``budget.warnPercent`` (80) the action carries a warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents_state.engine import events as ev
from agents_state.engine.context import Ctx, Outcome
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import BudgetState, Clarification, State
from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:  # the decision code loads for the next action, not for a transition
    from agents_state.config import Config
    from agents_state.engine.decision import Decision

__all__ = [
    "answer_budget",
    "budget_gate",
    "dispatch_key",
    "limits",
]

DISPATCH_KINDS = ("dispatch_agents", "review")


def limits(state: State, config: Config) -> tuple[int | None, dict[str, int]]:
    """The workflow's limit and the stages' limits, the user's answers over the config."""
    b = state.budget
    total = b.maxTokens if b and b.maxTokens else config.budget.maxTokens
    stages = {**config.budget.stages, **(b.stages if b else {})}
    return total, stages


def dispatch_key(d: Decision) -> str:
    """The dispatch an answer "go on once" lets through: a phase, or one wave of 2.1."""
    wave = d.extra.get("wave")
    phase = d.phase.id if d.phase else "-"
    return f"{phase} wave {wave}" if wave else phase


def _started(state: State, d: Decision) -> bool:
    """A fan-out whose agents already answered, or a wave with a task under way or done."""
    if d.extra.get("answered"):
        return True
    wave = d.extra.get("wave")
    if d.phase is None or d.phase.id != TASK_PHASE or not wave:
        return False
    ph = state.phase(TASK_PHASE)
    waves, tasks = ph.waves or [], ph.tasks or {}
    idx = int(wave) - 1
    if not 0 <= idx < len(waves):
        return False
    return any(tasks[t].status != "pending" for t in waves[idx].tasks if t in tasks)


def _over(
    used: int, stage_used: dict[str, int], total: int | None, stages: dict[str, int], stage: str
) -> tuple[str, int, int] | None:
    """``(what, limit, used)`` of the first budget spent, else ``None``."""
    if total is not None and used >= total:
        return "workflow", total, used
    if stage in stages and stage_used.get(stage, 0) >= stages[stage]:
        return stage, stages[stage], stage_used.get(stage, 0)
    return None


def budget_gate(
    state: State, config: Config, d: Decision, used: int, stage_used: dict[str, int]
) -> Decision:
    """The decision with what is left (``budget``), or ``ask_user`` when it would start over
    a budget."""
    total, stages = limits(state, config)
    if d.kind not in DISPATCH_KINDS or d.phase is None:
        return d
    stage = d.phase.stage
    if total is None and stage not in stages:
        return d
    info: dict[str, Any] = {"usedTokens": used}
    percents = []
    if total is not None:
        info.update(maxTokens=total, leftTokens=max(0, total - used))
        info["percent"] = round(100 * used / total)
        percents.append(info["percent"])
    if stage in stages:
        s_used = stage_used.get(stage, 0)
        info["stage"] = {
            "name": stage,
            "maxTokens": stages[stage],
            "usedTokens": s_used,
            "leftTokens": max(0, stages[stage] - s_used),
        }
        percents.append(round(100 * s_used / stages[stage]))
    over = _over(used, stage_used, total, stages, stage)
    key = dispatch_key(d)
    allowed = state.budget is not None and state.budget.allowOnce == key
    if over is not None and not allowed and not _started(state, d):
        return _ask(d, info, over, key)
    if over is not None and allowed:
        info["overOnce"] = True
    elif max(percents) >= config.budget.warnPercent:
        info["warning"] = max(percents)
    d.extra["budget"] = info
    return d


def _ask(d: Decision, info: dict[str, Any], over: tuple[str, int, int], key: str) -> Decision:
    from agents_state.engine.decision import BUDGET_QUESTION, Decision

    what, limit, used = over
    scope = "the workflow's" if what == "workflow" else f"stage {what}'s"
    stage_opt = f" --stage {what}" if what != "workflow" else ""
    suggested = max(limit * 2, used + limit // 2 + 1)
    reason = f"{scope} token budget is spent ({used} of {limit} tokens used)"
    options = [
        {
            "option": "raise",
            "command": f"agents-state budget --raise {suggested}{stage_opt}",
            "effect": f"raise {scope} budget to the number given (here {suggested}) and go on",
        },
        {
            "option": "once",
            "command": "agents-state budget --once",
            "effect": f"start this dispatch ({key}) over the budget; the next one asks again",
        },
        {
            "option": "stop",
            "command": "agents-state stop",
            "effect": "stop the workflow here; resume later with: agents-state resume --retry",
        },
    ]
    return Decision(
        "ask_user",
        d.phase,
        ("budget_spent", {"reason": reason, "key": key}),
        None,
        reason=reason,
        options=options,
        questions=[BUDGET_QUESTION],
        budget=info,
        dispatch=key,
    )


def answer_budget(c: Ctx, e: ev.BudgetAnswer) -> Outcome:
    """Record the user's answer: a raised limit or one dispatch allowed over it."""
    from agents_state.engine.decision import BUDGET_QUESTION

    state, ts = c.state, c.ts
    b = state.budget or BudgetState()
    if e.choice == "raise":
        if e.max_tokens is None or e.max_tokens < 1:
            raise TransitionNotAllowedError("budget", "spent", "raise", hint="give a number")
        if e.stage:
            b.stages[e.stage] = e.max_tokens
        else:
            b.maxTokens = e.max_tokens
        text = f"raise the {e.stage or 'workflow'} token budget to {e.max_tokens}"
    elif e.choice == "once":
        if not e.key:
            raise TransitionNotAllowedError(
                "budget", "not spent", "go on once", hint="no dispatch is waiting on the budget"
            )
        b.allowOnce = e.key
        text = f"go on once over the token budget ({e.key})"
    else:
        raise TransitionNotAllowedError("budget", "spent", e.choice)
    state.budget = b
    state.clarifications.append(
        Clarification(
            questions=[BUDGET_QUESTION],
            phase=state.currentPhase,
            askedAt=ts,
            answer=text,
            answeredAt=ts,
        )
    )
    return Outcome(state, f"budget answer recorded: {text}; continue with: agents-state next")
