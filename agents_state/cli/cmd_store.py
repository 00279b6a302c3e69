"""store copy | show: which store is in use, and moving a workflow between stores."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["store"]


@click.group()
def store() -> None:
    """The store that holds the workflow: files under .agents/ or PostgreSQL.

    \b
    Example:
      agents-state store copy --from . --to 'postgresql://me@db:5432/agents?workflow=web'
    """


@store.command()
@click.option(
    "--from",
    "source",
    required=True,
    metavar="DIR|URL",
    help="A project folder holding .agents/, or a postgresql:// URL.",
)
@click.option(
    "--to",
    "target",
    required=True,
    metavar="DIR|URL",
    help="A project folder, or a postgresql:// URL (?workflow=NAME).",
)
@click.option("--replace", is_flag=True, help="Overwrite a workflow the target already holds.")
@json_option
def copy(source: str, target: str, replace: bool, as_json: bool) -> int:
    """Copy a workflow between stores, keeping its revision, events, artifacts, chains and
    tool-call counts (which say when compaction is due).

    \b
    Example:
      agents-state store copy --from . --to 'postgresql://me@db:5432/agents?workflow=web'
      agents-state store copy --from 'postgresql://me@db/agents?workflow=web' --to ../here
    """
    from agents_state.store.copy import copy_workflow

    obj = click.get_current_context().find_root().obj or {}
    snap, src, dst = copy_workflow(source, target, replace, obj.get("commits"))
    if as_json:
        emit_json(
            {
                "copied": {
                    "from": src,
                    "to": dst,
                    "revision": snap.revision,
                    "events": len(snap.events),
                    "artifacts": sorted(snap.artifacts),
                    "toolCalls": snap.toolcalls,
                }
            }
        )
    else:
        click.echo(
            f"copied revision {snap.revision} ({len(snap.events)} events, "
            f"{len(snap.artifacts)} artifacts, {sum(snap.toolcalls.values())} tool calls) "
            f"from {src} to {dst}"
        )
    return 0


@store.command()
@json_option
@click.pass_context
def show(ctx: click.Context, as_json: bool) -> int:
    """Say which store is in use (a password is never shown).

    \b
    Example:
      agents-state store show
    """
    from agents_state.store.api import describe

    app = app_from(ctx)
    text = describe(app.store_url, app.root)
    if as_json:
        emit_json({"store": text})
    else:
        click.echo(f"store: {text}")
    return 0
