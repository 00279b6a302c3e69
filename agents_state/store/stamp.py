"""A mark on ``state.json`` that its bytes are the ones this engine validated and wrote (issue 26).

Every command reads the whole state, and checking every task again is most of what a read costs
at 1,000 tasks (``docs/performance.md``).  The store's commit validates the state it writes
(``encode_state``); it also sets an extended attribute on the temporary file before the
``os.replace``, so the mark and the bytes arrive together: the engine's version, the state's
schema, the CRC-32 of ``models.py`` (the record definitions the bytes were checked against),
the length and the CRC-32 of the bytes.  A read whose bytes give the same mark builds
the records without checking them again (``records.trusted``); any other read checks them.

So a file edited in place (the attribute stays, the bytes change), replaced by an editor, copied,
restored from the backup, written by another version of the engine or on a file system without
user attributes is checked, with the same one-line errors as before.  The CRC is there to catch
accidents, not an attacker: whoever can write ``.agents/state.json`` can already write any valid
state, and a forged mark would at worst turn a one-line error into a failure later.
"""

from __future__ import annotations

import os

__all__ = ["ATTRIBUTE", "checksum", "is_marked", "mark"]

ATTRIBUTE = "user.agents-state.written"
_CODE: list[bytes] = []  # what identifies the engine's record definitions, once per process


def _code() -> bytes:
    if not _CODE:
        import zlib

        from agents_state import __version__, models

        try:
            with open(models.__file__, "rb") as f:
                source = zlib.crc32(f.read())
        except OSError:
            source = 0
        _CODE.append(b"%s v%d %08x" % (__version__.encode(), models.SCHEMA_VERSION, source))
    return _CODE[0]


_LAST: list[tuple[bytes, int]] = []  # the last two byte strings summed, and their CRC-32


def checksum(data: bytes) -> int:
    """The CRC-32 of ``data``, computed once for the state read and the state written (the
    backup's journal names them by it, ``store.backup``)."""
    for seen, crc in _LAST:
        if seen is data:
            return crc
    import zlib

    crc = zlib.crc32(data)
    _LAST[:] = [*_LAST[-1:], (data, crc)]
    return crc


def _value(data: bytes) -> bytes:
    return b"%s %d %08x" % (_code(), len(data), checksum(data))


def mark(fd: int, data: bytes) -> None:
    """Mark the open file ``fd``, which holds ``data`` that was validated; a file system
    without user attributes is left unmarked (its reads check)."""
    try:
        os.setxattr(fd, ATTRIBUTE, _value(data))
    except (OSError, AttributeError):  # no attributes here, or no os.setxattr on this system
        pass


def is_marked(path: str, data: bytes) -> bool:
    """Whether ``data``, read from ``path``, is what the engine wrote there and marked."""
    try:
        found = os.getxattr(path, ATTRIBUTE, follow_symlinks=False)
    except (OSError, AttributeError):
        return False
    return found == _value(data)
