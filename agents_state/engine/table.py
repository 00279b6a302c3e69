"""The transition tables of the workflow, its phases and tasks: ``(status, event, guard) -> new
status``.

Read the machine here, not in the handlers.  A handler decides only the *guard*: the outcome
of the one question that splits a move in two (are retries left? did the review find blocking
issues? did the tests pass?), spelled as a short word; ``""`` when the move has one target.  It
then asks ``phase_target`` / ``task_target`` for the new status and fills in the side data
(time stamps, errors, counters).  A key missing from a table raises
``TransitionNotAllowedError``: no handler writes a status the table does not list.

Events are the user's (``phase_start``, ``phase_complete``, ``phase_fail``, ``retry``, ``skip``,
the ``task_*`` and ``tasks_load`` events) and a few internal moves that one event makes on
*another* phase: ``send_back`` (a review sends the phases it reviews back), ``tests_passed`` /
``tests_failed`` / ``tests_retried`` / ``tests_skipped`` (the test run moves its analysis phase),
``analysis_done`` (a finished analysis sends the test run back) and ``finish`` (the workflow will
not finish over failing tests).  ``tests/test_engine_tables.py`` drives the hypothesis machines,
records every key the engine looks up and checks that each table entry is reached or listed in
``UNREACHED_BY_DESIGN`` with a reason.
"""

from __future__ import annotations

from typing import Literal

from agents_state.errors import TransitionNotAllowedError
from agents_state.types import Status

__all__ = [
    "PHASE_MOVES",
    "TASK_MOVES",
    "USER_PHASE_EVENTS",
    "WORKFLOW_MOVES",
    "Guard",
    "phase_accepts",
    "phase_allowed",
    "phase_target",
    "task_target",
    "workflow_target",
]

# What a handler decided about the one question that splits a move (typed: a misspelt guard is a
# type error, not a refusal at run time); ``""`` when the move has one target.
Guard = Literal[
    "",
    "completed",
    "driver_died",
    "fixed",
    "last_task",
    "nothing_started",
    "nothing_to_rework",
    "retries_exhausted",
    "retries_left",
    "rounds_exhausted",
    "sent_back",
    "skipped",
    "stale",
    "stop_requested",
    "tasks",
    "tests_blocked",
    "tests_exhausted",
    "tests_failed",
    "tests_passed",
    "tests_unresolved",
    "unneeded",
]
Key = tuple[str, str, Guard]

_LIVE = ("pending", "in_progress")

PHASE_MOVES: dict[Key, Status] = {
    ("pending", "phase_start", ""): "in_progress",
    # complete: done; a review with blocking issues goes back (or blocks after its rounds);
    # a test run is recorded as run whether it passed or failed (the analysis phase follows)
    **{(s, "phase_complete", ""): "completed" for s in _LIVE},
    **{(s, "phase_complete", "sent_back"): "pending" for s in _LIVE},
    **{(s, "phase_complete", "rounds_exhausted"): "blocked" for s in _LIVE},
    # a review with blocking issues in a phase that was skipped: nothing to rework
    **{(s, "phase_complete", "nothing_to_rework"): "blocked" for s in _LIVE},
    **{(s, "phase_complete", "tests_passed"): "completed" for s in _LIVE},
    **{(s, "phase_complete", "tests_failed"): "completed" for s in _LIVE},
    **{(s, "phase_complete", "tests_exhausted"): "blocked" for s in _LIVE},
    # fail: maxPerPhase counts retries, like maxPerTask
    **{(s, "phase_fail", "retries_left"): "pending" for s in _LIVE},
    **{(s, "phase_fail", "retries_exhausted"): "failed" for s in _LIVE},
    # retry: run the step again; "driver_died": the process driving a running step is gone;
    # "tasks": the task phase runs on with its failed tasks pending again;
    # "tests_blocked": the tests kept failing, a person wants another round of fixes
    ("failed", "retry", ""): "pending",
    ("blocked", "retry", ""): "pending",
    ("in_progress", "retry", "driver_died"): "pending",
    ("pending", "retry", "tasks"): "in_progress",
    ("blocked", "retry", "tests_blocked"): "completed",
    # skip: the person gives up on the step; "tasks": failed tasks are skipped, the phase runs on
    **{(s, "skip", ""): "skipped" for s in ("failed", "blocked", "in_progress", "pending")},
    ("failed", "skip", "tasks"): "in_progress",
    ("in_progress", "skip", "tasks"): "in_progress",
    ("pending", "skip", "tasks"): "in_progress",
    # the task phase: loading tasks starts it, its last task completes it, a task out of
    # retries fails it
    ("pending", "tasks_load", ""): "in_progress",
    ("in_progress", "tasks_load", ""): "in_progress",
    ("in_progress", "task_done", "last_task"): "completed",
    ("in_progress", "task_fail", "retries_exhausted"): "failed",
    # moves one event makes on another phase
    ("completed", "send_back", ""): "pending",
    ("completed", "gate_reject", ""): "pending",  # a person rejected it at its gate (issue 36)
    ("pending", "tests_passed", "fixed"): "completed",
    ("pending", "tests_passed", "unneeded"): "skipped",
    **{(s, "tests_failed", ""): "pending" for s in ("pending", "completed", "skipped")},
    **{(s, "tests_retried", ""): "pending" for s in ("pending", "completed", "skipped")},
    ("pending", "tests_skipped", ""): "skipped",
    ("completed", "analysis_done", ""): "pending",
    ("completed", "finish", "tests_unresolved"): "blocked",
}

