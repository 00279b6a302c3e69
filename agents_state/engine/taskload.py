"""Loading the task definitions into the task phase (``tasks load``; pure, called by ``tasks``).

A load stores the definitions and the waves ``waves.plan_waves`` computed, refusing waves that
would run a task with or before one of its dependencies; a state that already lists waves
without definitions (design 004's own example) gets the definitions put into those waves.  A
repeat of a load that succeeded changes nothing (issue 15).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from agents_state.engine import events as ev
from agents_state.engine.compaction import pass_boundary
from agents_state.engine.context import Outcome
from agents_state.engine.ready import DONE as _DONE
from agents_state.engine.ready import current_wave
from agents_state.engine.table import Guard, phase_target, task_target
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import GitInfo, PhaseState, State, TaskState, Wave
from agents_state.types import format_time
from agents_state.workflow import TASK_PHASE

__all__ = ["PHASE_NAME", "load_tasks", "outcome", "task_phase"]

PHASE_NAME = f"phase {TASK_PHASE}"
_PHASE = PHASE_NAME


def task_phase(state: State) -> PhaseState:
    return state.phase(TASK_PHASE)


def outcome(state: State, message: str, changed: bool = True, **data: object) -> Outcome:
    return Outcome(
        state, message, changed, {k: v for k, v in data.items() if v is not None}, dict(data)
    )


def _same_defs(phase: PhaseState, e: ev.TasksLoad) -> bool:
    tasks = phase.tasks or {}
    if [tid for tid, _ in e.tasks] != list(tasks):
        return False
    fields = ("title", "description", "dependencies", "complexity", "files")
    return all(getattr(tasks[tid], f) == spec.get(f) for tid, spec in e.tasks for f in fields)


def load_tasks(state: State, e: ev.TasksLoad, now: datetime) -> Outcome:
    """Store the task definitions and their waves (or fill the waves the state lists)."""
    phase = task_phase(state)
    if phase.tasks and _same_defs(phase, e):  # a repeat of a load that succeeded (issue 15)
        return outcome(
            state,
            f"these {len(e.tasks)} task definitions are already loaded; nothing changed",
            False,
            tasks=len(e.tasks),
        )
    if state.currentPhase != TASK_PHASE:
        raise TransitionNotAllowedError(
            _PHASE, phase.status, "load tasks", hint=f"the current phase is {state.currentPhase}"
        )
    if phase.tasks and any(t.status != "pending" or t.attempts for t in phase.tasks.values()):
        raise TransitionNotAllowedError(
            _PHASE,
            "running",
            "load tasks",
            hint="tasks have already been claimed; finish or skip them instead",
        )
    kept = _known_waves(phase, e)
    if kept is None:
        _check_wave_order(e, e.waves, "the planned waves")
    if e.git is not None:
        state.git = GitInfo.model_validate(e.git)
    phase.tasks = {tid: TaskState.model_validate(spec) for tid, spec in e.tasks}
    if kept is not None:
        return _load_into_waves(state, phase, kept, e, now)
    phase.waves = [Wave(tasks=list(w), status="pending") for w in e.waves]
    phase.waves[0].status = "in_progress"
    phase.status = phase_target(_PHASE, phase.status, "tasks_load")
    phase.startedAt = phase.startedAt or format_time(now)
    phase.agentCount = max(len(w) for w in e.waves)
    pass_boundary(state)
    return outcome(
        state,
        f"{len(e.tasks)} tasks in {len(e.waves)} wave(s) loaded; "
        f"wave 1 has {len(e.waves[0])} task(s)",
        tasks=len(e.tasks),
        waves=len(e.waves),
    )


def _known_waves(phase: PhaseState, e: ev.TasksLoad) -> list[Wave] | None:
    """Waves the state already lists without task definitions (design 004's own example)."""
    if phase.tasks or not phase.waves:
        return None
    listed = [t for w in phase.waves for t in w.tasks]
    from agents_state.errors import InvalidInputError

    if sorted(listed) != sorted(tid for tid, _ in e.tasks):
        raise InvalidInputError(
            e.source,
            "tasks",
            f"the state lists waves with tasks {', '.join(listed)}; define exactly these tasks",
        )
    _check_wave_order(e, [w.tasks for w in phase.waves], "the state's waves")
    return [w.model_copy() for w in phase.waves]


def _check_wave_order(e: ev.TasksLoad, waves: Sequence[Sequence[str]], whose: str) -> None:
    """Refuse waves that would run a task with or before one of its dependencies (a deadlock)."""
    from agents_state.engine.waves import late_dependencies
    from agents_state.errors import InvalidInputError

    listed = [t for w in waves for t in w]
    if sorted(listed) != sorted(t for t, _ in e.tasks):
        raise InvalidInputError(
            e.source, "tasks", f"{whose} list {', '.join(listed)}; each task must be in one wave"
        )
    found = late_dependencies(((t, s.get("dependencies", [])) for t, s in e.tasks), waves)
    if found is not None:
        tid, late = found
        raise InvalidInputError(
            e.source,
            "tasks",
            f"{tid} depends on {', '.join(late)}, which {whose} run in the same or a later wave",
        )


def _load_into_waves(
    state: State, phase: PhaseState, waves: list[Wave], e: ev.TasksLoad, now: datetime
) -> Outcome:
    """Definitions for listed waves: completed waves stay completed, their tasks too."""
    assert phase.tasks is not None
    ts = format_time(now)
    for wave in waves:
        if wave.status in _DONE:
            for tid in wave.tasks:
                task = phase.tasks[tid]
                as_wave: Guard = "skipped" if wave.status == "skipped" else "completed"
                task.status = task_target(f"task {tid}", task.status, "tasks_load", as_wave)
                task.completedAt = task.completedAt or ts
    phase.waves = waves
    idx = current_wave(phase)
    if idx is not None:
        waves[idx].status = "in_progress"
    phase.status = phase_target(_PHASE, phase.status, "tasks_load")
    phase.startedAt = phase.startedAt or ts
    phase.agentCount = max(len(w.tasks) for w in waves)
    pass_boundary(state)
    done = sum(1 for w in waves if w.status in _DONE)
    return outcome(
        state,
        f"{len(e.tasks)} task definitions loaded into the {len(waves)} "
        f"listed wave(s); {done} already completed",
        tasks=len(e.tasks),
        waves=len(waves),
    )
