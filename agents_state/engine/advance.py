"""Moving on after a phase: the next phase, a stop request, compaction, the end of the workflow.

Shared by every event that finishes a phase (complete, skip, the last task, the test gate), so
it sits below them all: it imports only ``context``, ``table`` and ``compaction``.
"""

from __future__ import annotations

from agents_state.engine.compaction import pass_boundary
from agents_state.engine.context import DONE, Ctx, Outcome
from agents_state.engine.table import phase_target, workflow_target
from agents_state.models import State
from agents_state.policy import Policy
from agents_state.workflow import PHASE_IDS, TEST_RUN, get_phase

__all__ = ["advance", "compaction_boundary", "tests_unresolved"]


def tests_unresolved(state: State) -> bool:
    """The last test run failed and no person chose to skip it."""
    run = state.phase(TEST_RUN)
    return run.passed is False and run.status != "skipped"


def advance(c: Ctx, done: str, message: str, gate_passed: bool = False) -> Outcome:
    """Move ``currentPhase`` past ``done``; finish the workflow after the last phase.  A gated
    phase just recorded stops here until a person answers (issue 36, ``engine.humangate``);
    ``gate_passed``: the person approved it."""
    state = c.state
    if done in c.policy.gates and not gate_passed and state.phase(done).status == "completed":
        from agents_state.engine.gatewait import person_line
        from agents_state.models import GateWait

        state.gate = GateWait(phase=done, since=c.ts)
        state.currentPhase, state.currentStage = done, get_phase(done).stage
        return Outcome(
            state,
            f"{message}; the workflow waits at the gate after phase {done}: {person_line(done)}",
        )
    after = PHASE_IDS[PHASE_IDS.index(done) + 1 :]
    nxt = next((pid for pid in after if state.phase(pid).status not in DONE), None)
    if nxt is None:
        if tests_unresolved(state):  # never "completed" over failing tests
            state.status = workflow_target(state.status, "finish", "tests_unresolved")
            state.blockedReason = (
                "the last test run failed; run the tests again or ask the user to skip them"
            )
            state.currentPhase, state.currentStage = TEST_RUN, get_phase(TEST_RUN).stage
            run = state.phase(TEST_RUN)
            run.status = phase_target(f"phase {TEST_RUN}", run.status, "finish", "tests_unresolved")
            return Outcome(state, message + "; workflow blocked: the last test run failed")
        # a stop requested while the last phase ran has nothing left to stop (found by the
        # phase machine: a workflow completed with its stop request still set)
        state.status, state.stopRequested = workflow_target(state.status, "finish"), False
        state.currentPhase, state.currentStage = done, get_phase(done).stage
        return Outcome(state, message + "; workflow completed")
    pass_boundary(state)  # one not compacted at (a wave's tasks go on without phase events)
    state.compaction.pending = compaction_boundary(c.policy, done, nxt)
    state.currentPhase, state.currentStage = nxt, get_phase(nxt).stage
    if state.stopRequested:
        state.status = workflow_target(state.status, "advance", "stop_requested")
        state.stopRequested = False
        return Outcome(state, message + "; workflow stopped as requested")
    return Outcome(state, message)


def compaction_boundary(policy: Policy, done: str, nxt: str) -> str | None:
    """The boundary to compact at between ``done`` and ``nxt``, or None."""
    stage_done = get_phase(done).stage
    if policy.compact_between_stages and stage_done != get_phase(nxt).stage:
        return stage_done
    if policy.compact_between_phases:
        return done
    return None
