"""Which tasks of the task phase can run: the current wave, stale claims, ready tasks, and why
none is (read-only queries on a phase; ``next``, ``status`` and the task transitions use them).

The lowest engine module: it imports no other, so a command that only reads the state loads
none of the transition code.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from agents_state.models import PhaseState, TaskState
from agents_state.types import parse_time

__all__ = ["DONE", "current_wave", "is_stale", "nothing_ready_reason", "ready_tasks"]

DONE = ("completed", "skipped")
"""Statuses after which a phase, a task or a wave never runs again (unless sent back)."""


def current_wave(phase: PhaseState) -> int | None:
    for i, wave in enumerate(phase.waves or []):
        if wave.status not in DONE:
            return i
    return None


def is_stale(task: TaskState, now: datetime, lease_seconds: int) -> bool:
    beat = task.heartbeatAt or task.claimedAt
    return (
        task.status == "in_progress"
        and beat is not None
        and parse_time(beat) + timedelta(seconds=lease_seconds) < now
    )


def _deps_done(phase: PhaseState, task: TaskState) -> bool:
    tasks = phase.tasks or {}
    return all(tasks[d].status in DONE for d in task.dependencies if d in tasks)


def ready_tasks(phase: PhaseState, now: datetime, lease_seconds: int) -> list[str]:
    """Claimable task ids of the current wave, in wave order (stale claims included)."""
    idx = current_wave(phase)
    if idx is None or phase.waves is None or phase.tasks is None:
        return []
    out = []
    for tid in phase.waves[idx].tasks:
        t = phase.tasks[tid]
        waiting = t.retryAt is not None and parse_time(t.retryAt) > now
        if (
            (t.status == "pending" and not waiting) or is_stale(t, now, lease_seconds)
        ) and _deps_done(phase, t):
            out.append(tid)
    return out


def nothing_ready_reason(phase: PhaseState, now: datetime) -> str:
    idx = current_wave(phase)
    if idx is None or phase.waves is None or phase.tasks is None:
        return "all tasks are done"
    wave = [phase.tasks[t] for t in phase.waves[idx].tasks]
    waits = sorted(
        t.retryAt
        for t in wave
        if t.status == "pending" and t.retryAt and parse_time(t.retryAt) > now
    )
    if waits:
        return f"wave {idx + 1} is waiting to retry a task until {waits[0]}"
    running = sum(1 for t in wave if t.status == "in_progress")
    return f"wave {idx + 1} is still running ({running} task(s) in progress)"
