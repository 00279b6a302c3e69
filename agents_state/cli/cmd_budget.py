"""budget: what the workflow may still spend, and the user's answers when it is spent."""

from __future__ import annotations

from typing import Any

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
    from agents_state.app import utcnow
    from agents_state.engine import events as ev
    from agents_state.engine.budget import limits

    app = app_from(ctx)
    if raise_to is not None and once:
        raise click.UsageError("--raise cannot be combined with --once")
    if stage is not None and raise_to is None:
        raise click.UsageError("--stage needs --raise TOKENS")
    state = app.require()
    if raise_to is not None or once:
        from agents_state.cli.options import print_outcome

        key = None
        if once:
            action = app.next_action(state)
            key = action.get("dispatch") if action["kind"] == "ask_user" else None
        event = ev.BudgetAnswer(
            choice="once" if once else "raise", max_tokens=raise_to, stage=stage, key=key
        )
        out = app.run(event)
        print_outcome(app, out.message, as_json, state=out.state)
        return 0
    from agents_state.views.usage import budget_usage

    used, by_stage = budget_usage(app.root_dir, state)
    total, stages = limits(state, app.config)
    info: dict[str, Any] = {
        "usedTokens": used,
        "maxTokens": total,
        "leftTokens": None if total is None else max(0, total - used),
        "stages": {
            s: {"maxTokens": n, "usedTokens": by_stage.get(s, 0)} for s, n in stages.items()
        },
        "at": utcnow().isoformat(),
    }
    if as_json:
        emit_json(info)
        return 0
    if total is None and not stages:
        click.echo(f"{used} tokens used; no budget (set budget.maxTokens in the config)")
        return 0
    if total is not None:
        click.echo(f"{used} of {total} tokens used, {info['leftTokens']} left")
    for s, row in info["stages"].items():
        click.echo(f"  stage {s}: {row['usedTokens']} of {row['maxTokens']} tokens used")
    return 0
