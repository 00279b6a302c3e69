"""Regular files and the folders above a path: the one copy of each that the store, the input
readers and the hooks share.

Standard library only, and no ``typing`` at run time: every hook imports this module.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["CLOEXEC", "NONBLOCK", "ancestors", "file_kind", "read_upto"]

NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once instead of waiting for a writer
CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words ("a FIFO (named pipe)")."""
    import stat

    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_upto(fd: int, limit: int | None) -> bytes:
    """All of ``fd``, or at most ``limit + 1`` bytes of it: one more than allowed, so that the
    caller can tell a file over its limit (or one that grew while read) from one at it."""
    chunks: list[bytes] = []
    left = -1 if limit is None else limit + 1
    while left:
        chunk = os.read(fd, 1 << 20 if left < 0 else min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        if left > 0:
            left -= len(chunk)
    return b"".join(chunks)


def ancestors(start: str) -> Iterator[str]:
    """``start`` (made absolute) and each folder above it, up to the file-system root."""
    here = os.path.abspath(start)
    while True:
        yield here
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent
