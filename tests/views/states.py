"""Workflow states built in-process with a fixed clock, for deterministic snapshots."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from agents_state.config import Config, policy_from
from agents_state.engine import events as ev
from agents_state.engine.phases import apply, new_state
from agents_state.engine.ready import ready_tasks
from agents_state.models import State
from agents_state.views.nextaction import next_action
from agents_state.workflow import get_phase

T0 = datetime(2026, 1, 29, 10, 0, tzinfo=UTC)
CONFIG = Config()
POLICY = policy_from(CONFIG)
LEASE = POLICY.lease_seconds

TASKS: list[tuple[str, dict[str, Any]]] = [
    ("task-1", {"title": "OAuth client configuration", "complexity": "easy"}),
    ("task-2", {"title": "Provider registry", "complexity": "medium"}),
    ("task-3", {"title": "Login page buttons", "complexity": "easy"}),
    ("task-4", {"title": "Callback routes", "dependencies": ["task-1", "task-2"]}),
    ("task-5", {"title": "Account linking", "complexity": "hard", "dependencies": ["task-2"]}),
    ("task-6", {"title": "Session refresh", "dependencies": ["task-2"]}),
    ("task-7", {"title": "Tests", "dependencies": ["task-4", "task-5"]}),
]
WAVES = (("task-1", "task-2", "task-3"), ("task-4", "task-5", "task-6"), ("task-7",))


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def step(state: State, event: ev.Event, minutes: float) -> State:
    return apply(state, event, at(minutes), POLICY).state


def action(state: State, minutes: float) -> dict[str, Any]:
    return next_action(state, CONFIG, at(minutes))


def fresh() -> State:
    return new_state(
        ev.Start(
            task="Add OAuth authentication with Google and GitHub", agent_counts={"0": 5, "1.2": 3}
        ),
        T0,
    )


def _advance_one(state: State, minutes: float) -> State:
    """One step of a literal-minded orchestrator that succeeds at everything."""
    if state.compaction.pending:
        return step(state, ev.Compact(), minutes)
    pid = state.currentPhase
    assert pid is not None
    if pid == "2.1":
        ph = state.phase(pid)
        if not ph.tasks:
            return step(state, ev.TasksLoad(tasks=tuple(TASKS), waves=WAVES), minutes)
        tid = ready_tasks(ph, at(minutes), LEASE)[0]
        return step(
            state, ev.TaskDone(task_id=tid, agent=f"agent-{tid}", summary=f"did {tid}"), minutes
        )
    issues = 0 if get_phase(pid).reviews else None
    return step(state, ev.PhaseComplete(phase=pid, issues=issues), minutes)


def until_phase(state: State, phase: str, minutes: float = 1) -> State:
    while state.currentPhase != phase or state.compaction.pending:
        state = _advance_one(state, minutes)
    return state


def mid_wave() -> State:
    """Wave 2 of 3 running at minute 60: one done, one stale claim, one waiting to retry."""
    state = until_phase(fresh(), "2.1", 5)
    state = step(state, ev.TasksLoad(tasks=tuple(TASKS), waves=WAVES), 10)
    for tid in WAVES[0]:
        state = step(state, ev.TaskDone(task_id=tid, agent=f"agent-{tid}"), 20)
    state = step(state, ev.TaskClaim(agent="agent-a", task_id="task-4"), 25)  # stale by 60
    state = step(state, ev.TaskClaim(agent="agent-b", task_id="task-5"), 50)
    state = step(state, ev.TaskClaim(agent="agent-c", task_id="task-6"), 55)
    state = step(state, ev.TaskDone(task_id="task-6", agent="agent-c"), 59.5)
    # retried 5 s after this failure: still waiting at minute 60
    return step(
        state, ev.TaskFail(task_id="task-5", error="linking table missing", agent="agent-b"), 59.95
    )


def failed() -> State:
    """task-5 fails past retries.maxPerTask: the workflow is failed."""
    state = mid_wave()
    for i in range(1, 3):
        minute = 60 + 10 * i
        state = step(state, ev.TaskClaim(agent="agent-b", task_id="task-5"), minute)
        state = step(
            state,
            ev.TaskFail(task_id="task-5", error="linking table missing", agent="agent-b"),
            minute + 1,
        )
    return state


def completed() -> State:
    state = fresh()
    minute = 1.0
    while state.status != "completed":
        state = _advance_one(state, minute)
        minute += 1
    return state
