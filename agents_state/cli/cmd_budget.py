"""budget: what the workflow may still spend, and the user's answers when it is spent."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["budget"]


@click.command()
@click.option(
    "--raise",
    "raise_to",
    type=click.IntRange(min=1),
    metavar="TOKENS",
    help="Raise the budget to TOKENS (the user's answer) and go on.",
)
@click.option(
    "--stage",
    type=click.Choice(["EXPLORE", "PLAN", "IMPLEMENT", "TEST", "FINAL"]),
    help="With --raise: the stage's budget instead of the workflow's.",
)
@click.option(
    "--once",
    is_flag=True,
    help="Let the dispatch held back by the budget start once (the user's answer).",
)
@json_option
@click.pass_context
def budget(
    ctx: click.Context, raise_to: int | None, stage: str | None, once: bool, as_json: bool
) -> int:
    """Tokens used and left; --raise and --once record the user's answer.

    \b
    Example:
      agents-state budget
      agents-state budget --raise 2000000
      agents-state budget --once
    """
    from agents_state.verbs import control

    app = app_from(ctx)
    if raise_to is not None and once:
        raise click.UsageError("--raise cannot be combined with --once")
    if stage is not None and raise_to is None:
        raise click.UsageError("--stage needs --raise TOKENS")
    if raise_to is not None or once:
        from agents_state.cli.options import print_body

        print_body(control.answer_budget(app, raise_to, stage, once), as_json)
        return 0
    report = control.budget_report(app)
    if as_json:
        emit_json(report.body())
        return 0
    used, total = report.used, report.total
    if total is None and not report.stages:
        click.echo(f"{used} tokens used; no budget (set budget.maxTokens in the config)")
        return 0
    if total is not None:
        click.echo(f"{used} of {total} tokens used, {report.left} left")
    for s, row in report.stages.items():
        click.echo(f"  stage {s}: {row['usedTokens']} of {row['maxTokens']} tokens used")
    return 0
