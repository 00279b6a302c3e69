"""phase start | complete | fail | run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.cli.options import (
    app_from,
    complete_phase_ids,
    json_option,
    print_body,
)

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["phase"]


def _artifact_bytes(artifact: str | None, root: Path) -> bytes | None:
    if artifact is None:
        return None
    if artifact == "-":
        import sys

        return sys.stdin.buffer.read()
    from agents_state.cli.options import input_path
    from agents_state.jsonio import read_input_bytes

    return read_input_bytes(input_path(artifact, root), artifact)


@click.group()
def phase() -> None:
    """Phase lifecycle: start, complete (with its artifact), fail, run (commands phase).

    \b
    Example:
      agents-state phase complete 1.1 --artifact notes.md
    """


@phase.command()
@click.argument("phase_id", metavar="ID", shell_complete=complete_phase_ids)
@json_option
@click.pass_context
def start(ctx: click.Context, phase_id: str, as_json: bool) -> int:
    """Mark phase ID in progress.

    \b
    Example:
      agents-state phase start 0
    """
    from agents_state.verbs.steps import phase_start

    print_body(phase_start(app_from(ctx), phase_id), as_json)
    return 0


@phase.command()
@click.argument("phase_id", metavar="ID", shell_complete=complete_phase_ids)
@click.option(
    "--artifact",
    metavar="FILE",
    help="The phase's output ('-' reads stdin); stored "
    "under its registered name in .agents/phases/.",
)
@click.option(
    "--plan-agents",
    type=click.IntRange(1, 10),
    metavar="N",
    help="1.1 only: how many plan agents 1.2 dispatches (the areas the brainstorm "
    "found; capped by PLAN.planning.maxParallelAgents).",
)
@click.option(
    "--from-answers",
    is_flag=True,
    help="A fan-out phase: with no artifact written yet, store one drafted from the answers "
    "its agents gave (every agent must have answered).",
)
@json_option
@click.pass_context
def complete(
    ctx: click.Context,
    phase_id: str,
    artifact: str | None,
    plan_agents: int | None,
    from_answers: bool,
    as_json: bool,
) -> int:
    """Complete phase ID and store its artifact.

    \b
    Example:
      agents-state phase complete 0 --artifact .agents/phases/0-explore.md
      agents-state phase complete 1.3 --artifact - < review.json
      agents-state phase complete 0 --artifact .agents/phases/0-explore.md --from-answers
    """
    from agents_state.verbs.steps import check_complete, phase_complete

    app = app_from(ctx)
    check_complete(phase_id, plan_agents)
    shown = None if artifact in (None, "-") else artifact
    if artifact == "-":
        shown = "<stdin>"
    body: bytes | None = None
    if from_answers and artifact not in (None, "-"):
        from agents_state.verbs.completing import drafted

        body = drafted(app, phase_id, str(artifact))
    if body is None:
        body = _artifact_bytes(artifact, app.root)
    print_body(phase_complete(app, phase_id, body, shown, plan_agents), as_json)
    return 0


@phase.command()
@click.argument("phase_id", metavar="ID", shell_complete=complete_phase_ids)
@click.option("--error", required=True, help="What went wrong (kept in the state).")
@json_option
@click.pass_context
def fail(ctx: click.Context, phase_id: str, error: str, as_json: bool) -> int:
    """Record that phase ID failed; it is retried up to retries.maxPerPhase times.

    \b
    Example:
      agents-state phase fail 1.2 --error "plan agent timed out"
    """
    from agents_state.verbs.steps import phase_fail

    print_body(phase_fail(app_from(ctx), phase_id, error), as_json)
    return 0


@phase.command()
@click.argument("phase_id", metavar="ID", shell_complete=complete_phase_ids)
@json_option
@click.pass_context
def run(ctx: click.Context, phase_id: str, as_json: bool) -> int:
    """Run the configured commands of phase ID (3.1) and record the results.

    \b
    Example:
      agents-state phase run 3.1
    """
    from agents_state.verbs.steps import phase_run

    print_body(phase_run(app_from(ctx), phase_id), as_json)
    return 0
