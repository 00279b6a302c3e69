"""compact, context."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["compact", "context"]


@click.command()
@json_option
@click.pass_context
def compact(ctx: click.Context, as_json: bool) -> int:
    """Record the compaction point: asked of the user, or skipped as not needed.

    The conversation's size (from its transcript) decides: below compaction.contextPercent
    of the window the boundary is recorded as skipped; otherwise as a compaction asked of the
    user, who runs /compact (this command compacts nothing).

    \b
    Example:
      agents-state compact
    """
    from agents_state.cli.options import print_body
    from agents_state.verbs.flow import compact as run_compact

    print_body(run_compact(app_from(ctx)), as_json)
    return 0


@click.command()
@json_option
@click.pass_context
def context(ctx: click.Context, as_json: bool) -> int:
    """Print what a fresh conversation must read to continue (nothing when no workflow).

    \b
    Example:
      agents-state context
    """
    from agents_state.views.context import load_excerpts, render_context

    app = app_from(ctx)
    state = app.state()
    if state is None or not state.active:
        if as_json:
            emit_json({"context": None})
        return 0
    action = app.next_action(state)
    text = render_context(
        state,
        action,
        load_excerpts(app.root, state, app.store if app.store_url is not None else None),
    )
    if as_json:
        emit_json({"context": text, "next": action})
    else:
        click.echo(text)
    return 0
