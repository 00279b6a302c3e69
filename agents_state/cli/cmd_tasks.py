"""tasks load; task claim | start | done | fail."""

from __future__ import annotations

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


def _report(body: dict[str, Any], as_json: bool) -> int:
    """Print a task command's answer: its JSON, or its message and where to work."""
    if as_json:
        emit_json(body)
        return 0
    from agents_state.safetext import escape

    click.echo(escape(body["message"]))
    if "worktree" in body:
        click.echo(escape(f"work in {body['worktree']} (branch {body['branch']})"))
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
    from agents_state.verbs.steps import task_claim

    return _report(task_claim(app_from(ctx), task_id, agent), as_json)


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
    from agents_state.verbs.steps import task_start

    return _report(task_start(app_from(ctx), task_id, agent), as_json)


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
    from agents_state.verbs.steps import task_done

    app = app_from(ctx)
    result = None
    if result_file:
        from agents_state.jsonio import read_input_bytes

        result = (read_input_bytes(result_file, result_file), result_file)
    body = task_done(app, task_id, summary, result, agent, attempt, force)
    return _report(body, as_json)


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
    from agents_state.verbs.steps import task_fail

    return _report(task_fail(app_from(ctx), task_id, error, agent, attempt), as_json)
