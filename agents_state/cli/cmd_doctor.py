"""doctor: find and explain what is wrong with .agents/; --repair fixes what it can."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.cli.options import app_from, emit_json, json_option

if TYPE_CHECKING:
    from agents_state.doctor.findings import Finding
    from agents_state.doctor.repair import Repair

__all__ = ["doctor"]


@click.command()
@click.option(
    "--repair", is_flag=True, help="Fix what can be fixed; say what, if anything, was lost."
)
@json_option
@click.pass_context
def doctor(ctx: click.Context, repair: bool, as_json: bool) -> int:
    """Check .agents/: the state and its backup, events, artifacts, temp files, lock, migration.

    Exits 0 when no error remains, 5 when one does (after --repair: one it could not fix).

    \b
    Example:
      agents-state doctor
      agents-state doctor --repair
    """
    from agents_state.verbs.upkeep import doctor as run_doctor

    report = run_doctor(app_from(ctx), repair)
    if as_json:
        emit_json(report.body())
    else:
        _render(report.found, report.done, report.left, report.repair)
    return 0 if report.ok else 5


def _render(found: list[Finding], done: Repair, left: list[Finding], repair: bool) -> None:
    if not found:
        click.echo("doctor: no problems found")
        return
    for f in found:
        click.echo(f"{f.severity}: {f.message}")
        if not repair or not f.repairable:
            label = "repair" if f.repairable else "fix"
            click.echo(f"  {label}: {f.repair}")
    if not repair:
        if any(f.repairable for f in found):
            click.echo("run: agents-state doctor --repair")
        return
    for line in done.done:
        click.echo(f"repaired: {line}")
    click.echo("lost: " + ("; ".join(done.lost) if done.lost else "nothing"))
    for f in left:
        if f.severity != "note":
            click.echo(f"still: {f.severity}: {f.message}")
