"""The phase events' handlers (pure): a phase starts, completes (a review's blocking issues send
the work back) or fails.  Each registers on ``flow.HANDLERS``; ``phases.apply`` runs them and
every status they write is read from ``table.PHASE_MOVES``."""

from __future__ import annotations

from agents_state.engine import events as ev
from agents_state.engine.advance import advance
from agents_state.engine.compaction import pass_boundary
from agents_state.engine.context import DONE, Ctx, Outcome, check_phase_id
from agents_state.engine.flow import HANDLERS
from agents_state.engine.gate import after_analysis, record_test_run
from agents_state.engine.retry import after_failure
from agents_state.engine.table import (
    Guard,
    phase_accepts,
    phase_allowed,
    phase_target,
    workflow_target,
)
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import (
    Failure,
    PhaseState,
    State,
)
from agents_state.workflow import (
    PHASE_IDS,
    TEST_ANALYSIS,
    TEST_RUN,
    PhaseKind,
    PhaseRole,
    get_phase,
    phases_of,
)

__all__ = ["PHASE_EVENTS"]


def _current_phase(state: State, phase_id: str, event_name: str) -> PhaseState:
    check_phase_id(phase_id)
    phase = state.phase(phase_id)
    event = event_name.replace("phase_", "")
    if state.currentPhase != phase_id and phase.status not in DONE:
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            phase.status,
            event,
            hint=f"the current phase is {state.currentPhase}",
        )
    if not phase_accepts(phase.status, event_name):
        allowed = phase_allowed(phase.status)
        hint = ""
        if phase.status in DONE and state.currentPhase != phase_id:
            hint = f"the current phase is {state.currentPhase}"
            if event == "complete":
                hint += "; repeating it with the same artifact is a no-op"
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            f"already {phase.status}" if phase.status in DONE else phase.status,
            event,
            allowed,
            hint=hint,
        )
    return phase


@HANDLERS.on(ev.PhaseStart)
def _phase_start(c: Ctx, e: ev.PhaseStart) -> Outcome:
    state, ts = c.state, c.ts
    check_phase_id(e.phase)
    phase = state.phase(e.phase)
    if phase.status == "in_progress" and state.currentPhase == e.phase:
        return Outcome(state, f"phase {e.phase} already in progress", changed=False)
    phase = _current_phase(state, e.phase, "phase_start")
    phase.status = phase_target(f"phase {e.phase}", phase.status, "phase_start")
    phase.startedAt = phase.startedAt or ts
    pass_boundary(state)
    return Outcome(state, f"phase {e.phase} {get_phase(e.phase).name} started")


@HANDLERS.on(ev.PhaseComplete)
def _phase_complete(c: Ctx, e: ev.PhaseComplete) -> Outcome:
    state, ts = c.state, c.ts
    check_phase_id(e.phase)
    spec = get_phase(e.phase)
    if (
        e.same_artifact
        and (state.currentPhase != e.phase or (state.gate and state.gate.phase == e.phase))
        and state.files.get(spec.file_key) == f".agents/phases/{spec.artifact}"
    ):
        return Outcome(
            state,
            f"phase {e.phase} {spec.name} was already recorded with this artifact; nothing changed",
            changed=False,
        )
    phase = _current_phase(state, e.phase, "phase_complete")
    if spec.kind is PhaseKind.TASKS:
        _check_tasks_done(state, e.phase)
    if e.agent_count is not None:
        phase.agentCount = e.agent_count
        if len(phases_of(spec.stage)) == 1:
            state.stages[spec.stage].agentCount = e.agent_count
    if e.next_agent_count is not None and spec.role is PhaseRole.SIZES_NEXT:
        state.phase(PHASE_IDS[PHASE_IDS.index(e.phase) + 1]).agentCount = e.next_agent_count
    if e.issues is not None:
        phase.issues = e.issues
    pass_boundary(state)
    phase.retryAt = None
    if e.phase == TEST_RUN and e.tests_passed is not None:
        return record_test_run(c, e)
    if spec.kind is PhaseKind.REVIEW and e.blocking_issues > 0:
        return _send_back(state, e, ts, c.policy.review_rounds(e.phase))
    phase.status = phase_target(f"phase {e.phase}", phase.status, "phase_complete")
    phase.startedAt = phase.startedAt or became_current(state, e.phase, ts)
    phase.completedAt = ts
    phase.error = None
    state.files[spec.file_key] = f".agents/phases/{spec.artifact}"
    message = f"phase {e.phase} {spec.name} completed"
    if e.phase == TEST_ANALYSIS:
        back = after_analysis(c, message)
        if back is not None:
            return back
    return advance(c, e.phase, message)


