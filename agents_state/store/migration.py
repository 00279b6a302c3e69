"""Older layouts into this one (the core of ``agents-state migrate``): a version 1 state file, or
the ``.agents/tmp/`` layout, becomes ``.agents/state.json``; the old files are kept, renamed with
a ``.migrated`` suffix.  The file store only: its folder is what changes."""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents_state.models import State
    from agents_state.store.files import Store

__all__ = ["migrate_layout"]


def migrate_layout(store: Store, now: datetime, dry_run: bool = False) -> dict[str, Any]:
    """Migrate what ``store``'s root holds (``now``: the time a version 1 state is read at);
    returns the plan (from, to, moves, phase, status, dryRun), carried out unless ``dry_run``."""
    from agents_state.errors import NotFoundError
    from agents_state.jsonio import loads_strict, read_input_bytes
    from agents_state.migrate import V1_FILE, V2_TMP_DIR, from_v1
    from agents_state.store.codec import decode_state

    root = store.root
    v1, tmp = root / V1_FILE, root / V2_TMP_DIR / "state.json"
    if store.state_path.exists():
        raise _present()
    if v1.is_file():
        source = V1_FILE
        state = from_v1(loads_strict(read_input_bytes(v1, source), source), source, now)
        moves: list[tuple[str, str]] = []
    elif tmp.is_file():
        source = f"{V2_TMP_DIR}/state.json"
        state = decode_state(read_input_bytes(tmp, source), source)
        phases = root / V2_TMP_DIR / "phases"
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
    if not dry_run:
        _apply(store, state, source, moves)
    return {
        "from": source,
        "to": ".agents/state.json",
        "moves": [m[1] for m in moves],
        "phase": state.currentPhase,
        "status": state.status,
        "dryRun": dry_run,
    }


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
