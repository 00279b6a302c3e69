"""Finishing or taking back a ``store copy --replace`` a kill interrupted (issue 23).

``store/switch.py`` stages the new workflow in ``.agents/.copy-switch/`` and switches it in by
renames; a kill leaves the staging folder, and the next writer (``Store.commit``, ``store
copy``, ``doctor --repair``) calls ``recover`` under the lock, which reads where the switch
stopped from what is there:

- no ``phases-old``: the old workflow was not touched, the folder is dropped;
- ``phases-old`` and the staged ``state.json``: not committed, the old ``phases/`` goes back;
- ``phases-old`` without the staged ``state.json``: committed, the rest is moved in.

It sees the file store through ``Folder`` (the store imports this module).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path
from typing import Protocol

from agents_state.store import fsops
from agents_state.store.paths import AGENTS_DIR

__all__ = ["SHOWN", "SWITCH", "Folder", "recover", "roll_back", "roll_forward", "told"]

SWITCH = ".copy-switch"
SHOWN = f"{AGENTS_DIR}/{SWITCH}"


class Folder(Protocol):
    @property
    def dir(self) -> Path: ...

    @property
    def phases_dir(self) -> Path: ...


def recover(store: Folder) -> None:
    """Finish or take back a switch a kill interrupted (see the module's docstring)."""
    stage = store.dir / SWITCH
    if not os.path.lexists(stage):
        return
    if not os.path.lexists(stage / "phases-old"):
        shutil.rmtree(stage, ignore_errors=True)  # the old workflow was never touched
    elif os.path.lexists(stage / "state.json"):
        roll_back(store, stage)
    else:
        roll_forward(store, stage)  # keeps the folder when a move fails: tried again next time


def roll_back(store: Folder, stage: Path) -> None:
    """Not committed: the old ``phases/`` back in place (plain calls), the copy dropped."""
    aside = stage / "phases-old"
    with contextlib.suppress(OSError):
        if os.path.lexists(aside):
            if os.path.lexists(store.phases_dir):
                os.replace(store.phases_dir, stage / "phases")
            os.replace(aside, store.phases_dir)
            fsops.fsync_dir(store.dir)
    shutil.rmtree(stage, ignore_errors=True)


def roll_forward(store: Folder, stage: Path) -> None:
    """Committed: the log, the counts and the chains follow the state (every file staged at
    the top: ``events.jsonl``, ``toolcalls.log``); the old artifacts go."""
    try:
        for name in sorted(os.listdir(stage)):
            path = stage / name
            if name != "state.json" and path.is_file() and not path.is_symlink():
                fsops.replace(path, store.dir / name, "switch_replace")
        chains = stage / "chains"
        if os.path.isdir(chains) and os.listdir(chains):
            fsops.make_dir(store.dir / "chains", f"{AGENTS_DIR}/chains")
            for name in sorted(os.listdir(chains)):
                fsops.replace(chains / name, store.dir / "chains" / name, "switch_replace")
            fsops.fsync_dir(store.dir / "chains")
        fsops.fsync_dir(store.dir)
    except OSError as e:
        told(f"{SHOWN}: moving in failed: {e.strerror or e}")
        return
    shutil.rmtree(stage, ignore_errors=True)
    if os.path.lexists(stage):
        told(f"{SHOWN}: removing the replaced workflow's artifacts failed")


def told(what: str) -> None:
    sys.stderr.write(
        f"agents-state: warning: {what}; the new workflow is in place, the next update of this "
        f"folder finishes the copy from {SHOWN}/\n"
    )
