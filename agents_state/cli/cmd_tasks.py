"""tasks load; task claim | start | done | fail."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.cli.options import app_from, complete_task_ids, emit_json, json_option

if TYPE_CHECKING:
    from agents_state.verbs.results import Claimed, TaskReport

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
    from agents_state.cli.options import input_path, print_body
    from agents_state.jsonio import read_input_bytes
    from agents_state.verbs.tasks import tasks_load

    app = app_from(ctx)
    data = read_input_bytes(input_path(file, app.root), file)
    print_body(tasks_load(app, data, file, wave_size), as_json)
    return 0


@click.group()
def task() -> None:
    """Task lifecycle for parallel sub-agents: claim, start, done, fail.

    \b
    Example:
      agents-state task claim --agent worker-1
      agents-state task done task-3 --summary "added the login route"
    """


def _report(result: TaskReport | Claimed, as_json: bool) -> int:
    """Print a task command's answer: its JSON, or its message and where to work."""
    if as_json:
        emit_json(result.body())
        return 0
    from agents_state.safetext import escape

    click.echo(escape(result.message))
    room = result.room
    if "worktree" in room:
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
    from agents_state.verbs.tasks import task_claim

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
    from agents_state.verbs.tasks import task_start

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
    from agents_state.verbs.tasks import task_done

    app = app_from(ctx)
    result = None
    if result_file:
        from agents_state.jsonio import read_input_bytes

        result = (read_input_bytes(result_file, result_file), result_file)
    return _report(task_done(app, task_id, summary, result, agent, attempt, force), as_json)


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
    from agents_state.verbs.tasks import task_fail

    return _report(task_fail(app_from(ctx), task_id, error, agent, attempt), as_json)
