"""Task events of the task phase: load, claim, start, done, fail (pure; called by ``apply``).

Tasks run in waves.  Exactly one wave is current (the first not completed); a task of it is ready
when it is pending, its dependencies are completed or skipped, and its retry time has passed.  A
claim is a compare-and-set under the store's lock, so two claimers never get the same task.  A wave
completes exactly once, in the transition that finishes its last task, and the next wave opens in
that same transition; the last wave completes the phase.
"""

from __future__ import annotations

from datetime import datetime

from agents_state.engine import events as ev
from agents_state.engine.advance import advance
from agents_state.engine.context import Ctx, Outcome
from agents_state.engine.ready import DONE as _DONE
from agents_state.engine.ready import current_wave, is_stale, nothing_ready_reason, ready_tasks
from agents_state.engine.retry import after_failure
from agents_state.engine.table import Guard, phase_target, task_target, workflow_target
from agents_state.engine.taskload import PHASE_NAME as _PHASE
from agents_state.engine.taskload import load_tasks
from agents_state.engine.taskload import outcome as _outcome
from agents_state.engine.taskload import task_phase as _phase
from agents_state.errors import NotFoundError, TransitionNotAllowedError
from agents_state.models import Failure, PhaseState, State, TaskState, Wave
from agents_state.policy import Policy
from agents_state.types import format_time, parse_time
from agents_state.workflow import TASK_PHASE, get_phase

__all__ = [
    "apply_task_event",
    "current_wave",
    "is_stale",
    "ready_tasks",
    "release_running_tasks",
    "retry_failed_tasks",
    "skip_failed_tasks",
]


def apply_task_event(state: State, event: ev.Event, now: datetime, policy: Policy) -> Outcome:
    if isinstance(event, ev.TasksLoad):
        return load_tasks(state, event, now)
    phase = _phase(state)
    if not phase.tasks:
        raise TransitionNotAllowedError(
            _PHASE,
            phase.status,
            event.name.replace("_", " "),
            hint="no tasks loaded; run: agents-state tasks load FILE",
        )
    if isinstance(event, ev.TaskClaim):
        return _claim(state, phase, event, now, policy)
    if isinstance(event, ev.TaskStart):
        return _start(state, phase, event, now, policy)
    if isinstance(event, ev.TaskDone):
        return _done(state, phase, event, now, policy)
    if isinstance(event, ev.TaskFail):
        return _fail(state, phase, event, now, policy)
    if isinstance(event, ev.MergeBegin | ev.MergeRecord | ev.MergeResolve):
        from agents_state.engine.merges import apply_merge_event

        out, last = apply_merge_event(state, phase, event, now)
        if last is None:
            return out
        closed = _after_task(out.state, phase, out.message, now, last, policy)
        data = {**closed.data, **out.data}
        return Outcome(closed.state, closed.message, True, data, data)
    raise TypeError(f"no handler for the event {event.name!r}")  # a bug: every event has one


def _task(phase: PhaseState, task_id: str) -> TaskState:
    """The task, as this transition's own copy (tasks are shared with the input state)."""
    assert phase.tasks is not None
    task = phase.tasks.get(task_id)
    if task is None:
        raise NotFoundError(
            f"unknown task '{task_id}' in phase {TASK_PHASE} ({len(phase.tasks)} tasks loaded)"
        )
    return _own(phase.tasks, task_id)


def _own(tasks: dict[str, TaskState], task_id: str) -> TaskState:
    task = tasks[task_id].model_copy()
    tasks[task_id] = task
    return task


def _take(task_id: str, task: TaskState, event: str, agent: str, ts: str) -> None:
    guard: Guard = "stale" if task.status == "in_progress" else ""
    task.status = task_target(f"task {task_id}", task.status, event, guard)
    task.owner = agent
    task.claimedAt = task.heartbeatAt = ts
    task.retryAt = None
    task.attempts += 1


def _claim(
    state: State, phase: PhaseState, e: ev.TaskClaim, now: datetime, policy: Policy
) -> Outcome:
    ts = format_time(now)
    if state.status != "in_progress":
        raise TransitionNotAllowedError(
            "workflow", state.status, "claim", hint="run: agents-state resume"
        )
    ready = ready_tasks(phase, now, policy.lease_seconds)
    if e.task_id is not None:
        task = _task(phase, e.task_id)
        if e.task_id not in ready:
            raise TransitionNotAllowedError(
                f"task {e.task_id}", _why_not(phase, e.task_id, now), "claim"
            )
        tid = e.task_id
    elif ready:
        tid = ready[0]
        task = _task(phase, tid)
    else:
        raise NotFoundError(f"nothing to claim: {nothing_ready_reason(phase, now)}")
    stale_owner = task.owner if task.status == "in_progress" else None
    _take(tid, task, "task_claim", e.agent, ts)
    note = f" (reclaimed from stale owner {stale_owner})" if stale_owner else ""
    return _outcome(
        state,
        f"claimed {tid} (attempt {task.attempts}){note}",
        task=tid,
        attempt=task.attempts,
        agent=e.agent,
    )


