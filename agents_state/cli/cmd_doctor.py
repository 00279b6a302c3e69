"""doctor: find and explain what is wrong with .agents/; --repair fixes what it can."""

from __future__ import annotations

from typing import Any

import click

from agents_state.cli.options import app_from, emit_json, json_option

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
    from agents_state.doctor.diagnose import diagnose
    from agents_state.doctor.repair import Repair
    from agents_state.doctor.repair import repair as do_repair

    app = app_from(ctx)
    root = app.root
    if app.store_url is not None:  # the PostgreSQL store: nothing on disk to repair
        from agents_state.doctor.pg import diagnose_pg

        d = diagnose_pg(app.store)
        errors = [f for f in d.findings if f.severity == "error"]
        if as_json:
            emit_json(
                {
                    "ok": not errors,
                    "findings": [f.to_json() for f in d.findings],
                    "repaired": [],
                    "lost": [],
                    "remaining": None,
                }
            )
        else:
            _render(d.findings, Repair(), d.findings, False)
        return 5 if errors else 0
    from agents_state.gitwork.orphans import check_git

    d = diagnose(root, store=app.file_store)
    check_git(d)
    found = d.findings
    done = Repair()
    for _ in range(2):  # a restored state may reveal what the damaged one hid
        if not repair or not any(f.repairable for f in d.findings):
            break
        step = do_repair(d)
        done.done += step.done
        done.lost += step.lost
        if d.git_orphans is not None and any(f.code == "git_orphans" for f in d.findings):
            done.done += _repair_git(app)
        d = diagnose(root, store=app.file_store)
        check_git(d)
    left = d.findings
    errors = [f for f in left if f.severity == "error"]
    if as_json:
        emit_json(
            {
                "ok": not errors,
                "findings": [f.to_json() for f in found],
                "repaired": done.done,
                "lost": done.lost,
                "remaining": [f.to_json() for f in left] if repair else None,
            }
        )
    else:
        _render(found, done, left, repair)
    return 5 if errors else 0


def _repair_git(app: Any) -> list[str]:
    """Outside the state's lock, under the git lock (the merge queue's order): look again."""
    from agents_state.gitwork.orphans import find_orphans, remove_orphans
    from agents_state.gitwork.rooms import git_lock

    with git_lock(app):
        found = find_orphans(app.root, app.state())
        return remove_orphans(app.root, found) if found is not None else []


def _render(found: Any, done: Any, left: Any, repair: bool) -> None:
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
