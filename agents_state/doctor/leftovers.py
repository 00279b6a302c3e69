"""``doctor``'s checks of what an interrupted process leaves around the state: artifacts of a
replaced workflow, temp files, a half-done ``store copy``, the lock's owner, migration sources
still in place, and a network file system under ``.agents/`` (``diagnose`` runs them)."""

from __future__ import annotations

import os
from pathlib import Path

from agents_state.doctor.findings import V1_FILE, V2_TMP_STATE, Diagnosis
from agents_state.errors import AgentsStateError
from agents_state.store import fsops, netfs
from agents_state.store.files import STATE_FILE
from agents_state.store.paths import AGENTS_DIR

__all__ = [
    "check_archived_leftovers",
    "check_fs",
    "check_lock",
    "check_migration",
    "check_temp_files",
]


def check_archived_leftovers(d: Diagnosis) -> None:
    """Artifacts of a replaced workflow still in ``phases/``: ``dispatch --replace`` was stopped
    after the new state was saved and before it emptied ``phases/`` (their copy is archived)."""
    if d.state is None or not d.store.phases_dir.is_dir():
        return
    used = {os.path.basename(p) for p in d.state.files.values()}
    for stage in d.state.stages.values():
        for phase in stage.phases.values():
            used.update(
                os.path.basename(t.result) for t in (phase.tasks or {}).values() if t.result
            )
    archive = d.store.dir / "archive"
    try:
        names = [
            n for n in os.listdir(d.store.phases_dir) if not n.startswith(".tmp-") and n not in used
        ]
        copies = [archive / a / "phases" for a in os.listdir(archive)] if names else []
    except OSError:
        return
    for n in sorted(names):
        try:
            data = fsops.read_regular(d.store.phases_dir / n, n)
        except (OSError, AgentsStateError):
            continue
        if any(_same(c / n, data) for c in copies):
            d.archived_leftovers.append(d.store.phases_dir / n)
    if d.archived_leftovers:
        shown = ", ".join(p.name for p in d.archived_leftovers[:5])
        d.add(
            "archived_leftovers",
            "warning",
            f"{len(d.archived_leftovers)} artifact(s) of a "
            f"replaced workflow are still in {AGENTS_DIR}/phases/ ({shown}); a phase completed "
            "without --artifact would take them for its own",
            f"delete them (each has an identical copy in {AGENTS_DIR}/archive/)",
        )


def _same(path: Path, data: bytes) -> bool:
    try:
        return fsops.read_regular(path, str(path)) == data
    except (OSError, AgentsStateError):
        return False


def check_temp_files(d: Diagnosis) -> None:
    for folder in (d.store.dir, d.store.phases_dir):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        d.temp_files += [folder / n for n in names if n.startswith(".tmp-")]
    if d.temp_files:
        shown = ", ".join(str(p.relative_to(d.store.root)) for p in d.temp_files[:5])
        d.add(
            "temp_files",
            "warning",
            f"{len(d.temp_files)} leftover temp file(s) from an "
            f"interrupted write: {shown}; the state never depends on them",
            "delete them (the next update would, too)",
        )
    if os.path.lexists(d.store.dir / ".copy-switch"):  # ``store/switch.py``
        d.add(
            "copy_switch",
            "error",
            f"{AGENTS_DIR}/.copy-switch/ is left by a store copy --replace that was stopped: "
            "the workflow may be half switched",
            "finish the copy, or take it back if its state was not in place yet (the next "
            "update would, too)",
        )


def check_lock(d: Diagnosis) -> None:
    owner = d.store.owner_path
    try:
        text = fsops.read_regular(owner, f"{AGENTS_DIR}/lock-owner", 200).decode()
        pid: int | None = int(text.split()[0])
    except AgentsStateError as e:
        d.add(
            "lock",
            "error",
            e.message,
            f"by hand: remove {AGENTS_DIR}/lock-owner (agents-state writes it again)",
            False,
        )
        return
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        pid = None
    if d.under_lock:
        return  # this process holds it
    from agents_state.store.lockfile import is_held

    if is_held(d.store.dir):
        who = (
            f"pid {pid} ({'running' if pid and _alive(pid) else 'no longer running'})"
            if pid
            else "an unknown process"
        )
        d.add(
            "lock_held",
            "note",
            f"the lock on {AGENTS_DIR}/ is held right now by {who}",
            "nothing to do: a kernel lock ends with its process; if it stays held, that "
            "process is hung (or the lock lives on a network file system)",
            False,
        )
    elif pid is not None and not _alive(pid) and d.temp_files:
        # the last holder died in the middle of a write: its temp files are the evidence
        d.dead_owner = pid
        d.add(
            "dead_owner",
            "note",
            f"the last holder of the lock, pid {pid}, died during a "
            "write; the kernel released the lock, so nothing blocks the next update",
            f"clear {AGENTS_DIR}/lock-owner",
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    except PermissionError:
        return True
    return True


def check_migration(d: Diagnosis) -> None:
    for source in (V1_FILE, V2_TMP_STATE):
        if not (d.store.root / source).is_file():
            continue
        if d.state is not None:
            d.leftovers.append(source)
            d.add(
                "half_migrated",
                "warning",
                f"{source} is still in place next to "
                f"{STATE_FILE}: a migration was interrupted after writing the state",
                f"rename {source} to {source}.migrated, as migrate would have",
            )
        elif d.backup is None:
            d.add(
                "not_migrated",
                "note",
                f"{source} holds a workflow in an older layout",
                "run: agents-state migrate",
                False,
            )


def check_fs(d: Diagnosis) -> None:
    message = netfs.warning(d.store.dir, netfs.fs_type(d.store.dir))
    if message:
        d.add(
            "network_fs",
            "warning",
            message,
            "by hand: keep .agents/ on a local disk, or run every writer on one machine",
            False,
        )