def _why_not(phase: PhaseState, task_id: str, now: datetime) -> str:
    t = _task(phase, task_id)
    if t.status != "pending":
        return f"already {t.status}" + (f" by {t.owner}" if t.owner else "")
    if t.retryAt and parse_time(t.retryAt) > now:
        return f"waiting to retry until {t.retryAt}"
    idx = current_wave(phase)
    return (
        f"not in the current wave {idx + 1 if idx is not None else '-'} or its dependencies "
        "are not done"
    )


def _start(
    state: State, phase: PhaseState, e: ev.TaskStart, now: datetime, policy: Policy
) -> Outcome:
    task = _task(phase, e.task_id)
    ts = format_time(now)
    if (
        task.status == "pending"
        and state.status == "in_progress"
        and e.task_id in ready_tasks(phase, now, policy.lease_seconds)
    ):
        _take(e.task_id, task, "task_start", e.agent or "unknown", ts)
        return _outcome(
            state,
            f"{e.task_id} claimed and started (attempt {task.attempts})",
            task=e.task_id,
            attempt=task.attempts,
        )
    if task.status != "in_progress":
        raise TransitionNotAllowedError(f"task {e.task_id}", task.status, "start")
    if e.agent and task.owner and e.agent != task.owner:
        raise TransitionNotAllowedError(
            f"task {e.task_id}",
            f"claimed by {task.owner}",
            "start",
            hint=f"agent {e.agent} does not own it",
        )
    task.heartbeatAt = ts
    return _outcome(state, f"{e.task_id} in progress (lease renewed)", task=e.task_id)


def _check_owner(
    task_id: str, task: TaskState, agent: str | None, attempt: int | None, verb: str
) -> None:
    if attempt is not None and attempt != task.attempts:
        raise TransitionNotAllowedError(
            f"task {task_id}",
            f"on attempt {task.attempts}",
            verb,
            hint=f"this report is from attempt {attempt} and is refused",
        )
    if agent and task.owner and agent != task.owner and task.status == "in_progress":
        raise TransitionNotAllowedError(
            f"task {task_id}",
            f"claimed by {task.owner}",
            verb,
            hint=f"agent {agent} lost its claim; it is stale and was reclaimed",
        )


def _done(
    state: State, phase: PhaseState, e: ev.TaskDone, now: datetime, policy: Policy
) -> Outcome:
    task = _task(phase, e.task_id)
    if task.status == "completed":
        if e.agent and task.owner != e.agent:  # issue 32: its work was not what got recorded
            raise TransitionNotAllowedError(
                f"task {e.task_id}",
                "completed" + (f" by {task.owner}" if task.owner else " by someone else"),
                "complete",
                hint=f"agent {e.agent} did not finish it and what it did was not recorded; "
                "say so in its handoff",
            )
        return _outcome(
            state, f"{e.task_id} is already completed; nothing changed", False, task=e.task_id
        )
    if task.status == "pending" and not e.unstarted:  # issue 32: nobody started it
        raise TransitionNotAllowedError(
            f"task {e.task_id}",
            "pending (nobody started it)",
            "complete",
            hint=f"its agent runs agents-state task start {e.task_id} first; a person may "
            f"complete it unstarted with: agents-state task done {e.task_id} --force",
        )
    if task.status == "pending" and e.task_id in ready_tasks(phase, now, policy.lease_seconds):
        _take(e.task_id, task, "task_done", e.agent or "unknown", format_time(now))
    if task.status != "in_progress":
        raise TransitionNotAllowedError(
            f"task {e.task_id}",
            _why_not(phase, e.task_id, now) if task.status == "pending" else task.status,
            "complete",
        )
    _check_owner(e.task_id, task, e.agent, e.attempt, "complete")
    ts = format_time(now)
    task.status = task_target(f"task {e.task_id}", task.status, "task_done")
    task.completedAt = ts
    if not e.agent:  # completed by a person (or the orchestrator), not by the agent holding it
        task.owner = None
    task.summary, task.result, task.lastError = e.summary, e.result, None
    if state.git is not None:  # the merge queue merges it once its wave is done (issue 22)
        task.branch, task.head, task.merge = e.branch, e.head, "pending"
    return _after_task(state, phase, f"{e.task_id} completed", now, e.task_id, policy)


def _after_task(
    state: State, phase: PhaseState, message: str, now: datetime, tid: str, policy: Policy
) -> Outcome:
    """Close the current wave if it is finished, open the next, finish the phase after the last."""
    assert phase.waves is not None and phase.tasks is not None
    idx = next((i for i, w in enumerate(phase.waves) if tid in w.tasks), None)
    if idx is None or phase.waves[idx].status in _DONE:
        return _outcome(state, message, task=tid)
    wave = phase.waves[idx]
    if not _wave_finished(state, phase, wave):
        return _outcome(state, message, task=tid)
    wave.status = "completed"
    message += f"; wave {idx + 1} completed"
    if idx + 1 < len(phase.waves):
        phase.waves[idx + 1].status = "in_progress"
        return _outcome(state, message + f"; wave {idx + 2} opened", task=tid, wave=idx + 2)
    if state.status != "in_progress":
        return _outcome(state, message, task=tid)
    ts = format_time(now)
    phase.status = phase_target(_PHASE, phase.status, "task_done", "last_task")
    phase.completedAt = ts
    spec = get_phase(TASK_PHASE)
    state.files[spec.file_key] = f".agents/phases/{spec.artifact}"
    out = advance(Ctx(state, ts, policy, now), TASK_PHASE, message + f"; {_PHASE} completed")
    return _outcome(out.state, out.message, task=tid)


