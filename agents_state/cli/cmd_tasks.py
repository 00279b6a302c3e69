"""tasks load; task claim | start | done | fail."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import click

from agents_state.cli.options import app_from, complete_task_ids, emit_json, json_option
from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from agents_state.app import App

__all__ = ["task", "tasks"]


@click.group()
def tasks() -> None:
    """Task definitions of phase 2.1.

    \b
    Example:
      agents-state tasks load .agents/phases/2.1-tasks.json
    """


@tasks.command()
@click.argument("file", metavar="FILE")
@click.option(
    "--wave-size",
    type=click.IntRange(1, 100_000),
    help="Split levels into waves of at most N (default: IMPLEMENT tasks.maxParallelAgents).",
)
@json_option
@click.pass_context
def load(ctx: click.Context, file: str, wave_size: int | None, as_json: bool) -> int:
    """Validate task definitions with dependencies; compute and store the waves.

    \b
    Example:
      agents-state tasks load tasks.json
    """
    import orjson

    from agents_state.cli.options import input_path, print_outcome
    from agents_state.engine.events import TasksLoad
    from agents_state.engine.waves import parse_tasks, plan_waves
    from agents_state.gitwork.steps import after_load, isolation_note
    from agents_state.jsonio import loads_strict, read_input_bytes

    app = app_from(ctx)
    data = loads_strict(read_input_bytes(input_path(file, app.root), file), file)
    defs = parse_tasks(data, file)
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
        source=file,
        git=git,
    )
    body = orjson.dumps(
        {"tasks": [{"id": t.id, **t.as_state()} for t in defs]}, option=orjson.OPT_INDENT_2
    )

    def write(state: object, out: object) -> None:
        app.store.write_artifact("2.1-tasks.json", body)

    out = app.run(event, write)
    after_load(app, out.state)
    message = out.message + (isolation_note(out.state) if out.changed else "")
    if out.changed and out.state.git is None:
        message += "; isolation off: tasks share the working tree" + (
            "" if preset else ", so tasks whose files overlap run in different waves"
        )
    print_outcome(app, message, as_json, state=out.state, waves=[list(w) for w in waves])
    return 0


def _load_git(app: App) -> tuple[dict[str, Any] | None, bool]:
    """The isolation block for the load, and whether the state already lists the waves."""
    state = app.state()
    if state is None:
        return None, False
    from agents_state.gitwork.rooms import load_git

    return load_git(app, state), bool(state.phase(TASK_PHASE).waves)


@click.group()
def task() -> None:
    """Task lifecycle for parallel sub-agents: claim, start, done, fail.

    \b
    Example:
      agents-state task claim --agent worker-1
      agents-state task done task-3 --summary "added the login route"
    """


def _agent(agent: str | None) -> str:
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


def _report(out: object, as_json: bool, room: dict[str, Any] | None = None) -> int:
    """Print an outcome; ``room`` adds the task's worktree and branch (or a fuller message)."""
    from agents_state.engine.phases import Outcome

    assert isinstance(out, Outcome)
    room = dict(room or {})
    message = room.pop("message", out.message)
    if as_json:
        emit_json(
            {
                "message": message,
                "changed": out.changed,
                "revision": out.state.revision,
                **out.data,
                **room,
            }
        )
    else:
        from agents_state.safetext import escape

        click.echo(escape(message))
        if room:
            click.echo(escape(f"work in {room['worktree']} (branch {room['branch']})"))
    return 0


@task.command()
@click.argument("task_id", metavar="[ID]", required=False, shell_complete=complete_task_ids)
@click.option("--agent", help="Who claims it (default: $AGENTS_STATE_AGENT or the parent pid).")
@json_option
@click.pass_context
def claim(ctx: click.Context, task_id: str | None, agent: str | None, as_json: bool) -> int:
    """Atomically take the next ready task of the current wave (or task ID).

    Exits 3 with the reason when there is nothing to claim.

    \b
    Example:
      agents-state task claim --agent worker-1 --json
    """
    from agents_state.engine.events import TaskClaim
    from agents_state.gitwork.steps import after_claim

    app = app_from(ctx)
    _check_git(app)
    out = app.run(TaskClaim(agent=_agent(agent), task_id=task_id))
    tid = out.data["task"]
    room = after_claim(app, out.state, tid)
    if as_json:
        t = (out.state.phase(TASK_PHASE).tasks or {})[tid]
        emit_json(
            {
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
        )
        return 0
    return _report(out, as_json, room)


@task.command()
@click.argument("task_id", metavar="ID", shell_complete=complete_task_ids)
@click.option("--agent", help="The agent working on it (renews its lease).")
@json_option
@click.pass_context
def start(ctx: click.Context, task_id: str, agent: str | None, as_json: bool) -> int:
    """Mark task ID started (claims it if ready) or renew its lease.

    \b
    Example:
      agents-state task start task-3 --agent worker-1
    """
    from agents_state.engine.events import TaskStart
    from agents_state.gitwork.steps import after_claim

    app = app_from(ctx)
    _check_git(app)
    out = app.run(TaskStart(task_id=task_id, agent=agent))
    return _report(out, as_json, after_claim(app, out.state, task_id))


@task.command()
@click.argument("task_id", metavar="ID", shell_complete=complete_task_ids)
@click.option("--summary", help="One line: what was done.")
@click.option(
    "--result",
    "result_file",
    metavar="FILE",
    help="A result file to keep in .agents/phases/ as 2.1-result-<ID>.md.",
)
@click.option("--agent", help="The agent reporting (refused if it lost its claim).")
@click.option("--attempt", type=int, help="The attempt being reported (stale ones are refused).")
@click.option(
    "--force",
    is_flag=True,
    help="Complete a task nobody started (a person's decision: the plugin never approves it).",
)
@json_option
@click.pass_context
def done(
    ctx: click.Context,
    task_id: str,
    summary: str | None,
    result_file: str | None,
    agent: str | None,
    attempt: int | None,
    force: bool,
    as_json: bool,
) -> int:
    """Record task ID completed; repeating it is a no-op that says so.

    A task nobody started (pending) is refused (exit 4) unless --force; a task another agent
    completed is refused for --agent (exit 4): its work was not recorded.

    \b
    Example:
      agents-state task done task-3 --summary "login route and tests"
    """
    from agents_state.engine.events import TaskDone
    from agents_state.jsonio import check_markdown, read_input_bytes
    from agents_state.store.paths import safe_name

    app = app_from(ctx)
    result = None
    data: bytes | None = None
    if result_file:
        data = read_input_bytes(result_file, result_file)
        check_markdown(data, result_file)
        result = f".agents/phases/2.1-result-{safe_name(task_id, 'task id')}.md"

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
        result=result,
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
    return _report(out, as_json, {"message": said} if said != out.message else None)


@task.command()
@click.argument("task_id", metavar="ID", shell_complete=complete_task_ids)
@click.option("--error", required=True, help="What went wrong.")
@click.option("--agent", help="The agent reporting.")
@click.option("--attempt", type=int, help="The attempt being reported.")
@json_option
@click.pass_context
def fail(
    ctx: click.Context,
    task_id: str,
    error: str,
    agent: str | None,
    attempt: int | None,
    as_json: bool,
) -> int:
    """Record task ID failed; it is retried with backoff up to retries.maxPerTask times.

    \b
    Example:
      agents-state task fail task-3 --error "tests do not compile"
    """
    from agents_state.engine.events import TaskFail

    app = app_from(ctx)
    return _report(
        app.run(TaskFail(task_id=task_id, error=error, agent=agent, attempt=attempt)), as_json
    )
