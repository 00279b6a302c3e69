"""Workflow events (pure; handlers called by ``engine.apply``): stop, retry, skip, abort,
compact, block, clarify, answer.  Phase statuses come from ``engine.table``."""

from __future__ import annotations

from agents_state.engine import events as ev
from agents_state.engine.advance import advance
from agents_state.engine.context import Ctx, Handlers, Outcome, check_phase_id
from agents_state.engine.table import phase_target, workflow_target
from agents_state.engine.tasks import release_running_tasks, retry_failed_tasks, skip_failed_tasks
from agents_state.errors import NotFoundError, TransitionNotAllowedError
from agents_state.models import Clarification, State
from agents_state.workflow import TEST_RUN, PhaseKind, get_phase

__all__ = ["HANDLERS"]

HANDLERS = Handlers()  # the resume and workflow moves; ``phases`` adds the phase events


@HANDLERS.on(ev.Stop)
def _stop(c: Ctx, e: ev.Stop) -> Outcome:
    state, _ts = c.state, c.ts
    if state.stopRequested or state.status == "stopped":
        return Outcome(state, "stop already requested", changed=False)
    current = state.phase(state.currentPhase) if state.currentPhase else None
    if current is None or current.status == "pending":
        # nothing recorded as started: stop now, but a step already in flight (the model need
        # not run `phase start`) can still be recorded with `phase complete|fail|run`
        state.status = workflow_target(state.status, "stop", "nothing_started")
        state.stopRequested = True
        return Outcome(
            state,
            f"workflow stopped at phase {state.currentPhase}: nothing new "
            "starts; a step already in flight can still be recorded",
        )
    state.stopRequested = True
    return Outcome(state, f"workflow will stop after phase {state.currentPhase}")


@HANDLERS.on(ev.Retry)
def _retry(c: Ctx, e: ev.Retry) -> Outcome:
    state, _ts = c.state, c.ts
    pid = _resume_phase(state)
    phase = state.phase(pid)
    message = f"workflow resumed at phase {pid}"
    if state.status == "in_progress" and phase.status == "in_progress":
        # the process driving it died: run the current step again
        if get_phase(pid).kind is PhaseKind.TASKS and phase.tasks:
            message += release_running_tasks(state, pid)
        else:
            phase.status = phase_target(f"phase {pid}", phase.status, "retry", "driver_died")
            message = f"phase {pid} will run again"
    if pid == TEST_RUN and phase.status == "blocked" and phase.passed is False:
        from agents_state.engine.gate import retry_tests  # these load for their events only

        message = retry_tests(state)
    elif phase.status in ("failed", "blocked"):
        phase.status = phase_target(f"phase {pid}", phase.status, "retry")
        phase.reviewRounds = 0
        phase.retryAt = None
        message = f"phase {pid} will run again (attempt {phase.attempts + 1})"
    if get_phase(pid).kind is PhaseKind.TASKS and phase.tasks:
        message += retry_failed_tasks(state, pid)
    state.status, state.stopRequested = workflow_target(state.status, "retry"), False
    state.failure, state.blockedReason = None, None
    return Outcome(state, message)


@HANDLERS.on(ev.Skip)
def _skip(c: Ctx, e: ev.Skip) -> Outcome:
    state, ts = c.state, c.ts
    pid = _resume_phase(state)
    spec = get_phase(pid)
    extra = ""
    if spec.kind is PhaseKind.TASKS and state.phase(pid).tasks:
        extra, phase_done = skip_failed_tasks(state, pid, ts)
        if not phase_done:
            state.status = workflow_target(state.status, "skip")
            state.failure, state.blockedReason = None, None
            return Outcome(state, extra.lstrip("; "))
    if pid == TEST_RUN:
        from agents_state.engine.gate import skip_tests

        extra += "; " + skip_tests(state)
    phase = state.phase(pid)
    if phase.status != "skipped":  # the test gate has already skipped its run
        phase.status = phase_target(f"phase {pid}", phase.status, "skip")
    phase.skippedByUser = True
    state.status, state.stopRequested = workflow_target(state.status, "skip"), False
    state.failure, state.blockedReason = None, None
    return advance(c, pid, f"phase {pid} {spec.name} skipped{extra}")


@HANDLERS.on(ev.Abort)
def _abort(c: Ctx, e: ev.Abort) -> Outcome:
    state, ts = c.state, c.ts
    state.abortedAt = ts
    state.status = workflow_target(state.status, "abort")
    state.gate = None  # issue 36: nothing waits for a person in an aborted workflow
    return Outcome(state, "workflow aborted; every file is kept in .agents/")


def _resume_phase(state: State) -> str:
    if state.failure is not None and state.failure.phase:
        return check_phase_id(state.failure.phase)
    if state.currentPhase is None:
        raise NotFoundError("the workflow has no current phase to resume")
    return state.currentPhase


@HANDLERS.on(ev.Compact)
def _compact(c: Ctx, e: ev.Compact) -> Outcome:
    from agents_state.engine.compaction import helps

    state = c.state
    boundary = state.compaction.pending or state.currentStage or "workflow"
    state.compaction.pending = None
    if e.usage is not None and not helps(e.usage):
        u = e.usage
        state.compaction.skipped.append(boundary)
        return Outcome(
            state,
            f"no compaction needed after {boundary}: the conversation holds {u['tokens']} "
            f"tokens, {u['percent']}% of its {u['window']}-token window (advice at "
            f"{u['advice']}%); recorded as skipped; continue with: agents-state next",
        )
    state.compaction.lastCompactedAt = boundary
    state.compaction.history.append(boundary)
    return Outcome(
        state,
        f"compaction after {boundary} recorded as asked of the user (this command compacts "
        'nothing): ask the user to run /compact (under claude -p: claude -p --continue "/compact")'
        " unless they just did; afterwards continue with: agents-state context",
    )


@HANDLERS.on(ev.Block)
def _block(c: Ctx, e: ev.Block) -> Outcome:
    state, _ts = c.state, c.ts
    state.status = workflow_target(state.status, "block")
    state.blockedReason = e.reason
    return Outcome(state, f"workflow blocked: {e.reason}")


@HANDLERS.on(ev.Clarify)
def _clarify(c: Ctx, e: ev.Clarify) -> Outcome:
    state, ts = c.state, c.ts
    state.clarify = Clarification(
        questions=list(e.questions), phase=e.phase or state.currentPhase, task=e.task, askedAt=ts
    )
    return Outcome(state, f"{len(e.questions)} question(s) for the user recorded")


@HANDLERS.on(ev.Answer)
def _answer(c: Ctx, e: ev.Answer) -> Outcome:
    state, ts = c.state, c.ts
    if state.clarify is None:
        raise TransitionNotAllowedError(
            "workflow", "not waiting for an answer", "answer", hint="no open questions"
        )
    state.clarify.answer, state.clarify.answeredAt = e.text, ts
    state.clarifications.append(state.clarify)
    state.clarify = None
    return Outcome(state, "answer recorded; the step runs again with it")


@HANDLERS.on(ev.BudgetAnswer)
def _budget_answer(c: Ctx, e: ev.BudgetAnswer) -> Outcome:
    """The user's answer to a spent budget (issue 24)."""
    from agents_state.engine.budget import answer_budget

    return answer_budget(c, e)