TASK_MOVES: dict[Key, Status] = {
    ("pending", "task_claim", ""): "in_progress",
    ("in_progress", "task_claim", "stale"): "in_progress",  # reclaimed from a stale owner
    ("pending", "task_start", ""): "in_progress",  # start is also a claim
    ("pending", "task_done", ""): "in_progress",  # a done report for a ready task claims it
    ("in_progress", "task_done", ""): "completed",
    **{(s, "task_fail", "retries_left"): "pending" for s in _LIVE},
    **{(s, "task_fail", "retries_exhausted"): "failed" for s in _LIVE},
    ("failed", "retry", ""): "pending",
    ("in_progress", "retry", "driver_died"): "pending",
    ("failed", "skip", ""): "skipped",
    # definitions loaded into waves the state already lists as done
    ("pending", "tasks_load", "completed"): "completed",
    ("pending", "tasks_load", "skipped"): "skipped",
}

_RUNNING = ("in_progress", "stopped")  # a stopped workflow still records the step in flight
_HALTED = ("stopped", "failed", "blocked")

# The workflow's own status (which events it accepts at all is ``phases.WORKFLOW_ACCEPTS``).
# Internal events: ``finish`` (the last phase is done), ``advance`` (a phase is done and the next
# is current: a stop requested meanwhile takes effect).  A move not listed leaves the status.
WORKFLOW_MOVES: dict[Key, Status] = {
    **{(s, "finish", ""): "completed" for s in _RUNNING},
    **{(s, "finish", "tests_unresolved"): "blocked" for s in _RUNNING},  # never over failing tests
    **{(s, "advance", "stop_requested"): "stopped" for s in _RUNNING},
    # stop: with nothing started the workflow stops now (else the stop is only requested)
    **{(s, "stop", "nothing_started"): "stopped" for s in ("pending", "in_progress")},
    # a step's record that blocks or fails the workflow
    **{(s, "phase_complete", "rounds_exhausted"): "blocked" for s in _RUNNING},
    **{(s, "phase_complete", "nothing_to_rework"): "blocked" for s in _RUNNING},
    **{(s, "phase_complete", "tests_exhausted"): "blocked" for s in _RUNNING},
    **{(s, "phase_fail", "stop_requested"): "stopped" for s in _RUNNING},  # retries left
    **{(s, "phase_fail", "retries_exhausted"): "failed" for s in _RUNNING},
    ("in_progress", "task_fail", "retries_exhausted"): "failed",
    ("in_progress", "block", ""): "blocked",
    # resume: retry or skip runs on; abort stops for good (``abortedAt``)
    **{(s, "retry", ""): "in_progress" for s in ("in_progress", *_HALTED)},
    **{(s, "skip", ""): "in_progress" for s in _HALTED},
    **{(s, "abort", ""): "stopped" for s in ("pending", "in_progress", *_HALTED)},
}

USER_PHASE_EVENTS = ("phase_start", "phase_complete", "phase_fail", "retry", "skip")
"""The events a phase error lists as allowed from here (the others are internal moves)."""


def phase_accepts(status: str, event: str) -> bool:
    """Whether the phase table has any move for ``event`` from ``status``."""
    return any(k[0] == status and k[1] == event for k in PHASE_MOVES)


def phase_allowed(status: str) -> list[str]:
    """The user events allowed from ``status``, as a refusal lists them."""
    return sorted(
        {
            k[1].replace("_", " ")
            for k in PHASE_MOVES
            if k[0] == status and k[1] in USER_PHASE_EVENTS
        }
    )


def phase_target(subject: str, status: str, event: str, guard: Guard = "") -> Status:
    """The phase's new status, read from ``PHASE_MOVES``; a missing entry is refused."""
    return _target(PHASE_MOVES, subject, status, event, guard)


def workflow_target(status: str, event: str, guard: Guard = "") -> Status:
    """The workflow's new status, read from ``WORKFLOW_MOVES``; a missing entry is refused."""
    return _target(WORKFLOW_MOVES, "workflow", status, event, guard)


def task_target(subject: str, status: str, event: str, guard: Guard = "") -> Status:
    """The task's new status, read from ``TASK_MOVES``; a missing entry is refused."""
    return _target(TASK_MOVES, subject, status, event, guard)


def _target(
    table: dict[Key, Status], subject: str, status: str, event: str, guard: Guard
) -> Status:
    try:
        return table[(status, event, guard)]
    except KeyError:
        raise TransitionNotAllowedError(
            subject,
            status,
            event.replace("_", " "),
            hint=f"no move in the table for guard '{guard}'" if guard else "",
        ) from None