def _wave_finished(state: State, phase: PhaseState, wave: Wave) -> bool:
    """Every task of the wave done and, under worktree isolation, merged."""
    tasks = phase.tasks or {}
    if not all(tasks[t].status in _DONE for t in wave.tasks):
        return False
    if state.git is None:
        return True
    from agents_state.engine.worktrees import wave_merged

    return wave_merged(phase, wave.tasks)


def _fail(
    state: State, phase: PhaseState, e: ev.TaskFail, now: datetime, policy: Policy
) -> Outcome:
    task = _task(phase, e.task_id)
    if task.status in _DONE:
        raise TransitionNotAllowedError(f"task {e.task_id}", task.status, "fail")
    if task.status == "failed":
        return _outcome(state, f"{e.task_id} is already failed; nothing changed", False)
    _check_owner(e.task_id, task, e.agent, e.attempt, "fail")
    ts = format_time(now)
    task.attempts = max(task.attempts, 1)
    task.lastError, task.owner = e.error, None
    retry = after_failure(task.attempts, policy.max_per_task, policy, now)
    task.status = task_target(f"task {e.task_id}", task.status, "task_fail", retry.guard)
    if retry.at is not None:
        task.retryAt = retry.at
        return _outcome(
            state,
            f"{e.task_id} failed (attempt {task.attempts}); retry "
            f"{task.attempts} of {policy.max_per_task} not before "
            f"{task.retryAt}",
            task=e.task_id,
            retryAt=task.retryAt,
        )
    if state.status == "in_progress":
        state.status = workflow_target(state.status, "task_fail", "retries_exhausted")
        phase.status = phase_target(_PHASE, phase.status, "task_fail", "retries_exhausted")
        state.failure = Failure(
            phase=TASK_PHASE,
            failedAt=ts,
            error=f"task {e.task_id} failed after {task.attempts} attempt(s): {e.error}",
        )
    return _outcome(
        state,
        f"{e.task_id} failed after {task.attempts} attempt(s); workflow "
        "failed (see: agents-state resume)",
        task=e.task_id,
    )


def retry_failed_tasks(state: State, phase_id: str) -> str:
    phase = state.phase(phase_id)
    failed = [t for t, s in (phase.tasks or {}).items() if s.status == "failed"]
    for tid in failed:
        t = _own(phase.tasks or {}, tid)
        t.status = task_target(f"task {tid}", t.status, "retry")
        t.retryAt, t.owner = None, None
    if phase.status in ("failed", "pending"):
        phase.status = phase_target(f"phase {phase_id}", phase.status, "retry", "tasks")
    return f"; task(s) to retry: {', '.join(failed)}" if failed else ""


def release_running_tasks(state: State, phase_id: str) -> str:
    """Give running tasks of a dead driver back to the pool (their attempts stay counted)."""
    tasks = state.phase(phase_id).tasks or {}
    released = [t for t, s in tasks.items() if s.status == "in_progress"]
    for tid in released:
        t = _own(tasks, tid)
        t.status = task_target(f"task {tid}", t.status, "retry", "driver_died")
        t.owner = None
    return f"; released running task(s): {', '.join(released)}" if released else ""


def skip_failed_tasks(state: State, phase_id: str, ts: str) -> tuple[str, bool]:
    """Skip failed tasks; returns the message and whether the phase is now done."""
    phase = state.phase(phase_id)
    tasks = phase.tasks or {}
    failed = [t for t, s in tasks.items() if s.status == "failed"]
    if not failed:
        return "", True
    for tid in failed:
        t = _own(tasks, tid)
        t.status = task_target(f"task {tid}", t.status, "skip")
    unblocked = sorted(
        t for t, s in tasks.items() if s.status == "pending" and set(failed) & set(s.dependencies)
    )
    phase.status = phase_target(f"phase {phase_id}", phase.status, "skip", "tasks")
    msg = f"; skipped {', '.join(failed)}"
    if unblocked:
        msg += f"; unblocked dependents: {', '.join(unblocked)}"
    for i, wave in enumerate(phase.waves or []):
        if wave.status not in _DONE and _wave_finished(state, phase, wave):
            wave.status = "completed"
            if i + 1 < len(phase.waves or []):
                (phase.waves or [])[i + 1].status = "in_progress"
    done = all(s.status in _DONE for s in tasks.values())
    if state.git is not None:  # and merged (issue 22)
        done = done and all(w.status in _DONE for w in phase.waves or [])
    return msg, done
