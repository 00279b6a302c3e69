"""The pure state machine: ``apply(state, event, now) -> Outcome``.

The machine has two levels.  The workflow level (``WORKFLOW_ACCEPTS``) says which events a
workflow in a given status accepts at all: a running workflow takes phase and task events; a
stopped, failed or blocked one takes only the resume moves (retry, skip, abort), answers and late
task reports (a stopped one also the one record of the step in flight at the stop: stop means
after the current step); a finished one takes nothing; where it goes is
``engine.table.WORKFLOW_MOVES``, read like the other two tables.  The phase level
(``engine.table.PHASE_MOVES``) maps ``(phase status, event, guard)`` to the phase's new status;
tasks have their own table there.
Handlers decide the guard and fill in side data; every status they write is read from a table.
Anything missing from a table is refused with ``TransitionNotAllowedError`` naming what is
allowed from here.

Phases run one at a time in catalogue order (``state.currentPhase``); stage statuses are derived
from their phases after every move, never set by hand.  ``apply`` never mutates its input and never
reads the clock: ``now`` is passed in.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents_state.engine import events as ev
from agents_state.engine.advance import advance
from agents_state.engine.compaction import pass_boundary
from agents_state.engine.context import DONE, Ctx, Outcome, check_phase_id
from agents_state.engine.flow import HANDLERS
from agents_state.engine.gate import after_analysis, record_test_run
from agents_state.engine.table import (
    PHASE_MOVES,
    Guard,
    phase_accepts,
    phase_allowed,
    phase_target,
    workflow_target,
)
from agents_state.engine.tasks import apply_task_event
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import (
    Failure,
    FailureContext,
    PhaseState,
    StageState,
    State,
)
from agents_state.policy import Policy
from agents_state.types import Status, format_time
from agents_state.workflow import (
    PHASE_IDS,
    PHASES,
    STAGES,
    TASK_PHASE,
    TEST_ANALYSIS,
    TEST_RUN,
    PhaseKind,
    PhaseRole,
    get_phase,
    phases_of,
)

__all__ = [
    "PHASE_MOVES",
    "WORKFLOW_ACCEPTS",
    "Outcome",
    "apply",
    "check_phase_id",
    "new_state",
]

_MERGES = {"merge_begin", "merge_record"}
_TASK_EVENTS = {"tasks_load", "task_claim", "task_start", "task_done", "task_fail"} | _MERGES
_LATE_REPORTS = {"task_done", "task_fail", "task_start"}
_RESUME = {"retry", "skip", "abort"}

WORKFLOW_ACCEPTS: dict[str, frozenset[str]] = {
    "pending": frozenset(
        {"phase_start", "phase_complete", "phase_fail", "stop", "abort", "budget"} | _TASK_EVENTS
    ),
    "in_progress": frozenset(
        {
            "phase_start",
            "phase_complete",
            "phase_fail",
            "stop",
            "compact",
            "block",
            "clarify",
            "answer",
            "abort",
            "retry",
            "budget",
        }
        | _TASK_EVENTS
    ),
    # stopped = after the current step: that step can still be recorded (issue 15)
    "stopped": frozenset(_RESUME | _LATE_REPORTS | {"compact", "phase_complete", "phase_fail"}),
    "failed": frozenset(_RESUME | _LATE_REPORTS | {"compact"}),
    "blocked": frozenset(_RESUME | _LATE_REPORTS | {"compact"}),
    "completed": frozenset(),
}

_DONE = DONE


def new_state(event: ev.Start, now: datetime) -> State:
    ts = format_time(now)
    stages: dict[str, StageState] = {}
    for stage in STAGES:
        phases = {
            p.id: PhaseState(
                status="skipped" if p.id in event.skipped else "pending",
                agentCount=event.agent_counts.get(p.id),
            )
            for p in phases_of(stage)
        }
        # design 004 records EXPLORE's count on the stage itself (its one phase's count)
        one = next(iter(phases.values())) if len(phases) == 1 else None
        only = one.agentCount if one is not None and one.status != "skipped" else None
        stages[stage] = StageState(phases=phases, agentCount=only)
    first = next((p for p in PHASES if p.id not in event.skipped), None)
    state = State(
        task=event.task,
        status="in_progress" if first else "completed",
        currentStage=first.stage if first else None,
        currentPhase=first.id if first else None,
        stages=stages,
        startedAt=ts,
        updatedAt=ts,
        revision=1,
    )
    _derive_stages(state, ts)
    return state


def apply(state: State, event: ev.Event, now: datetime, policy: Policy | None = None) -> Outcome:
    accepted = WORKFLOW_ACCEPTS.get(state.status, frozenset())
    if state.abortedAt is not None:
        accepted = frozenset()
    if (
        state.status == "stopped"
        and event.name in ("phase_complete", "phase_fail")
        and not state.stopRequested
    ):  # the step in flight at the stop is already recorded
        accepted = accepted - {"phase_complete", "phase_fail"}
    if event.name not in accepted:
        raise TransitionNotAllowedError(
            "workflow",
            "aborted" if state.abortedAt else state.status,
            event.name.replace("_", " "),
            sorted(a.replace("_", " ") for a in accepted),
            hint=_workflow_hint(state),
        )
    new = _copy(state)
    ts = format_time(now)
    pol = policy or Policy()
    if HANDLERS.handles(event):
        outcome = HANDLERS(Ctx(new, ts, pol, now), event)
    else:
        outcome = apply_task_event(new, event, now, pol)
    if not outcome.changed:
        return Outcome(state, outcome.message, False, {}, outcome.data)
    result = outcome.state
    _derive_stages(result, ts)
    result.revision = state.revision + 1
    result.updatedAt = ts
    record = {"rev": result.revision, "at": ts, **event.record(), **outcome.record}
    return Outcome(result, outcome.message, True, record, outcome.data)


def _copy(state: State) -> State:
    """A deep copy, except the tasks of the task phase: their dict is copied, the tasks are shared.

    ``engine_tasks`` copies a task before it changes it (copy-on-write through ``_own``), so
    the input state is never mutated; at 10,000 tasks this is much cheaper than a deep copy.
    """
    import copy

    stage = state.stages.get(get_phase(TASK_PHASE).stage)
    p21 = stage.phases.get(TASK_PHASE) if stage else None
    memo: dict[int, Any] = {}
    if p21 is not None and p21.tasks:
        memo[id(p21.tasks)] = dict(p21.tasks)
    if p21 is not None and p21.waves:
        memo[id(p21.waves)] = [w.model_copy() for w in p21.waves]
    return copy.deepcopy(state, memo)


def _workflow_hint(state: State) -> str:
    if state.abortedAt or state.status == "completed":
        return 'start a new workflow with: agents-state dispatch "<task>"'
    if state.status in ("stopped", "failed", "blocked"):
        return "run: agents-state resume"
    return ""


# -- phase events ---------------------------------------------------------------------------


def _current_phase(state: State, phase_id: str, event_name: str) -> PhaseState:
    check_phase_id(phase_id)
    phase = state.phase(phase_id)
    event = event_name.replace("phase_", "")
    if state.currentPhase != phase_id and phase.status not in _DONE:
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            phase.status,
            event,
            hint=f"the current phase is {state.currentPhase}",
        )
    if not phase_accepts(phase.status, event_name):
        allowed = phase_allowed(phase.status)
        hint = ""
        if phase.status in _DONE and state.currentPhase != phase_id:
            hint = f"the current phase is {state.currentPhase}"
            if event == "complete":
                hint += "; repeating it with the same artifact is a no-op"
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            f"already {phase.status}" if phase.status in _DONE else phase.status,
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
        and state.currentPhase != e.phase
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
    phase.startedAt = phase.startedAt or ts
    phase.completedAt = ts
    phase.error = None
    state.files[spec.file_key] = f".agents/phases/{spec.artifact}"
    message = f"phase {e.phase} {spec.name} completed"
    if e.phase == TEST_ANALYSIS:
        back = after_analysis(c, message)
        if back is not None:
            return back
    return advance(c, e.phase, message)


def _check_tasks_done(state: State, phase_id: str) -> None:
    tasks = state.phase(phase_id).tasks
    if not tasks:
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            "waiting for tasks",
            "complete",
            hint="load the task definitions first: agents-state tasks load FILE",
        )
    left = [t for t, s in tasks.items() if s.status not in _DONE]
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
    retries_left = phase.attempts <= c.policy.max_per_phase  # counts retries, like maxPerTask
    phase.status = phase_target(
        f"phase {e.phase}",
        phase.status,
        "phase_fail",
        "retries_left" if retries_left else "retries_exhausted",
    )
    if retries_left:
        from datetime import timedelta

        wait = c.policy.backoff(phase.attempts)
        phase.retryAt = format_time(c.now + timedelta(seconds=wait)) if wait else None
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


def _derive_stages(state: State, ts: str) -> None:
    for name, stage in state.stages.items():
        statuses = [p.status for p in stage.phases.values()]
        if not statuses:
            continue
        new: Status
        if all(s == "skipped" for s in statuses):
            new = "skipped"
        elif all(s in _DONE for s in statuses):
            new = "completed"
        elif "failed" in statuses:
            new = "failed"
        elif "blocked" in statuses:
            new = "blocked"
        elif any(s in ("in_progress", "completed") for s in statuses) or (
            state.currentStage == name and state.status == "in_progress"
        ):
            new = "in_progress"
        else:
            new = "pending"
        if new == "in_progress" and stage.startedAt is None:
            stage.startedAt = ts
        if new == "completed" and stage.completedAt is None:
            stage.completedAt = ts
        if new == "completed":
            state.files.setdefault(f"{name.lower()}Output", f".agents/phases/{name}-output.md")
        if new != "completed":
            stage.completedAt = None
        stage.status = new
    tasks = state.stages.get(get_phase(TASK_PHASE).stage)
    p21 = tasks.phases.get(TASK_PHASE) if tasks else None
    if p21 is not None and p21.tasks and p21.status in _DONE:
        state.files.setdefault("taskSummary", f".agents/phases/{TASK_PHASE}-summary.md")
    if state.failure is not None and state.failure.phase and state.failure.context is None:
        state.failure.context = _failure_context(state, state.failure.phase)


def _failure_context(state: State, phase_id: str) -> FailureContext | None:
    tasks = state.phase(phase_id).tasks
    if not tasks:
        return None
    failed = next((t for t, s in tasks.items() if s.status == "failed"), None)
    return FailureContext(
        completedTasks=[t for t, s in tasks.items() if s.status == "completed"],
        failedTask=failed,
        pendingTasks=[t for t, s in tasks.items() if s.status in ("pending", "in_progress")],
    )