def became_current(state: State, phase_id: str, ts: str) -> str:
    """When a phase nobody started explicitly began: its first event is the one that made it
    current, the completion of the phase before it (the workflow's start for the first), not
    its own completion, which timed it 0 s (issue 33).  Never later than ``ts``."""
    before = PHASE_IDS[: PHASE_IDS.index(phase_id)]
    done = [t for p in before if (t := state.phase(p).completedAt) is not None]
    since = max(done, default=None) or state.startedAt or ts
    return min(since, ts)


def _check_tasks_done(state: State, phase_id: str) -> None:
    tasks = state.phase(phase_id).tasks
    if not tasks:
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            "waiting for tasks",
            "complete",
            hint="load the task definitions first: agents-state tasks load FILE",
        )
    left = [t for t, s in tasks.items() if s.status not in DONE]
    if left:
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            "running",
            "complete",
            hint=f"it completes with its last task; {len(left)} task(s) not done: "
            + ", ".join(left[:5])
            + (" ..." if len(left) > 5 else ""),
        )


def _send_back(state: State, e: ev.PhaseComplete, ts: str, max_rounds: int) -> Outcome:
    review = state.phase(e.phase)
    spec = get_phase(e.phase)
    target = spec.reviews or e.phase
    review.reviewRounds += 1
    guard: Guard = ""
    if review.reviewRounds > max_rounds:
        guard = "rounds_exhausted"
        reason = (
            f"review {e.phase} still finds {e.blocking_issues} blocking issue(s) after "
            f"{max_rounds} rework round(s); see .agents/phases/{spec.artifact}"
        )
    elif state.phase(target).status == "skipped":
        guard = "nothing_to_rework"  # sending it back would point at a phase that never runs
        reason = (
            f"review {e.phase} found {e.blocking_issues} blocking issue(s) in phase {target}, "
            f"which was skipped, so there is nothing to rework; see .agents/phases/"
            f"{spec.artifact}, then resume --retry (review again) or --skip (go on without)"
        )
    if guard:
        review.status = phase_target(f"phase {e.phase}", review.status, "phase_complete", guard)
        state.status = workflow_target(state.status, "phase_complete", guard)
        state.blockedReason = reason
        state.files[spec.file_key] = f".agents/phases/{spec.artifact}"
        return Outcome(state, f"workflow blocked: {reason}")
    if state.status == "stopped":
        state.stopRequested = False
    start, end = PHASE_IDS.index(target), PHASE_IDS.index(e.phase)
    for pid in PHASE_IDS[start : end + 1]:
        p = state.phase(pid)
        if p.status != "skipped":
            p.status = (
                phase_target(f"phase {pid}", p.status, "phase_complete", "sent_back")
                if pid == e.phase
                else phase_target(f"phase {pid}", p.status, "send_back")
            )
            p.completedAt = None
    state.files[spec.file_key] = f".agents/phases/{spec.artifact}"
    state.currentPhase, state.currentStage = target, get_phase(target).stage
    return Outcome(
        state,
        f"review {e.phase} found {e.blocking_issues} blocking issue(s): back to phase {target} "
        f"(round {review.reviewRounds} of {max_rounds})",
    )


@HANDLERS.on(ev.PhaseFail)
def _phase_fail(c: Ctx, e: ev.PhaseFail) -> Outcome:
    state, ts = c.state, c.ts
    phase = _current_phase(state, e.phase, "phase_fail")
    phase.attempts += 1
    phase.error = e.error
    retry = after_failure(phase.attempts, c.policy.max_per_phase, c.policy, c.now)
    phase.status = phase_target(f"phase {e.phase}", phase.status, "phase_fail", retry.guard)
    if retry.at is not None:
        phase.retryAt = retry.at if retry.wait else None
        when = f" not before {phase.retryAt}" if phase.retryAt else ""
        message = (
            f"phase {e.phase} failed (attempt {phase.attempts}): {e.error}; retry "
            f"{phase.attempts} of {c.policy.max_per_phase}{when}"
        )
        if state.stopRequested or state.status == "stopped":
            state.status = workflow_target(state.status, "phase_fail", "stop_requested")
            state.stopRequested = False
            message += "; workflow stopped as requested"
        return Outcome(state, message)
    # a stop's step in flight is spent
    state.status = workflow_target(state.status, "phase_fail", "retries_exhausted")
    state.stopRequested = False
    state.failure = Failure(phase=e.phase, error=e.error, failedAt=ts)
    return Outcome(
        state,
        f"phase {e.phase} failed after {phase.attempts} attempt(s): {e.error}; "
        "workflow failed (see: agents-state resume)",
    )


PHASE_EVENTS = (ev.PhaseStart, ev.PhaseComplete, ev.PhaseFail)  # what this module handles
