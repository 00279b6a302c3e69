"""The TEST gate (pure; called by ``engine``): failing tests never pass silently.

A test run (3.1) that fails sends the workflow to 3.2 (analyse and fix); completing 3.2 always
sends it back to 3.1, so the tests run again on the fixed code.  After ``retries.maxPerPhase``
fix rounds that still fail, the workflow is blocked and the next action asks the user: retry
(a fresh set of fix rounds), skip (accept the failing tests; recorded, and shown in the final
status) or abort.  A passing run goes on to 3.3; an analysis phase never needed is skipped.
``engine._advance`` refuses to finish a workflow whose last test run failed unless a person
skipped it.
"""

from __future__ import annotations

from agents_state.engine import events as ev
from agents_state.engine.advance import advance, tests_unresolved
from agents_state.engine.context import Ctx, Outcome
from agents_state.engine.table import phase_target, workflow_target
from agents_state.models import State
from agents_state.workflow import TEST_ANALYSIS, TEST_RUN, get_phase

__all__ = [
    "TEST_ANALYSIS",
    "TEST_RUN",
    "after_analysis",
    "record_test_run",
    "retry_tests",
    "skip_tests",
    "tests_unresolved",
]

_RESULTS = f".agents/phases/{get_phase(TEST_RUN).artifact}"
_RUN, _ANALYSIS = f"phase {TEST_RUN}", f"phase {TEST_ANALYSIS}"


def record_test_run(c: Ctx, e: ev.PhaseComplete) -> Outcome:
    state, ts = c.state, c.ts
    run = state.phase(TEST_RUN)
    run.startedAt = run.startedAt or ts
    run.completedAt, run.error, run.retryAt = ts, None, None
    run.passed = bool(e.tests_passed)
    run.reported = True if e.tests_reported else None
    state.files[get_phase(TEST_RUN).file_key] = _RESULTS
    analysis = state.phase(TEST_ANALYSIS)
    if run.passed:
        run.status = phase_target(_RUN, run.status, "phase_complete", "tests_passed")
        if analysis.status == "pending":
            analysis.status = phase_target(
                _ANALYSIS,
                analysis.status,
                "tests_passed",
                "fixed" if run.failedRuns else "unneeded",
            )
        run.failedRuns = 0
        return advance(c, TEST_RUN, f"phase {TEST_RUN} Run Tests passed")
    run.failedRuns += 1
    failed = ", ".join(e.failed_commands) or "see the results"
    limit = c.policy.max_per_phase
    if run.failedRuns > limit:
        run.status = phase_target(_RUN, run.status, "phase_complete", "tests_exhausted")
        state.status = workflow_target(state.status, "phase_complete", "tests_exhausted")
        state.blockedReason = (
            f"tests still fail after {limit} fix round(s) (failed: {failed}); see {_RESULTS}"
        )
        return Outcome(
            state,
            f"phase {TEST_RUN} Run Tests FAILED ({failed}); workflow blocked: "
            "ask the user (see: agents-state next)",
        )
    run.status = phase_target(_RUN, run.status, "phase_complete", "tests_failed")
    analysis.status = phase_target(_ANALYSIS, analysis.status, "tests_failed")
    analysis.completedAt = None
    out = advance(
        c,
        TEST_RUN,
        f"phase {TEST_RUN} Run Tests FAILED ({failed}): next phase "
        f"{TEST_ANALYSIS} analyses and fixes them (fix round "
        f"{run.failedRuns} of {limit})",
    )
    return Outcome(out.state, out.message)


def after_analysis(c: Ctx, message: str) -> Outcome | None:
    """The analysis completed: back to the test run on the fixed code (None: carry on)."""
    state = c.state
    run = state.phase(TEST_RUN)
    if run.status == "skipped" or run.passed is None:  # no test verdict recorded: nothing to redo
        return None
    run.status = phase_target(_RUN, run.status, "analysis_done")
    run.completedAt = None
    state.currentPhase, state.currentStage = TEST_RUN, get_phase(TEST_RUN).stage
    msg = message + f"; back to phase {TEST_RUN} to run the tests again"
    if state.stopRequested:
        state.status = workflow_target(state.status, "advance", "stop_requested")
        state.stopRequested = False
        msg += "; workflow stopped as requested"
    return Outcome(state, msg)


def retry_tests(state: State) -> str:
    """A person chose another round after the tests kept failing: fix, then run again."""
    run = state.phase(TEST_RUN)
    run.status = phase_target(_RUN, run.status, "retry", "tests_blocked")
    run.failedRuns = 0
    analysis = state.phase(TEST_ANALYSIS)
    analysis.status = phase_target(_ANALYSIS, analysis.status, "tests_retried")
    analysis.completedAt = None
    state.currentPhase, state.currentStage = TEST_ANALYSIS, get_phase(TEST_ANALYSIS).stage
    return f"another round of fixes: phase {TEST_ANALYSIS}, then the tests run again"


def skip_tests(state: State) -> str:
    """A person accepted the failing tests: the run (and an unneeded analysis) are skipped."""
    run = state.phase(TEST_RUN)
    run.status = phase_target(_RUN, run.status, "skip")
    run.skippedByUser = True
    analysis = state.phase(TEST_ANALYSIS)
    if analysis.status == "pending":
        analysis.status = phase_target(_ANALYSIS, analysis.status, "tests_skipped")
        analysis.skippedByUser = True
    return "failing tests accepted by the user"
