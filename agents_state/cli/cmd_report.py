"""report: a workflow summarised for people (Markdown, or an HTML page with a timeline)."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from

__all__ = ["report"]


@click.command()
@click.option("--html", "as_html", is_flag=True, help="An HTML page with a timeline instead.")
@click.pass_context
def report(ctx: click.Context, as_html: bool) -> int:
    """Phases with wall time and tokens, agents per phase, tasks, retries, test runs and
    review rounds, printed on stdout.

    \b
    Example:
      agents-state report > report.md
      agents-state report --html > report.html
    """
    from agents_state.app import utcnow
    from agents_state.views.report import report_html, report_markdown
    from agents_state.views.usage import usage_of

    app = app_from(ctx)
    state = app.require()
    now = utcnow()
    usage = usage_of(app.root_dir, state, now)
    events = app.store.events()
    render = report_html if as_html else report_markdown
    click.echo(render(state, usage, events, now), nl=False)
    return 0
