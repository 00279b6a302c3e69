"""status."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["status"]


@click.command()
@json_option
@click.option("--verbose", "-v", is_flag=True, help="Add every task of every wave.")
@click.pass_context
def status(ctx: click.Context, as_json: bool, verbose: bool) -> int:
    """Where the workflow stands, and the next action.

    \b
    Example:
      agents-state status --verbose
    """
    from agents_state.app import utcnow

    app = app_from(ctx)
    state = app.state()
    if state is None:
        if as_json:
            emit_json({"workflow": None, "next": app.next_action(None)})
        else:
            from agents_state.views.nextaction import no_workflow_line

            click.echo(no_workflow_line())
        return 0
    path = app.fanout_path()  # issue 25: which path a fan-out takes, and why
    action = app.next_action(state, native=path.native and state.active)
    from agents_state.views.usage import usage_of

    usage = usage_of(app.root_dir, state, utcnow())  # tokens and time (issue 24)
    if as_json:
        from agents_state.views.summary import summarize

        workflow = summarize(state, utcnow(), app.policy.lease_seconds, verbose)
        if not verbose:  # per agent and per task with --verbose: the size stays bounded
            usage["agentCount"] = len(usage.pop("agents"))
            usage["taskCount"] = len(usage.pop("tasks"))
        workflow["usage"] = usage
        workflow["fanouts"] = path.as_dict()
        emit_json({"workflow": workflow, "next": action})
        return 0
    from agents_state.views.render import fanout_line, render_status
    from agents_state.views.usage import usage_lines

    text = render_status(state, action, utcnow(), app.policy.lease_seconds, verbose)
    head, sep, tail = text.rpartition("\nNEXT")
    cost = "\n".join([fanout_line(path), *usage_lines(usage)])
    click.echo(f"{head}\n{cost}{sep}{tail}" if sep else f"{text}\n{cost}")
    return 0
