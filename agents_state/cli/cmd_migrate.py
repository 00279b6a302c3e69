"""migrate: older layouts into this one."""

from __future__ import annotations

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["migrate"]


@click.command()
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@json_option
@click.pass_context
def migrate(ctx: click.Context, dry_run: bool, as_json: bool) -> int:
    """Migrate a version 1 state or the .agents/tmp/ layout to .agents/state.json.

    The old files are kept (renamed with a .migrated suffix).

    \b
    Example:
      agents-state migrate --dry-run
    """
    from agents_state.errors import UsageError
    from agents_state.store.migration import migrate_layout
    from agents_state.types import utcnow

    app = app_from(ctx)
    if app.store_url is not None:
        raise UsageError(
            "migrate works on the files under .agents/: run it without --store (and without "
            "AGENTS_STATE_STORE), then copy the workflow: agents-state store copy --from . --to URL"
        )
    plan = migrate_layout(app.file_store, utcnow(), dry_run)
    if as_json:
        emit_json(plan)
    else:
        verb = "would migrate" if dry_run else "migrated"
        click.echo(
            f"{verb} {plan['from']} -> .agents/state.json (phase {plan['phase']}, "
            f"{plan['status']}); {len(plan['moves'])} artifact(s) moved"
        )
    return 0
