"""Upkeep of the file store's folder, for ``doctor --repair`` and ``migrate``: move a damaged
or migrated file aside, delete debris, write a state that cannot be read back first.

File store only (``files.Store``).  The PostgreSQL store has no files to move or delete and no
half-written state to restore: a transaction commits whole or not at all, and ``doctor`` on it
(``doctor/pg.py``) diagnoses and names the fixes, which are by hand.  So these are functions of
the file store, not methods of ``api.WorkflowStore``.

Every call keeps the store's promises:

- the caller holds the store's lock (``store.locked()``; a call without it is refused) and has
  looked again under it at what it acts on (``doctor --repair`` diagnoses under the lock);
- a name is a path under ``.agents/``, opened one directory at a time with ``O_NOFOLLOW``
  (``fsops.open_dir``): a link planted on the way is refused (exit 5), a link as the last
  component is itself renamed or removed, never its target, so nothing outside ``.agents/`` is
  touched;
- a rename or a delete is made durable (fsync of its directory) before the call returns.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from agents_state.errors import StorageIOError
from agents_state.store import fsops
from agents_state.store.paths import AGENTS_DIR, check_inside

if TYPE_CHECKING:
    from agents_state.models import State
    from agents_state.store.files import Store

__all__ = ["move_aside", "remove", "replace_events", "write_state"]


def _require_lock(store: Store) -> None:
    if not store.holding:
        raise RuntimeError("store upkeep called without the store's lock (use store.locked())")


def _split(name: str) -> tuple[list[str], str]:
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"not a path under {AGENTS_DIR}/: {name!r}")
    return parts[:-1], parts[-1]


def _open_parent(store: Store, folders: list[str], shown: str) -> int:
    check_inside(store.root, store.dir, AGENTS_DIR)
    try:
        return fsops.open_dir(store.dir, folders, AGENTS_DIR)
    except OSError as e:
        raise StorageIOError(shown, "open directory", e.strerror or str(e)) from None


def move_aside(store: Store, name: str, suffix: str) -> bool:
    """Rename ``.agents/<name>`` to ``.agents/<name><suffix>`` (replacing what has that name)
    and fsync the directory; False when there is nothing to move."""
    _require_lock(store)
    folders, leaf = _split(name)
    if not suffix or "/" in suffix:
        raise ValueError(f"not a suffix: {suffix!r}")
    shown = f"{AGENTS_DIR}/{name}"
    fd = _open_parent(store, folders, shown)
    try:
        try:
            fsops.replace_at(fd, leaf, leaf + suffix, "aside_replace")
        except FileNotFoundError:
            return False
        fsops.fsync(fd, "aside_fsync_dir")
    except OSError as e:
        raise StorageIOError(shown, f"rename to {leaf + suffix}", e.strerror or str(e)) from None
    finally:
        os.close(fd)
    return True


def remove(store: Store, names: Iterable[str]) -> int:
    """Delete each ``.agents/<name>`` (a file, or a link itself) and fsync its directory;
    returns how many were there."""
    _require_lock(store)
    by_folder: dict[tuple[str, ...], list[str]] = {}
    for name in names:
        path, leaf = _split(name)
        by_folder.setdefault(tuple(path), []).append(leaf)
    gone = 0
    for folders, leaves in by_folder.items():
        shown = "/".join((AGENTS_DIR, *folders))
        fd = _open_parent(store, list(folders), shown)
        try:
            for leaf in leaves:
                try:
                    fsops.unlink_at(fd, leaf, "remove_unlink")
                except FileNotFoundError:
                    continue
                except OSError as e:
                    where = f"{shown}/{leaf}"
                    raise StorageIOError(where, "delete", e.strerror or str(e)) from None
                gone += 1
            fsops.fsync(fd, "remove_fsync_dir")
        except OSError as e:
            raise StorageIOError(shown, "fsync directory", e.strerror or str(e)) from None
        finally:
            os.close(fd)
    return gone


def write_state(
    store: Store, state: State, record: dict[str, Any], old: bytes | None = None
) -> None:
    """Write ``state`` (its backup refreshed) and log ``record``, as a commit does, for a
    caller that decided on the new state itself under the lock: ``doctor --repair`` restoring
    a state that cannot be read, or reopening phases.  ``old``: the bytes it replaces, put back
    if the write cannot be made durable."""
    from agents_state.store.codec import encode_state
    from agents_state.store.files import STATE_FILE

    _require_lock(store)
    store._write_state(encode_state(state, STATE_FILE), old, state)
    store.note_commit(f"revision {state.revision}")
    store._append_event(record)


def replace_events(store: Store, data: bytes) -> None:
    """Keep ``events.jsonl`` as ``events.jsonl.damaged`` and write ``data`` in its place."""
    _require_lock(store)
    move_aside(store, "events.jsonl", ".damaged")
    store.write_file(store.events_path, data, f"{AGENTS_DIR}/events.jsonl")
