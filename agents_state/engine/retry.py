"""One retry rule for a failed phase and a failed task (issue 35, item 6).

A failure counts an attempt; while the attempts are at most the limit (``retries.maxPerPhase``
or ``maxPerTask``: retries after the first attempt, docs/decisions.md) the failed step may run
again after the policy's backoff for that attempt, else its retries are exhausted.  The tables
take the guard; the caller records the time and words its message.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from agents_state.engine.table import Guard
from agents_state.policy import Policy
from agents_state.types import format_time

__all__ = ["Retry", "after_failure"]


class Retry:
    """A plain class: a ``NamedTuple`` costs ``task done`` ~0.3 ms to define at start-up."""

    __slots__ = ("at", "guard", "wait")

    def __init__(self, guard: Guard, wait: int, at: str | None) -> None:
        self.guard = guard  # "retries_left" or "retries_exhausted", for the tables
        self.wait = wait  # seconds the policy waits before the next attempt (0: at once)
        self.at = at  # when the next attempt may start; ``None`` once retries are exhausted


def after_failure(attempts: int, limit: int, policy: Policy, now: datetime) -> Retry:
    """What follows the failure of attempt ``attempts`` with at most ``limit`` retries."""
    if attempts > limit:
        return Retry("retries_exhausted", 0, None)
    wait = policy.backoff(attempts)
    return Retry("retries_left", wait, format_time(now + timedelta(seconds=wait)))
