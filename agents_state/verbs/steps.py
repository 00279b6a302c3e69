"""Recording steps: a phase (start, complete, fail) and a sub-agent's handoff (issue 36: shared
by the CLI and MCP; the tasks of phase 2.1 are ``verbs.tasks``).  Inputs come as values (an
artifact's bytes, not a file name): reading files is the caller's part."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents_state.verbs.common import outcome
from agents_state.workflow import SIZING_PHASE

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.models import State
    from agents_state.verbs.results import Recorded

__all__ = [
    "check_complete",
    "handoff_aggregate",
    "handoff_record",
    "phase_complete",
    "phase_fail",
    "phase_run",
    "phase_start",
]


def phase_start(app: App, phase_id: str) -> Recorded:
    from agents_state.engine.events import PhaseStart
    from agents_state.engine.phases import check_phase_id

    out = app.run(PhaseStart(phase=check_phase_id(phase_id)))
    return outcome(app, out.message, state=out.state)


def phase_complete(
    app: App,
    phase_id: str,
    body: bytes | None,
    shown: str | None,
    plan_agents: int | None = None,
) -> Recorded:
    """Complete ``phase_id`` with its artifact ``body`` (``shown``: where it came from)."""
    check_complete(phase_id, plan_agents)
    from agents_state.gitwork import isolated

    said = ""
    if isolated(app.root_dir):  # issue 33: the phase's work is on the branch, not only on disk
        from agents_state.gitwork.steps import settle_integration

        said = settle_integration(app, phase_id)
    from agents_state.verbs.completing import complete_phase

    out = complete_phase(app, phase_id, body, shown, plan_agents)
    if out.changed and out.state.status == "completed" and out.state.git is not None:
        said += _hand_over(app, out.state)
    return outcome(app, out.message + said, state=out.state)


def check_complete(phase_id: str, plan_agents: int | None) -> None:
    """The phase id and ``plan_agents`` of a completion, checked before its artifact is read."""
    from agents_state.engine.phases import check_phase_id
    from agents_state.errors import UsageError

    check_phase_id(phase_id)
    if plan_agents is not None and phase_id != SIZING_PHASE:
        raise UsageError("--plan-agents is for phase 1.1 (it sizes phase 1.2)")


def _hand_over(app: App, state: State) -> str:
    """Issue 33: the completion says where the work is; with the ``commit`` git workflow it is
    brought into the user's branch when their checkout allows it untouched."""
    from agents_state.gitwork.handover import bring_in, facts, sentence

    brought = bring_in(app, state) if app.config.stages.FINAL.git.workflow == "commit" else ""
    f = facts(app, state)
    return "" if f is None else " " + sentence(f, brought)


def phase_fail(app: App, phase_id: str, error: str) -> Recorded:
    from agents_state.engine.events import PhaseFail
    from agents_state.engine.phases import check_phase_id

    out = app.run(PhaseFail(phase=check_phase_id(phase_id), error=error))
    return outcome(app, out.message, state=out.state)


def phase_run(app: App, phase_id: str) -> Recorded:
    """Run the configured TEST commands of phase ``phase_id`` (3.1 only) where the work is (the
    integration worktree under isolation, settled first) and complete the phase with their
    results."""
    from agents_state.engine.phases import check_phase_id
    from agents_state.errors import TransitionNotAllowedError, UsageError
    from agents_state.workflow import TEST_RUN

    check_phase_id(phase_id)
    if phase_id != TEST_RUN:
        raise UsageError(f"phase {phase_id} has no commands to run; only 3.1 does")
    state = app.require()
    if state.currentPhase != TEST_RUN:
        raise TransitionNotAllowedError(
            f"phase {TEST_RUN}",
            state.phase(TEST_RUN).status,
            "run",
            hint=f"the current phase is {state.currentPhase}",
        )
    if state.status != "in_progress" or state.abortedAt:
        raise TransitionNotAllowedError(
            "workflow",
            "aborted" if state.abortedAt else state.status,
            "run the tests",
            hint="run: agents-state resume",
        )
    cfg = app.config.stages.TEST
    where, said = app.root, ""
    if state.git is not None:  # the TEST gate judges the merged result (issue 22)
        from agents_state.engine.worktrees import INTEGRATION_DIR
        from agents_state.gitwork.rooms import work_dir
        from agents_state.gitwork.steps import settle_integration

        said = settle_integration(app, TEST_RUN)  # issue 33: the branch's files, committed
        where = work_dir(app, state.git, INTEGRATION_DIR)
    from agents_state.commands import run_phase_commands
    from agents_state.verbs.completing import complete_phase

    data = run_phase_commands(cfg.commands, cfg.timeoutSeconds, where)
    out = complete_phase(app, TEST_RUN, data, ran=True)
    return outcome(app, out.message + said, state=out.state)


def handoff_record(
    app: App,
    text: str,
    shown: str,
    kind: str = "auto",
    task: str | None = None,
    phase: str | None = None,
    agent: str | None = None,
) -> Recorded:
    """Apply a sub-agent's response ``text`` (``shown``: where it came from) to the workflow."""
    from agents_state.handoff.ops import record as run_record
    from agents_state.handoff.ops import validate as run_validate

    h = run_validate(text, shown, kind)
    out = run_record(app.store, app.policy, h, task=task, phase=phase, agent=agent)
    return outcome(app, out.message, state=out.state, handoff=h.to_json())


def handoff_aggregate(
    app: App, texts: list[tuple[str, str]], kind: str = "auto", phase: str | None = None
) -> Recorded:
    """Aggregate parallel responses (``texts``: each response and where it came from) and apply
    the aggregate decision to the workflow (to ``phase`` when given)."""
    from agents_state.handoff.ops import aggregate_texts
    from agents_state.handoff.ops import record as run_record

    h = aggregate_texts(texts, kind)
    out = run_record(app.store, app.policy, h, phase=phase)
    return outcome(app, out.message, state=out.state, aggregate=h.data)
