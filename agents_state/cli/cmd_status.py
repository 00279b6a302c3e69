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
    action = app.next_action(state)
    if as_json:
        from agents_state.views.summary import summarize

        emit_json(
            {
                "workflow": summarize(state, utcnow(), app.policy.lease_seconds, verbose),
                "next": action,
            }
        )
        return 0
    from agents_state.views.render import render_status

    click.echo(render_status(state, action, utcnow(), app.policy.lease_seconds, verbose))
    return 0
