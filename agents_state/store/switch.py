"""``store copy --replace`` into a folder: copy beside, then switch (issue 23).

The new workflow is written whole into ``.agents/.copy-switch/`` first (its artifacts, chains,
tool-call counts, events and, last, its ``state.json``), durably; nothing of the old workflow is
touched until then, so a failure while copying leaves it as it was.  The switch is three renames:
``phases/`` aside into the staging folder (``phases-old``), the new ``phases/`` in, the new
``state.json`` over the old one (the commit).  A failed rename is taken back with plain calls;
the old artifacts are deleted only after the commit.  The log, the chains and the counts follow
the state.

A kill leaves the staging folder, which the next writer finishes or takes back
(``switch_recover``).
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

import orjson

from agents_state.errors import StorageIOError
from agents_state.store import fsops
from agents_state.store.backup import rebase
from agents_state.store.paths import AGENTS_DIR
from agents_state.store.switch_recover import (
    SHOWN,
    SWITCH,
    recover,
    roll_back,
    roll_forward,
    told,
)

if TYPE_CHECKING:
    from pathlib import Path

    from agents_state.store.files import Store
    from agents_state.store.snapshot import Snapshot

__all__ = ["replace_workflow"]

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
        roll_back(store, stage)
        raise StorageIOError(_STATE, "replace", e.strerror or str(e)) from None
    try:
        fsops.fsync_dir(store.dir)
    except OSError as e:
        if store._undo(old):
            roll_back(store, stage)
            raise StorageIOError(_STATE, "fsync directory", e.strerror or str(e)) from None
        from agents_state.store.files import UncertainWriteError

        store.note_commit(f"revision {snap.revision}")
        roll_forward(store, stage)
        raise UncertainWriteError(_STATE, "fsync directory", e.strerror or str(e)) from None
    roll_forward(store, stage)
    try:
        rebase(store, snap.state, snap.revision)  # a new base, its journal anew (issue 35)
    except StorageIOError as e:
        told(f"{e.path}: {e.operation} failed: {e.reason}")


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
        raise StorageIOError(SHOWN, "mkdir", e.strerror or str(e)) from None
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
