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
from agents_state.engine.context import DONE, Ctx, Outcome, check_phase_id
from agents_state.engine.flow import HANDLERS
from agents_state.engine.humangate import check_not_waiting  # also registers the gate answer
from agents_state.engine.phasemoves import PHASE_EVENTS  # importing it registers their handlers
from agents_state.engine.table import (
    PHASE_MOVES,
)
from agents_state.engine.tasks import apply_task_event
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import (
    FailureContext,
    PhaseState,
    StageState,
    State,
)
from agents_state.policy import Policy
from agents_state.types import Status, format_time
from agents_state.workflow import (
    PHASES,
    STAGES,
    TASK_PHASE,
    get_phase,
    phases_of,
)

__all__ = [
    "PHASE_EVENTS",
    "PHASE_MOVES",
    "WORKFLOW_ACCEPTS",
    "Outcome",
    "apply",
    "check_phase_id",
    "new_state",
]

_MERGES = {"merge_begin", "merge_record", "merge_resolve"}
_TASK_EVENTS = {"tasks_load", "task_claim", "task_start", "task_done", "task_fail"} | _MERGES
_LATE_REPORTS = {"task_done", "task_fail", "task_start"}
_RESUME = {"retry", "skip", "abort"}

WORKFLOW_ACCEPTS: dict[str, frozenset[str]] = {
    "pending": frozenset(
        {"phase_start", "phase_complete", "phase_fail", "stop", "abort", "budget"} | _TASK_EVENTS
    ),
    "in_progress": frozenset(
        {
            "gate",
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
    check_not_waiting(state, event)  # issue 36: a person's gate waits
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
