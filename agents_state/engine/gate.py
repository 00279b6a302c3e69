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

from typing import TYPE_CHECKING

from agents_state.engine import events as ev
from agents_state.models import State

if TYPE_CHECKING:
    from agents_state.engine.phases import Outcome, _Ctx

__all__ = ["TEST_ANALYSIS", "TEST_RUN", "after_analysis", "record_test_run", "retry_tests",
           "skip_tests", "tests_unresolved"]

TEST_RUN, TEST_ANALYSIS = "3.1", "3.2"
_RESULTS = ".agents/phases/3.1-test-results.json"


def tests_unresolved(state: State) -> bool:
    """The last test run failed and no person chose to skip it."""
    run = state.phase(TEST_RUN)
    return run.passed is False and run.status != "skipped"


def record_test_run(c: _Ctx, e: ev.PhaseComplete) -> Outcome:
    from agents_state.engine.phases import Outcome, _advance

    state, ts = c.state, c.ts
    run = state.phase(TEST_RUN)
    run.startedAt = run.startedAt or ts
    run.completedAt, run.error, run.retryAt = ts, None, None
    run.passed = bool(e.tests_passed)
    state.files["testResults"] = _RESULTS
    analysis = state.phase(TEST_ANALYSIS)
    if run.passed:
        run.status = "completed"
        if analysis.status == "pending":
            analysis.status = "completed" if run.failedRuns else "skipped"
        run.failedRuns = 0
        return _advance(c, TEST_RUN, "phase 3.1 Run Tests passed")
    run.failedRuns += 1
    failed = ", ".join(e.failed_commands) or "see the results"
    limit = c.policy.max_per_phase
    if run.failedRuns > limit:
        run.status = "blocked"
        state.status = "blocked"
        state.blockedReason = (f"tests still fail after {limit} fix round(s) (failed: {failed}); "
                               f"see {_RESULTS}")
        return Outcome(state, f"phase 3.1 Run Tests FAILED ({failed}); workflow blocked: ask "
                              "the user (see: agents-state next)")
    run.status = "completed"
    analysis.status, analysis.completedAt = "pending", None
    out = _advance(c, TEST_RUN, f"phase 3.1 Run Tests FAILED ({failed}): next phase 3.2 "
                                f"analyses and fixes them (fix round {run.failedRuns} of {limit})")
    return Outcome(out.state, out.message)


def after_analysis(c: _Ctx, message: str) -> Outcome | None:
    """3.2 completed: back to 3.1 to run the tests on the fixed code (None: carry on)."""
    from agents_state.engine.phases import Outcome

    state = c.state
    run = state.phase(TEST_RUN)
    if run.status == "skipped" or run.passed is None:  # no test verdict recorded: nothing to redo
        return None
    run.status, run.completedAt = "pending", None
    state.currentPhase, state.currentStage = TEST_RUN, "TEST"
    msg = message + "; back to phase 3.1 to run the tests again"
    if state.stopRequested:
        state.status, state.stopRequested = "stopped", False
        msg += "; workflow stopped as requested"
    return Outcome(state, msg)


def retry_tests(state: State) -> str:
    """A person chose another round after the tests kept failing: fix (3.2), then run (3.1)."""
    run = state.phase(TEST_RUN)
    run.status, run.failedRuns = "completed", 0
    analysis = state.phase(TEST_ANALYSIS)
    analysis.status, analysis.completedAt = "pending", None
    state.currentPhase, state.currentStage = TEST_ANALYSIS, "TEST"
    return "another round of fixes: phase 3.2, then the tests run again"


def skip_tests(state: State) -> str:
    """A person accepted the failing tests: 3.1 (and an unneeded 3.2) are skipped, on record."""
    run = state.phase(TEST_RUN)
    run.status, run.skippedByUser = "skipped", True
    analysis = state.phase(TEST_ANALYSIS)
    if analysis.status == "pending":
        analysis.status, analysis.skippedByUser = "skipped", True
    return "failing tests accepted by the user"
