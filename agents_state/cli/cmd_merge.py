"""merge: run the merge queue of phase 2.1 (worktree isolation), or prepare a conflict's fix."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, complete_task_ids, json_option

__all__ = ["merge"]


@click.command()
@click.option(
    "--resolve",
    "resolve_id",
    metavar="ID",
    shell_complete=complete_task_ids,
    help="Merge the integration branch into task ID's worktree, leaving its conflicts to fix.",
)
@json_option
@click.pass_context
def merge(ctx: click.Context, resolve_id: str | None, as_json: bool) -> int:
    """Merge the done tasks of the current wave into the integration branch, in order.

    Runs by itself once a done wave's agents have stopped (or at the next ``next``); run it
    after a crash or after resolving a conflict.  A conflict leaves the integration branch as
    it was; conflict markers still in a task's worktree exit 9 and merge nothing.

    \b
    Example:
      agents-state merge
      agents-state merge --resolve task-3
    """
    from agents_state.cli.options import print_body
    from agents_state.verbs.control import merge as run_merge

    print_body(run_merge(app_from(ctx), resolve_id), as_json)
    return 0
