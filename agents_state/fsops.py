"""The file-system calls of a commit, in one place so that tests can fail or trace them.

Each call first passes its operation name to ``_check``, which does nothing here; the tests
replace it (``tests/seams.py``) to fail the N-th call of one operation or to trace the order of
the calls.  No environment variable or option reaches it: a user cannot switch it on.
Calls made after the state is durable (the last-good backup, the events append) pass their own
``op`` name (``backup_write``, ``append_fsync``, ...) so that a trace or a fault can tell them
apart.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["fsync", "fsync_dir", "replace", "write_all"]


def _check(op: str) -> None:
    """The test seam: called with the operation's name before each call; a no-op."""


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
