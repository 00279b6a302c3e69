"""The last-good copy of the state: a full copy now and then, a journal of changes in between
(issue 35, item 4).

``.agents/state.json.bak`` is a whole state (the base); ``.agents/state.json.journal`` holds,
one JSON document a line, what each later commit changed: the state less the tasks it wrote
back as read, and for each phase whose task ids kept their order, the tasks that changed (``codec
.take_delta``).  Every change is followed by a short line naming the state it makes (revision,
length, CRC-32 of its bytes); the journal's first line names the base.  Replaying the journal
over the base gives the last state written, each step checked against its line's CRC; a torn or
unmatched line ends the replay there (``replay``).

A commit appends its change (write, fsync) only when the journal's last line names the very
state the commit read; otherwise -- the first commit, a state written by hand, restored or
copied, a journal append that failed, a kill between the state's replace and the append, or a
journal grown past the state's own size (or 256 KiB) -- it writes a new base (temp, fsync,
replace) and then a journal of one line (temp, fsync, replace).  Neither is a directory fsync:
the next commit's makes the renames durable, and until then the older pair stands, as the
backup did before.  So ``task done`` at 10,000 tasks appends some 100 KB (the waves and the
changed tasks) instead of writing 3 MB a second time.
"""

from __future__ import annotations

import os

import orjson

from agents_state.store import fsops
from agents_state.store.paths import AGENTS_DIR, BACKUP_FILE, MAX_STATE_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Store(Protocol):
        """What this module needs of ``store.files.Store`` (which imports this module)."""

        agents: str
        backup_file: str

        def write_file(self, path: str, data: bytes, shown: str, op: str = "") -> None: ...


__all__ = ["JOURNAL_FILE", "journal_tail", "read_backup", "rebase", "refresh", "replay"]

JOURNAL_NAME = "state.json.journal"
JOURNAL_FILE = f"{AGENTS_DIR}/{JOURNAL_NAME}"
_TAIL = 256  # the last line is at most this long: {"rev":..,"len":..,"crc":..}
_SMALL = 256 * 1024  # a journal may grow to the state's size, or to this for a small state

Sum = tuple[int, int, int]  # (revision, length, CRC-32) of a state's bytes


def _sum_line(rev: int, data: bytes) -> bytes:
    from agents_state.store.stamp import checksum

    return b'{"rev":%d,"len":%d,"crc":%d}\n' % (rev, len(data), checksum(data))


def summed(rev: int, data: bytes) -> Sum:
    from agents_state.store.stamp import checksum

    return (rev, len(data), checksum(data))


def _path(store: Store) -> str:
    return os.path.join(store.agents, JOURNAL_NAME)


def journal_tail(path: str) -> Sum | None:
    """The state the journal's last line names, or ``None``."""
    try:
        fd = fsops.open_regular(path, os.O_RDONLY, JOURNAL_FILE)
    except Exception:  # none, or refused (a link, a FIFO): a new base is written
        return None
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - _TAIL)
        os.lseek(fd, start, os.SEEK_SET)
        tail = os.read(fd, size - start)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not tail.endswith(b"\n"):
        return None
    last = tail[:-1].rsplit(b"\n", 1)[-1]
    try:
        doc = orjson.loads(last)
        return (int(doc["rev"]), int(doc["len"]), int(doc["crc"]))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def refresh(store: Store, data: bytes, rev: int, read: Sum | None) -> None:
    """After the commit of ``data`` (revision ``rev``), which read the state ``read``: append
    its change, or write a new base.  Raises ``StorageIOError``; the state is saved anyway."""
    from agents_state.store.codec import take_delta

    delta = take_delta()
    path = _path(store)
    if (
        delta is not None
        and read is not None
        and _is_file(store.backup_file)  # a base to replay over: not deleted, not a link
        and journal_tail(path) == read
    ):
        entry = orjson.dumps({"from": read[0], **delta}) + b"\n" + _sum_line(rev, data)
        try:
            size = os.path.getsize(path)
        except OSError:
            size = -1
        if size >= 0 and size + len(entry) <= max(len(data), _SMALL):
            _append(path, entry)
            return
    rebase(store, data, rev)


def _is_file(path: str) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def rebase(store: Store, data: bytes, rev: int) -> None:
    """A new base: the backup is ``data`` (revision ``rev``) and the journal names it only."""
    store.write_file(store.backup_file, data, BACKUP_FILE, "backup_")
    store.write_file(_path(store), _sum_line(rev, data), JOURNAL_FILE, "journal_")


def _append(path: str, entry: bytes) -> None:
    from agents_state.errors import InvalidInputError, StorageIOError

    try:
        fd = fsops.open_regular(path, os.O_WRONLY | os.O_APPEND, JOURNAL_FILE)
    except OSError as e:
        raise StorageIOError(JOURNAL_FILE, "open", e.strerror or str(e)) from None
    except InvalidInputError as e:  # replaced by a link or a FIFO since its tail was read
        raise StorageIOError(JOURNAL_FILE, "open", e.problem) from None
    try:
        size = os.fstat(fd).st_size
        try:
            fsops.write_all(fd, entry, "journal_write")
            fsops.fsync(fd, "journal_fsync")
        except OSError as e:
            try:  # no fragment left for a later line to join; the tail names the old state
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise StorageIOError(JOURNAL_FILE, "write", e.strerror or str(e)) from None
    finally:
        os.close(fd)


def replay(base: bytes, journal: bytes) -> bytes:
    """The last state the journal leads to from ``base`` (``base`` itself when the journal
    does not start from it); each step is checked against the length and CRC its line gives."""
    import zlib

    lines = journal.split(b"\n")
    try:
        first = orjson.loads(lines[0])
        cur_rev = int(first["rev"])
        if (first["len"], first["crc"]) != (len(base), zlib.crc32(base)):
            return base
        cur = orjson.loads(base)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return base
    out = base
    for i in range(1, len(lines) - 2, 2):
        try:
            entry, mark = orjson.loads(lines[i]), orjson.loads(lines[i + 1])
            if entry["from"] != cur_rev:
                break
            new = _apply(cur, entry)
            data = orjson.dumps(new, option=orjson.OPT_INDENT_2) + b"\n"
        except (orjson.JSONDecodeError, orjson.JSONEncodeError, KeyError, TypeError):
            break
        if (mark["len"], mark["crc"]) != (len(data), zlib.crc32(data)):
            break
        cur, cur_rev, out = new, int(mark["rev"]), data
    return out


def _apply(prev: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    new: dict[str, Any] = entry["state"]
    for name, pid, changed in entry["patch"]:
        tasks = dict(prev["stages"][name]["phases"][pid]["tasks"])
        if not set(changed) <= set(tasks):
            raise KeyError(pid)
        tasks.update(changed)
        new["stages"][name]["phases"][pid]["tasks"] = tasks
    return new


def read_backup(store: Store) -> bytes | None:
    """The last-good state: the base with the journal replayed over it; ``None`` without a
    base.  Raises what ``fsops.read_regular`` raises for the base."""
    base = fsops.read_regular(store.backup_file, BACKUP_FILE, MAX_STATE_BYTES)
    try:
        journal = fsops.read_regular(_path(store), JOURNAL_FILE, 4 * MAX_STATE_BYTES)
    except Exception:  # no journal, or one that cannot be read: the base alone
        return base
    return replay(base, journal)
