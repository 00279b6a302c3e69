"""``decide(state, config, now)``: the one step the orchestrator takes next, as data (pure).

The decision names the kind of step, the phase, the agents and their models, the files to read
and write, the exact ``agents-state`` command that records the step and its options, and why:
``words``, a key and the facts its sentence needs.  ``views.nextaction`` words it (the
``instructions`` of ``next --json`` and the text of ``next``), so a change of wording touches no
decision and a decision is tested without its words.  A model that follows the worded actions
literally, with nothing else in its context, completes the workflow.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents_state.config import Config
from agents_state.engine.agents import (
    AGENT_TOOL_MODELS,
    agent_tool_model,
    agents_for,
    inline_as_agent,
)
from agents_state.engine.decision import (
    BUDGET_QUESTION,
    KINDS,
    Decision,
    Note,
    Words,
    no_workflow,
    reads,
)
from agents_state.engine.ledger import phase_records
from agents_state.engine.nexttasks import tasks_action
from agents_state.engine.scoring import score_task
from agents_state.models import State
from agents_state.types import format_time
from agents_state.workflow import (
    COMPLETION_PHASE,
    SIZED_PHASE,
    SIZING_PHASE,
    TASK_PHASE,
    TEST_ANALYSIS,
    TEST_RUN,
    Phase,
    PhaseKind,
    artifact_path,
    get_phase,
)

SUMMARY_FILE = ".agents/phases/2.1-summary.md"

__all__ = [
    "AGENT_TOOL_MODELS",
    "KINDS",
    "Decision",
    "Words",
    "agent_tool_model",
    "decide",
    "inline_as_agent",
    "no_workflow",
]

_NOT_NOW = ("compact", "done", "blocked", "ask_user")  # the context's size waits for these


def decide(
    state: State,
    config: Config,
    now: datetime,
    tool_calls: int = 0,
    context_tokens: int | None = None,
    context_window: int | None = None,
    advice: bool = True,
) -> Decision:
    """The next action; ``advice=False``: the step itself, whatever a compaction would say (the
    Workflow approval judges a call printed before the tool calls since, issue 25)."""
    if not advice:
        return _decide(state, config, now, boundary_passed=state.compaction.pending is not None)
    action = _decide(state, config, now)
    if action.kind == "compact" and state.compaction.pending:
        action = _at_boundary(state, config, now, action, context_tokens, context_window)
    comp = config.compaction
    window = comp.contextWindowTokens or context_window or 200_000  # issue 24
    full = window * comp.contextPercent // 100
    current = get_phase(state.currentPhase) if state.currentPhase else None
    if context_tokens is not None and context_tokens >= full and action.kind not in _NOT_NOW:
        facts = {
            "tokens": context_tokens,
            "percent": round(100 * context_tokens / window),
            "window": window,
            "advice": comp.contextPercent,
        }
        return Decision(
            "compact",
            current,
            ("compact_tokens", facts),
            "agents-state compact",
            contextTokens=context_tokens,
            contextWindow=window,
        )
    # the count of tool calls stands in for a size nobody measured, never overrides one (issue 33)
    limit = comp.toolCallThreshold
    if context_tokens is None and tool_calls >= limit and action.kind not in _NOT_NOW:
        return Decision(
            "compact",
            current,
            ("compact_calls", {"calls": tool_calls, "limit": limit}),
            "agents-state compact",
            toolCalls=tool_calls,
        )
    return action


def _at_boundary(
    state: State,
    config: Config,
    now: datetime,
    action: Decision,
    tokens: int | None,
    window: int | None,
) -> Decision:
    """At a compaction point: ask for ``/compact`` when it helps, else go on (issue 27)."""
    from agents_state.engine.compaction import helps, usage

    boundary = state.compaction.pending
    found = usage(config.compaction, tokens, window)
    if helps(found):
        action.words = ("compact_pending", {"boundary": boundary, "usage": found})
        action.extra["compaction"] = {"after": boundary, "needed": True, **(found or {})}
        return action
    onward = _decide(state, config, now, boundary_passed=True)
    onward.extra["compaction"] = {"after": boundary, "needed": False, **(found or {})}
    return onward


def _decide(state: State, config: Config, now: datetime, boundary_passed: bool = False) -> Decision:
    if state.abortedAt:
        return Decision("done", None, ("aborted", {}), 'agents-state dispatch --replace "<task>"')
    if state.status == "completed":
        return Decision("done", None, ("completed", {"state": state}), None)
    phase = get_phase(state.currentPhase) if state.currentPhase else None
    if state.gate is not None:  # issue 36: only a person answers; the model tells the user
        from agents_state.engine.gatewait import gate_decision

        return gate_decision(state)
    if state.status in ("failed", "blocked"):
        return _ask_options(state, phase)
    if state.status == "stopped":
        return Decision(
            "blocked",
            phase,
            ("stopped", {}),
            "agents-state resume --retry",
            reason="stopped on request",
        )
    if state.clarify is not None:
        return Decision(
            "ask_user",
            phase,
            ("clarify", {}),
            'agents-state resume --answer "<the user\'s answer>"',
            questions=list(state.clarify.questions),
        )
    if state.compaction.pending and not boundary_passed:
        return Decision(
            "compact",
            phase,
            ("compact_pending", {"boundary": state.compaction.pending}),
            "agents-state compact",
        )
    if phase is None:
        return Decision(
            "blocked", None, ("no_phase", {}), "agents-state resume", reason="no current phase"
        )
    if phase.kind is PhaseKind.TASKS:
        return tasks_action(state, config, phase, now)
    return _phase_action(state, config, phase, now)


def _ask_options(state: State, phase: Phase | None) -> Decision:
    """Failed or blocked: only a person decides; the model asks and acts on the answer only."""
    from agents_state.engine.resume import options

    reason = (state.failure.error if state.failure else None) or state.blockedReason or state.status
    opts = options(state, phase.id if phase else None)
    return Decision(
        "ask_user",
        phase,
        ("ask_options", {"status": state.status, "reason": reason}),
        None,
        reason=reason,
        options=opts,
    )


def _rework_notes(state: State, phase: Phase) -> tuple[list[Note], list[str]]:
    """When a review sent the work back, or the user answered a question, say so."""
    notes: list[Note] = []
    files = []
    from agents_state.workflow import PHASES

    for p in PHASES:
        if p.reviews == phase.id and state.phase(p.id).reviewRounds > 0:
            notes.append(("review_found", {"review": p.id, "artifact": p.artifact}))
            files.append(f".agents/phases/{p.artifact}")
    answered = [c for c in state.clarifications if c.answer and c.questions != [BUDGET_QUESTION]]
    for c in answered[-3:]:
        notes.append(("user_answered", {"questions": list(c.questions), "answer": c.answer}))
    from agents_state.engine.gatewait import last_answer

    rejected = last_answer(state, phase.id)
    if rejected is not None and rejected.verdict == "rejected":  # issue 36: the person's note
        notes.append(("gate_rejected", {"by": rejected.by, "note": rejected.note or ""}))
    notes.extend(_earlier_outcomes(state, phase))
    error = state.phase(phase.id).error
    if error:
        notes.append(("attempt_failed", {"error": error}))
    return notes, files


def _earlier_outcomes(state: State, phase: Phase) -> list[Note]:
    """Skipped tasks, skipped phases and failing tests that later phases must know about."""
    from agents_state.workflow import PHASE_INDEX

    notes: list[Note] = []
    after_tasks = PHASE_INDEX[phase.id] > PHASE_INDEX[TASK_PHASE]
    tasks = state.phase(TASK_PHASE).tasks or {}
    skipped = [t for t, s in tasks.items() if s.status == "skipped"]
    if after_tasks and skipped:
        notes.append(("tasks_skipped", {"tasks": skipped}))
    if after_tasks and any(s.summary or s.result for s in tasks.values()):
        notes.append(("task_summaries", {"file": SUMMARY_FILE}))
    run = state.phase(TEST_RUN)
    if phase.id == TEST_ANALYSIS and run.passed is False:
        notes.append(("tests_failed", {}))
    elif PHASE_INDEX[phase.id] > PHASE_INDEX[TEST_ANALYSIS] and run.skippedByUser:
        notes.append(("tests_accepted", {}))
    return notes


def _phase_action(state: State, config: Config, phase: Phase, now: datetime) -> Decision:
    write = artifact_path(phase.id)
    command = f"agents-state phase complete {phase.id} --artifact {write}"
    notes, extra_reads = _rework_notes(state, phase)
    if state.git is not None:  # after 2.1 the work is the integration branch (issue 22)
        from agents_state.engine.mergeaction import merged_notes

        notes += merged_notes(state, config.stages.FINAL.git.workflow, phase.id)
    read = reads(state, phase) + extra_reads
    facts: dict[str, Any] = {"task": state.task, "instructions": phase.instructions}
    retry_at = state.phase(phase.id).retryAt
    if retry_at and retry_at > format_time(now):
        return Decision(
            "wait",
            phase,
            ("phase_wait", {"phase": phase.id, "notes": notes}),
            "agents-state next",
            until=retry_at,
        )
    if phase.id == SIZING_PHASE and config.stages.PLAN.planning.mode != "single":
        # issue 27: the flag is on the command itself, with the estimate as its value, so the
        # command runs as printed; the brainstorm's own count replaces it
        estimate, _model_name = _agent_plan(state, config, get_phase(SIZED_PHASE))
        command += f" --plan-agents {estimate}"
        most = config.stages.PLAN.planning.maxParallelAgents
        notes = [("plan_agents", {"most": most, "estimate": estimate}), *notes]
    facts["notes"] = notes
    as_agent = inline_as_agent(config, phase.id)
    if as_agent is not None:
        facts["agents"] = agents_for(1, as_agent[0], as_agent[1])
        return Decision(
            "dispatch_agents",
            phase,
            ("phase_as_agent", facts),
            command,
            read=read,
            write=write,
            agents=facts["agents"],
        )
    if phase.kind is PhaseKind.AGENTS:
        count, model = _agent_plan(state, config, phase)
        agents = agents_for(count, phase.agent_type, model)
        answered = len(phase_records(state, phase.id))
        facts.update(agents=agents, answered=answered)
        return Decision(
            "dispatch_agents",
            phase,
            ("phase_agents", facts),
            command,
            read=read,
            write=write,
            agents=agents,
            answered=answered,
        )
    if phase.kind is PhaseKind.REVIEW:
        review = config.review_for(phase.id)
        facts.update(
            severity=review.blockingSeverity, agents=agents_for(1, "reviewer", review.tool)
        )
        return Decision(
            "review",
            phase,
            ("review", facts),
            command,
            read=read,
            write=write,
            agents=facts["agents"],
        )
    if phase.id == TEST_RUN and config.stages.TEST.commands:
        facts["names"] = list(config.stages.TEST.commands)
        return Decision(  # no write: the engine writes 3.1's results itself (issue 27)
            "run_commands",
            phase,
            ("run_tests", facts),
            "agents-state phase run 3.1",
            read=read,
            write=None,
        )
    if phase.id == TEST_RUN:
        return Decision("run_commands", phase, ("tests_by_hand", facts), command, read, write)
    if phase.id == COMPLETION_PHASE:
        git = config.stages.FINAL.git
        facts.update(workflow=git.workflow, exclude=list(git.excludePatterns))
        return Decision(
            "run_commands",
            phase,
            ("completion", facts),
            command,
            read=read,
            write=write,
            excludePatterns=list(git.excludePatterns),
        )
    return Decision("work_inline", phase, ("inline", facts), command, read=read, write=write)


def _agent_plan(state: State, config: Config, phase: Phase) -> tuple[int, str]:
    stages = config.stages
    if phase.id == SIZED_PHASE:
        plan = stages.PLAN.planning
        model = plan.model or config.defaults.model
        if plan.mode == "single":
            return 1, model
        cap = plan.maxParallelAgents
    else:
        model = stages.EXPLORE.model or config.defaults.model
        cap = stages.EXPLORE.maxParallelAgents
    stored = state.phase(phase.id).agentCount
    count = stored if stored else score_task(state.task, cap).count
    return min(count, cap), model
