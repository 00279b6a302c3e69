"""status."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["status"]


@click.command()
@json_option
@click.option("--verbose", "-v", is_flag=True, help="Add every task of every wave.")
@click.option(
    "--offset",
    type=click.IntRange(0),
    default=0,
    metavar="N",
    help="With --json --verbose --limit: the first task shown (a page of tasks).",
)
@click.option(
    "--limit",
    type=click.IntRange(1),
    metavar="N",
    help="With --json --verbose: show N tasks (from --offset) and where the next page starts.",
)
@click.option(
    "--brief",
    is_flag=True,
    help="With --json: stages other than the current one as their phases' statuses "
    "(what the MCP tool status answers).",
)
@click.pass_context
def status(
    ctx: click.Context, as_json: bool, verbose: bool, offset: int, limit: int | None, brief: bool
) -> int:
    """Where the workflow stands, and the next action.

    \b
    Example:
      agents-state status --verbose
    """
    if (limit is not None or offset) and not (as_json and verbose):
        from agents_state.errors import UsageError

        raise UsageError("--offset and --limit page the tasks of status --json --verbose")
    if brief and not as_json:
        from agents_state.errors import UsageError

        raise UsageError("--brief shortens status --json (the text is short already)")
    app = app_from(ctx)
    if as_json:
        from agents_state.verbs.flow import status as run_status

        emit_json(run_status(app, verbose, offset, limit, brief).body())
        return 0
    from agents_state.app import utcnow

    state = app.state()
    if state is None:
        from agents_state.views.nextaction import no_workflow_line

        click.echo(no_workflow_line())
        return 0
    path = app.fanout_path()  # issue 25: which path a fan-out takes, and why
    action = app.next_action(state, native=path.native and state.active)
    from agents_state.views.render import fanout_line, render_status
    from agents_state.views.usage import usage_lines, usage_of

    usage = usage_of(app.root_dir, state, utcnow())  # tokens and time (issue 24)
    text = render_status(state, action, utcnow(), app.policy.lease_seconds, verbose)
    head, sep, tail = text.rpartition("\nNEXT")
    cost = "\n".join([fanout_line(path), *usage_lines(usage)])
    click.echo(f"{head}\n{cost}{sep}{tail}" if sep else f"{text}\n{cost}")
    return 0
