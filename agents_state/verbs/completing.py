"""Completing a phase with its artifact (issue 35: out of ``App``): the artifact checked (a
review's issues counted, a test run's results read, a brainstorm's areas counted), then one
``PhaseComplete`` under the lock, the artifact written after the engine accepted it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents_state.workflow import SIZING_PHASE, TEST_RUN, get_phase

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine import events as ev
    from agents_state.engine.context import Outcome
    from agents_state.models import State
    from agents_state.testresults import TestRun

__all__ = ["complete_phase", "drafted"]


def complete_phase(
    app: App,
    phase_id: str,
    artifact: bytes | None,
    shown: str | None = None,
    next_agents: int | None = None,
    ran: bool = False,
) -> Outcome:
    """Complete a phase; ``artifact`` None: the one already stored; ``shown`` is the artifact's
    name as the caller passed it; ``ran``: the artifact is what ``phase run`` got from running
    the configured TEST commands."""
    from agents_state.engine import events as ev
    from agents_state.engine.context import check_phase_id
    from agents_state.errors import TransitionNotAllowedError

    check_phase_id(phase_id)
    spec = get_phase(phase_id)
    if phase_id == TEST_RUN and not ran and app.config.stages.TEST.commands:
        # issue 32: the gate's result comes from the engine running them, not from a file
        raise TransitionNotAllowedError(
            f"phase {TEST_RUN}",
            "judged by its configured TEST commands",
            "be completed with a results file",
            hint=f"run: agents-state phase run {TEST_RUN}",
        )

    def event() -> ev.Event:
        data = artifact if artifact is not None else _existing_artifact(app, phase_id)
        name = shown or f".agents/phases/{spec.artifact}"
        if spec.artifact.endswith(".md"):
            from agents_state.jsonio import check_markdown

            check_markdown(data, name)
        issues, blocking = _review_counts(app, phase_id, data, name)
        run = _test_run(phase_id, data, name)
        sized = _areas_count(phase_id, data) or next_agents
        same = artifact is not None and _stored(app, spec.artifact) == artifact
        return ev.PhaseComplete(
            phase=phase_id,
            issues=issues,
            blocking_issues=blocking,
            tests_passed=run.passed if run else None,
            tests_reported=True if run and not ran else None,
            failed_commands=run.failed if run else (),
            same_artifact=same,
            next_agent_count=sized,
        )

    def write(state: State, out: Outcome) -> None:
        if artifact is not None:
            app.store.write_artifact(spec.artifact, artifact)

    return app.run(event, write)


def _stored(app: App, name: str) -> bytes | None:
    """The artifact as stored now (a planted link or FIFO is refused, exit 5)."""
    if app.store_url is not None:
        stored: bytes | None = app.store.read_artifact(name)
        return stored
    from agents_state.jsonio import MAX_INPUT_BYTES
    from agents_state.store.fsops import read_regular

    try:
        return read_regular(
            app.file_store.phases_dir / name, f".agents/phases/{name}", MAX_INPUT_BYTES
        )
    except OSError:
        return None


def _existing_artifact(app: App, phase_id: str) -> bytes:
    spec = get_phase(phase_id)
    data: bytes | None = app.store.read_artifact(spec.artifact)
    if data is None:
        from agents_state.errors import NotFoundError

        raise NotFoundError(
            f"phase {phase_id} needs its artifact: write .agents/phases/{spec.artifact} or "
            f"pass --artifact FILE (or --artifact - for stdin)"
        )
    return data


def _test_run(phase_id: str, data: bytes, shown: str) -> TestRun | None:
    if phase_id != TEST_RUN:
        return None
    from agents_state.jsonio import loads_strict
    from agents_state.testresults import read_results

    return read_results(loads_strict(data, shown), shown)


def _review_counts(app: App, phase_id: str, data: bytes, shown: str) -> tuple[int | None, int]:
    spec = get_phase(phase_id)
    if not spec.is_json:
        return None, 0
    from agents_state.jsonio import loads_strict

    doc = loads_strict(data, shown)
    if spec.reviews is None:
        return None, 0
    from agents_state.engine.review import count_issues

    return count_issues(doc, shown, app.config.review_for(phase_id).blockingSeverity)


def _areas_count(phase_id: str, data: bytes) -> int | None:
    """1.1: how many areas the brainstorm lists (issue 33: they size the plan fan-out, over the
    estimate on the command); None when it lists none the engine can read."""
    if phase_id != SIZING_PHASE:
        return None
    from agents_state.engine.areas import brainstorm_areas

    areas = brainstorm_areas(data.decode("utf-8", "replace"))
    return min(len(areas), 10) if areas else None


def drafted(app: App, phase_id: str, artifact: str) -> bytes | None:
    """``phase complete --from-answers`` (issue 34, item 2): the artifact, drafted from the
    answers the engine recorded when the model wrote none (``artifact``: its file name).

    None when the file exists (the model wrote or edited it: it is the artifact); else the
    draft of the phase's recorded answers, refused while an agent of its fan-out has not
    answered."""
    import os

    from agents_state.engine.draft import draft_artifact
    from agents_state.engine.fanout import recorded
    from agents_state.errors import NotFoundError, TransitionNotAllowedError
    from agents_state.workflow import get_phase

    path = artifact if os.path.isabs(artifact) else os.path.join(app.root_dir, artifact)
    if os.path.lexists(path):
        return None
    state = app.state()
    if state is None:
        raise NotFoundError('no active workflow; start one: agents-state dispatch "<task>"')
    action = app.next_action(state, native=True, advice=False)
    left = (action.get("workflow") or {}).get("args", {}).get("agents") or []
    answers = recorded(state, phase_id)
    if (action.get("phase") == phase_id and left) or not answers:
        keys = ", ".join(str(a.get("key")) for a in left) or "all"
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            f"waiting for the answers of its agents ({keys})",
            "be completed from its answers",
            hint="run agents-state next: its Workflow call runs the agents that have not answered",
        )
    spec = get_phase(phase_id)
    return draft_artifact(
        phase_id, spec.name, state.task, answers, as_json=spec.artifact.endswith(".json")
    )
