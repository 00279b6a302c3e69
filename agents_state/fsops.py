"""The file-system calls of a commit, in one place so that tests can fail or trace them.

``AGENTS_STATE_FAULT`` (tests only) makes the N-th call of one operation fail, e.g.
``fsync:2:ENOSPC`` (fail the 2nd fsync once) or ``replace:1:EIO:always``.
``AGENTS_STATE_TRACE=FILE`` appends the name of each call to FILE, for the write-order test.
Calls made after the state is durable (the last-good backup, the events append) pass their own
``op`` name (``backup_write``, ``append_fsync``, ...) so that a trace or a fault can tell them
apart.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

__all__ = ["fsync", "fsync_dir", "replace", "write_all"]

_counts: dict[str, int] = {}
_FAULT = os.environ.get("AGENTS_STATE_FAULT", "")
_TRACE = os.environ.get("AGENTS_STATE_TRACE", "")


def _check(op: str) -> None:
    if _TRACE:
        with open(_TRACE, "a") as f:
            f.write(op + "\n")
    if not _FAULT:
        return
    name, nth, code, *mode = _FAULT.split(":")
    if name != op:
        return
    _counts[op] = _counts.get(op, 0) + 1
    n = int(nth)
    if _counts[op] == n or (mode == ["always"] and _counts[op] >= n):
        err = getattr(errno, code)
        raise OSError(err, os.strerror(err))


def write_all(fd: int, data: bytes, op: str = "write") -> None:
    _check(op)
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def fsync(fd: int, op: str = "fsync") -> None:
    _check(op)
    os.fsync(fd)


def replace(src: Path, dst: Path, op: str = "replace") -> None:
    _check(op)
    os.replace(src, dst)


def fsync_dir(path: Path) -> None:
    _check("fsync_dir")
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
