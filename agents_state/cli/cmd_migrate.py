"""migrate: older layouts into this one."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.cli.options import app_from, emit_json, json_option

if TYPE_CHECKING:
    from agents_state.models import State
    from agents_state.store.files import Store

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
    import os

    from agents_state.app import utcnow
    from agents_state.errors import NotFoundError, UsageError
    from agents_state.jsonio import loads_strict, read_input_bytes
    from agents_state.migrate import V1_FILE, V2_TMP_DIR, from_v1
    from agents_state.store.codec import decode_state

    app = app_from(ctx)
    if app.store_url is not None:
        raise UsageError(
            "migrate works on the files under .agents/: run it without --store (and without "
            "AGENTS_STATE_STORE), then copy the workflow: agents-state store copy --from . --to URL"
        )
    v1, tmp = app.root / V1_FILE, app.root / V2_TMP_DIR / "state.json"
    if app.file_store.state_path.exists():
        raise _present()
    if v1.is_file():
        source = V1_FILE
        state = from_v1(loads_strict(read_input_bytes(v1, source), source), source, utcnow())
        moves: list[tuple[str, str]] = []
    elif tmp.is_file():
        source = f"{V2_TMP_DIR}/state.json"
        state = decode_state(read_input_bytes(tmp, source), source)
        phases = app.root / V2_TMP_DIR / "phases"
        moves = (
            [
                (f"{V2_TMP_DIR}/phases/{n}", f".agents/phases/{n}")
                for n in sorted(os.listdir(phases))
            ]
            if phases.is_dir()
            else []
        )
    else:
        raise NotFoundError(
            f"nothing to migrate: neither {V1_FILE} nor {V2_TMP_DIR}/state.json exists"
        )
    plan = {
        "from": source,
        "to": ".agents/state.json",
        "moves": [m[1] for m in moves],
        "phase": state.currentPhase,
        "status": state.status,
        "dryRun": dry_run,
    }
    if not dry_run:
        _apply(app.file_store, state, source, moves)
    if as_json:
        emit_json(plan)
    else:
        verb = "would migrate" if dry_run else "migrated"
        click.echo(
            f"{verb} {source} -> .agents/state.json (phase {state.currentPhase}, "
            f"{state.status}); {len(moves)} artifact(s) moved"
        )
    return 0


def _present() -> Exception:
    from agents_state.errors import TransitionNotAllowedError

    return TransitionNotAllowedError(
        ".agents/state.json",
        "present",
        "migrate",
        hint="this folder already uses the current layout",
    )


def _apply(store: Store, state: State, source: str, moves: list[tuple[str, str]]) -> None:
    """Copy the artifacts, commit the state (refused when one appeared meanwhile), then, under
    the lock again, rename the source to ``.migrated`` (``doctor --repair`` finishes a migration
    stopped in between)."""
    from agents_state.engine.phases import Outcome
    from agents_state.store import fsops, upkeep

    def mutate(old: State | None) -> Outcome:
        if old is not None:  # looked at again under the lock: another writer came first
            raise _present()
        record = {"rev": state.revision, "event": "migrate", "from": source}
        return Outcome(state, "migrated", True, record)

    for src, dst in moves:
        store.write_artifact(dst.rsplit("/", 1)[1], fsops.read_regular(store.root / src, src))
    store.commit(mutate)
    with store.locked():
        if store.read_bytes() is not None:
            upkeep.move_aside(store, source.removeprefix(".agents/"), ".migrated")
