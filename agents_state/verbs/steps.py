"""Recording steps: a phase (start, complete, fail), a task (claim, start, done, fail) and a
sub-agent's handoff (issue 36: shared by the CLI and MCP).  Inputs come as values (an artifact's
bytes, not a file name): reading files is the caller's part."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agents_state.verbs.common import outcome
from agents_state.workflow import SIZING_PHASE, TASK_PHASE

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.phases import Outcome
    from agents_state.models import State

__all__ = [
    "agent_name",
    "check_complete",
    "handoff_record",
    "phase_complete",
    "phase_fail",
    "phase_start",
    "task_claim",
    "task_done",
    "task_fail",
    "task_start",
]


def phase_start(app: App, phase_id: str) -> dict[str, Any]:
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
) -> dict[str, Any]:
    """Complete ``phase_id`` with its artifact ``body`` (``shown``: where it came from)."""
    check_complete(phase_id, plan_agents)
    from agents_state.gitwork import isolated

    said = ""
    if isolated(app.root_dir):  # issue 33: the phase's work is on the branch, not only on disk
        from agents_state.gitwork.steps import settle_integration

        said = settle_integration(app, phase_id)
    out = app.complete_phase(phase_id, body, shown, plan_agents)
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


def phase_fail(app: App, phase_id: str, error: str) -> dict[str, Any]:
    from agents_state.engine.events import PhaseFail
    from agents_state.engine.phases import check_phase_id

    out = app.run(PhaseFail(phase=check_phase_id(phase_id), error=error))
    return outcome(app, out.message, state=out.state)


def agent_name(agent: str | None) -> str:
    """Who claims: the given name, else ``$AGENTS_STATE_AGENT``, else the parent's pid."""
    return agent or os.environ.get("AGENTS_STATE_AGENT") or f"pid-{os.getppid()}"


def _check_git(app: App) -> None:
    """A forged state's ``git`` block is refused before the claim is recorded (issue 32)."""
    from agents_state.gitwork import isolated

    if not isolated(app.root_dir):
        return
    state = app.state()
    if state is not None and state.git is not None:
        from agents_state.gitwork.confine import check_git_info

        check_git_info(state.git)


def _report(out: Outcome, room: dict[str, Any] | None = None) -> dict[str, Any]:
    """A task command's answer; ``room`` adds the task's worktree and branch (or a fuller
    message)."""
    room = dict(room or {})
    message = room.pop("message", out.message)
    return {
        "message": message,
        "changed": out.changed,
        "revision": out.state.revision,
        **out.data,
        **room,
    }


def task_claim(app: App, task_id: str | None, agent: str | None) -> dict[str, Any]:
    """Take the next ready task of the current wave (or ``task_id``) for ``agent``."""
    from agents_state.engine.events import TaskClaim
    from agents_state.gitwork.steps import after_claim

    _check_git(app)
    out = app.run(TaskClaim(agent=agent_name(agent), task_id=task_id))
    tid = out.data["task"]
    room = after_claim(app, out.state, tid)
    t = (out.state.phase(TASK_PHASE).tasks or {})[tid]
    return {
        "message": out.message,
        "task": tid,
        "attempt": out.data["attempt"],
        "agent": out.data["agent"],
        "title": t.title,
        "description": t.description,
        "files": t.files,
        "complexity": t.complexity,
        **room,
        "revision": out.state.revision,
    }


def task_start(app: App, task_id: str, agent: str | None) -> dict[str, Any]:
    from agents_state.engine.events import TaskStart
    from agents_state.gitwork.steps import after_claim

    _check_git(app)
    out = app.run(TaskStart(task_id=task_id, agent=agent))
    return _report(out, after_claim(app, out.state, task_id))


def task_done(
    app: App,
    task_id: str,
    summary: str | None = None,
    result: tuple[bytes, str] | None = None,
    agent: str | None = None,
    attempt: int | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Record ``task_id`` completed; ``result``: a result file's bytes and where they came from,
    kept as ``2.1-result-<ID>.md``; ``force``: a person completes a task nobody started."""
    from agents_state.engine.events import TaskDone
    from agents_state.jsonio import check_markdown
    from agents_state.store.paths import safe_name

    kept = None
    data: bytes | None = None
    if result is not None:
        data, shown = result
        check_markdown(data, shown)
        kept = f".agents/phases/2.1-result-{safe_name(task_id, 'task id')}.md"

    def write(state: object, out: object) -> None:
        if data is not None:
            app.store.write_artifact(f"2.1-result-{task_id}.md", data)

    from agents_state.gitwork import isolated
    from agents_state.gitwork.steps import Committed, done_notes

    c = Committed()
    if isolated(app.root_dir):
        from agents_state.gitwork.steps import before_done

        c = before_done(app, task_id, summary)
    if c.outside:  # issue 33: later phases read the summary; a stray new file is named there
        summary = (
            summary or ""
        ).rstrip() + f" (new files outside its files: {', '.join(c.outside)})"
        summary = summary.lstrip()
    event = TaskDone(
        task_id=task_id,
        agent=agent,
        summary=summary,
        result=kept,
        attempt=attempt,
        branch=c.branch,
        head=c.head,
        unstarted=force,
    )
    out = app.run(event, write)
    said = out.message
    if c.unchanged and out.changed:  # issue 22: a task whose worktree has no change says so
        said += f"; no change on its branch {c.branch} (nothing to merge)"
    if out.changed:
        said += done_notes(c)
    if out.changed and out.state.git is not None:
        from agents_state.gitwork.steps import merge_due

        if merge_due(out.state):  # issue 33: never here, under the running agent's feet
            said += (
                f"; the wave is done: it is merged into {out.state.git.branch} once its agents "
                "have stopped (this worktree stays until then)"
            )
    return _report(out, {"message": said} if said != out.message else None)


def task_fail(
    app: App, task_id: str, error: str, agent: str | None = None, attempt: int | None = None
) -> dict[str, Any]:
    from agents_state.engine.events import TaskFail

    return _report(app.run(TaskFail(task_id=task_id, error=error, agent=agent, attempt=attempt)))


def handoff_record(
    app: App,
    text: str,
    shown: str,
    kind: str = "auto",
    task: str | None = None,
    phase: str | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    """Apply a sub-agent's response ``text`` (``shown``: where it came from) to the workflow."""
    from agents_state.handoff.ops import record as run_record
    from agents_state.handoff.ops import validate as run_validate

    h = run_validate(text, shown, kind)
    out = run_record(app.store, app.policy, h, task=task, phase=phase, agent=agent)
    return outcome(app, out.message, state=out.state, handoff=h.to_json())
