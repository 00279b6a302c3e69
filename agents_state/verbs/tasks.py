"""The tasks of phase 2.1: load their definitions, then claim, start, done, fail (issue 36:
shared by the CLI and MCP).  Inputs come as values (the definitions' and a result's bytes)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agents_state.verbs.common import outcome
from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.phases import Outcome
    from agents_state.models import State
    from agents_state.verbs.results import Claimed, Recorded, TaskReport

__all__ = ["agent_name", "task_claim", "task_done", "task_fail", "task_start", "tasks_load"]


def tasks_load(app: App, data: bytes, shown: str, wave_size: int | None = None) -> Recorded:
    """Check the task definitions ``data`` (``shown``: where they came from), compute the waves
    (at most ``wave_size`` tasks each) and store both."""
    import orjson

    from agents_state.engine.events import TasksLoad
    from agents_state.engine.waves import parse_tasks, plan_waves
    from agents_state.gitwork.steps import after_load, isolation_note
    from agents_state.jsonio import loads_strict

    defs = parse_tasks(loads_strict(data, shown), shown)
    git, preset = _load_git(app)
    size = wave_size or app.config.stages.IMPLEMENT.tasks.maxParallelAgents
    if git is None:  # no isolation: tasks whose files overlap never share a wave (issue 22)
        from agents_state.engine.waves import plan_waves_apart

        waves = plan_waves_apart(defs, size)
    else:
        waves = plan_waves(defs, size)
    event = TasksLoad(
        tasks=tuple((t.id, t.as_state()) for t in defs),
        waves=tuple(tuple(w) for w in waves),
        source=shown,
        git=git,
    )
    body = orjson.dumps(
        {"tasks": [{"id": t.id, **t.as_state()} for t in defs]}, option=orjson.OPT_INDENT_2
    )

    def write(state: State, out: Outcome) -> None:
        app.store.write_artifact("2.1-tasks.json", body)

    out = app.run(event, write)
    after_load(app, out.state)
    message = out.message + (isolation_note(out.state) if out.changed else "")
    if out.changed and out.state.git is None:
        message += "; isolation off: tasks share the working tree" + (
            "" if preset else ", so tasks whose files overlap run in different waves"
        )
    return outcome(app, message, state=out.state, waves=[list(w) for w in waves])


def _load_git(app: App) -> tuple[dict[str, Any] | None, bool]:
    """The isolation block for the load, and whether the state already lists the waves."""
    state = app.state()
    if state is None:
        return None, False
    from agents_state.gitwork.rooms import load_git

    return load_git(app, state), bool(state.phase(TASK_PHASE).waves)


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


def _report(
    out: Outcome, room: dict[str, Any] | None = None, said: str | None = None
) -> TaskReport:
    """A task command's answer; ``room`` adds the task's worktree and branch; ``said``: a
    fuller message than the engine's."""
    from agents_state.verbs.results import TaskReport

    message = out.message if said is None else said
    return TaskReport(message, out.changed, out.state.revision, out.data, room)


def task_claim(app: App, task_id: str | None, agent: str | None) -> Claimed:
    """Take the next ready task of the current wave (or ``task_id``) for ``agent``."""
    from agents_state.engine.events import TaskClaim
    from agents_state.gitwork.steps import after_claim

    _check_git(app)
    out = app.run(TaskClaim(agent=agent_name(agent), task_id=task_id))
    tid = out.data["task"]
    room = after_claim(app, out.state, tid)
    t = (out.state.phase(TASK_PHASE).tasks or {})[tid]
    from agents_state.verbs.results import Claimed

    definition = {
        "title": t.title,
        "description": t.description,
        "files": t.files,
        "complexity": t.complexity,
    }
    return Claimed(
        out.message,
        tid,
        out.data["attempt"],
        out.data["agent"],
        definition,
        room,
        out.state.revision,
    )


def task_start(app: App, task_id: str, agent: str | None) -> TaskReport:
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
) -> TaskReport:
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

    def write(state: State, out: Outcome) -> None:
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
    return _report(out, said=said)


def task_fail(
    app: App, task_id: str, error: str, agent: str | None = None, attempt: int | None = None
) -> TaskReport:
    from agents_state.engine.events import TaskFail

    return _report(app.run(TaskFail(task_id=task_id, error=error, agent=agent, attempt=attempt)))
