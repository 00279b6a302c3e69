"""``store copy --replace`` into a folder: copy beside, then switch (issue 23).

The new workflow is written whole into ``.agents/.copy-switch/`` first (its artifacts, chains,
tool-call counts, events and, last, its ``state.json``), durably; nothing of the old workflow is
touched until then, so a failure while copying leaves it as it was.  The switch is three renames:
``phases/`` aside into the staging folder (``phases-old``), the new ``phases/`` in, the new
``state.json`` over the old one (the commit).  A failed rename is taken back with plain calls;
the old artifacts are deleted only after the commit.  The log, the chains and the counts follow
the state.

A kill leaves the staging folder; ``recover`` (run under the lock by the next writer) reads where
the switch stopped from what is there:

- no ``phases-old``: the old workflow was not touched, the folder is dropped;
- ``phases-old`` and the staged ``state.json``: not committed, the old ``phases/`` goes back;
- ``phases-old`` without the staged ``state.json``: committed, the rest is moved in.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import TYPE_CHECKING

import orjson

from agents_state.errors import StorageIOError
from agents_state.store import fsops
from agents_state.store.paths import AGENTS_DIR

if TYPE_CHECKING:
    from pathlib import Path

    from agents_state.store.copy import Snapshot
    from agents_state.store.files import Store

__all__ = ["SWITCH", "recover", "replace_workflow"]

SWITCH = ".copy-switch"
_SHOWN = f"{AGENTS_DIR}/{SWITCH}"
_STATE = f"{AGENTS_DIR}/state.json"


def replace_workflow(store: Store, snap: Snapshot, old: bytes | None) -> None:
    """Under the lock: stage ``snap`` beside the current workflow, then switch it in."""
    stage = _stage(store, snap)
    aside = stage / "phases-old"
    try:
        fsops.replace(store.phases_dir, aside, "switch_replace")
        fsops.replace(stage / "phases", store.phases_dir, "switch_replace")
        fsops.replace(stage / "state.json", store.state_path, "switch_replace")  # the commit
    except OSError as e:
        _roll_back(store, stage)
        raise StorageIOError(_STATE, "replace", e.strerror or str(e)) from None
    try:
        fsops.fsync_dir(store.dir)
    except OSError as e:
        if store._undo(old):
            _roll_back(store, stage)
            raise StorageIOError(_STATE, "fsync directory", e.strerror or str(e)) from None
        from agents_state.store.files import UncertainWriteError, note_commit

        note_commit(f"revision {snap.revision}")
        _roll_forward(store, stage)
        raise UncertainWriteError(_STATE, "fsync directory", e.strerror or str(e)) from None
    _roll_forward(store, stage)
    try:
        store.write_file(store.backup_path, snap.state, f"{AGENTS_DIR}/state.json.bak", "backup_")
    except StorageIOError as e:
        _told(f"{e.path}: {e.operation} failed: {e.reason}")


def recover(store: Store) -> None:
    """Finish or take back a switch a kill interrupted (see the module's docstring)."""
    stage = store.dir / SWITCH
    if not os.path.lexists(stage):
        return
    if os.path.lexists(stage / "phases-old"):
        if os.path.lexists(stage / "state.json"):
            _roll_back(store, stage)
        else:
            _roll_forward(store, stage)
    shutil.rmtree(stage, ignore_errors=True)


def _stage(store: Store, snap: Snapshot) -> Path:
    from agents_state.store.toolcalls import LOG_NAME, log_bytes

    recover(store)
    stage = store.dir / SWITCH
    try:
        os.mkdir(stage, 0o755)
        os.mkdir(stage / "phases", 0o755)
        os.mkdir(stage / "chains", 0o755)
    except OSError as e:
        shutil.rmtree(stage, ignore_errors=True)
        raise StorageIOError(_SHOWN, "mkdir", e.strerror or str(e)) from None
    try:
        for name, data in snap.artifacts.items():
            store.write_file(stage / "phases" / name, data, f"{AGENTS_DIR}/phases/{name}")
        for cid, data in snap.chains.items():
            shown = f"{AGENTS_DIR}/chains/{cid}.json"
            store.write_file(stage / "chains" / f"{cid}.json", data, shown)
        calls = log_bytes(snap.toolcalls)
        store.write_file(stage / LOG_NAME, calls, f"{AGENTS_DIR}/{LOG_NAME}")
        log = b"".join(orjson.dumps(e) + b"\n" for e in snap.events)
        store.write_file(stage / "events.jsonl", log, f"{AGENTS_DIR}/events.jsonl")
        store.write_file(stage / "state.json", snap.state, _STATE)  # last: "staged whole"
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return stage


def _roll_back(store: Store, stage: Path) -> None:
    """Not committed: the old ``phases/`` back in place (plain calls), the copy dropped."""
    aside = stage / "phases-old"
    with contextlib.suppress(OSError):
        if os.path.lexists(aside):
            if os.path.lexists(store.phases_dir):
                os.replace(store.phases_dir, stage / "phases")
            os.replace(aside, store.phases_dir)
            fsops.fsync_dir(store.dir)
    shutil.rmtree(stage, ignore_errors=True)


def _roll_forward(store: Store, stage: Path) -> None:
    """Committed: the log, the counts and the chains follow the state; the old artifacts go."""
    from agents_state.store.toolcalls import LOG_NAME

    try:
        for name in ("events.jsonl", LOG_NAME):
            if os.path.lexists(stage / name):
                fsops.replace(stage / name, store.dir / name, "switch_replace")
        chains = stage / "chains"
        if os.path.isdir(chains) and os.listdir(chains):
            fsops.make_dir(store.dir / "chains", f"{AGENTS_DIR}/chains")
            for name in sorted(os.listdir(chains)):
                fsops.replace(chains / name, store.dir / "chains" / name, "switch_replace")
            fsops.fsync_dir(store.dir / "chains")
        fsops.fsync_dir(store.dir)
    except OSError as e:
        _told(f"{_SHOWN}: moving in failed: {e.strerror or e}")
        return
    shutil.rmtree(stage, ignore_errors=True)


def _told(what: str) -> None:
    from agents_state.store.files import _warn

    _warn(
        f"{what}; the new workflow is in place, the next update of this folder finishes the "
        f"copy from {_SHOWN}/"
    )
