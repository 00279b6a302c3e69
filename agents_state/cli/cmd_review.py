"""review run (issue 37): a review phase done by the Codex CLI and recorded."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, complete_phase_ids, json_option, print_body

__all__ = ["review"]


@click.group()
def review() -> None:
    """Reviews done by an external reviewer (Codex).

    \b
    Example:
      agents-state review run 1.3
    """


@review.command()
@click.argument("phase_id", metavar="ID", shell_complete=complete_phase_ids)
@json_option
@click.pass_context
def run(ctx: click.Context, phase_id: str, as_json: bool) -> int:
    """Run review phase ID with Codex (its model is a codex-* alias) and record the review.

    Runs `codex exec --json --output-schema ... -s read-only` in the folder the review is about,
    checks Codex's answer as the review artifact, books its usage to the phase and completes
    the phase; blocking issues send the work back.  Exit 9 when Codex is missing, not logged in,
    cannot reach or is refused by its API, answers off the schema twice, or times out
    (codex.timeoutSeconds); nothing is recorded then.

    \b
    Example:
      agents-state review run 4.2
    """
    from agents_state.verbs.review import review_run

    result = review_run(app_from(ctx), phase_id)
    print_body(result, as_json)
    ran = result.extra["codex"]
    if "usageNotBooked" in ran:  # the review is recorded; only its tokens are not counted
        click.echo(
            f"agents-state: warning: Codex's usage was not booked: {ran['usageNotBooked']}",
            err=True,
        )
    return 0
