"""Strict, bounded JSON decoding of input files, with one-line errors naming the file.

State files are read with orjson (fast; our own writes).  Files written by people and models
(tasks, config, artifacts, handoffs) go through ``loads_strict``: it also refuses duplicate keys,
NaN and Infinity, and reports the line and column.  A UTF-8 byte-order mark is tolerated.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agents_state.errors import InvalidInputError, NotFoundError, StorageIOError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "MAX_INPUT_BYTES",
    "check_markdown",
    "loads_strict",
    "read_input_bytes",
    "read_text_input",
    "strip_bom",
]

MAX_INPUT_BYTES = 32 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


def strip_bom(data: bytes) -> bytes:
    return data[len(_BOM) :] if data.startswith(_BOM) else data


def read_input_bytes(path: Path | str, shown: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """Read a user-supplied file with a size cap; '-' is handled by the caller.

    Only a regular file is read: a FIFO, a device or a socket is refused without waiting on it
    (opened non-blocking, then checked with ``fstat``), so a command never hangs on its input."""
    import os
    import stat

    from agents_state.regular import CLOEXEC, NONBLOCK, file_kind, read_upto

    try:
        fd = os.open(path, os.O_RDONLY | NONBLOCK | CLOEXEC)
    except FileNotFoundError:
        raise NotFoundError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise InvalidInputError(shown, "", "is a directory, not a file") from None
    except OSError as e:
        raise StorageIOError(shown, "read", e.strerror or str(e)) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InvalidInputError(shown, "", "is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInputError(
                shown,
                "",
                f"is {file_kind(st.st_mode)}, not a regular file; "
                "pass a file, or - to read standard input",
            )
        if st.st_size > limit:
            raise InvalidInputError(shown, "", f"is {st.st_size} bytes; the limit is {limit} bytes")
        data = read_upto(fd, limit)
    except OSError as e:
        raise StorageIOError(shown, "read", e.strerror or str(e)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InvalidInputError(shown, "", f"is over {limit} bytes, the limit")
    return data


def _no_dupes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is out of range for a number")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON (write a number or null)")


def _no_lone_surrogates(data: bytes, shown: str) -> None:
    """A ``\\ud800`` escape alone decodes in Python but is no character: nothing could write it
    back as UTF-8.  orjson refuses it (and accepts a proper pair), so let it judge."""
    import re

    if b"\\u" not in data or not re.search(rb"\\u[dD][89a-fA-F]", data):
        return
    import orjson

    try:
        orjson.loads(strip_bom(data))
    except orjson.JSONDecodeError as e:
        if "surrogate" in str(e):
            raise InvalidInputError(
                shown,
                "",
                "holds a lone \\u surrogate escape, which is no "
                "character; write the character itself, as UTF-8",
            ) from None


def loads_strict(data: bytes, shown: str) -> Any:
    """Decode JSON strictly; raise ``InvalidInputError`` naming the file and position."""
    if len(data) > MAX_INPUT_BYTES:
        raise InvalidInputError(
            shown, "", f"is {len(data)} bytes; the limit is {MAX_INPUT_BYTES} bytes"
        )
    try:
        text = strip_bom(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInputError(
            shown, "", f"is not valid UTF-8 (byte {e.start}); save it as UTF-8"
        ) from None
    if not text.strip():
        raise InvalidInputError(shown, "", "is empty; expected a JSON document")
    if "\\u" in text:
        _no_lone_surrogates(data, shown)
    try:
        return json.loads(
            text, object_pairs_hook=_no_dupes, parse_constant=_no_constant, parse_float=_finite
        )
    except json.JSONDecodeError as e:
        raise InvalidInputError(
            shown, "", f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from None
    except ValueError as e:
        raise InvalidInputError(shown, "", f"not valid JSON: {e}") from None
    except RecursionError:
        raise InvalidInputError(shown, "", "not valid JSON: nested too deeply") from None


def read_text_input(source: str, limit: int = MAX_INPUT_BYTES) -> str:
    """A text file given by path ('-' for standard input), checked as ``read_input_bytes`` and
    decoded as UTF-8 (a BOM is tolerated); anything else is refused in one line (exit 5)."""
    import sys

    if source == "-":
        data = sys.stdin.buffer.read(limit + 1)
        shown = "standard input"
        if len(data) > limit:
            raise InvalidInputError(shown, "", f"is over {limit} bytes, the limit")
    else:
        shown = source
        data = read_input_bytes(source, source, limit)
    try:
        return strip_bom(data).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInputError(
            shown, "", f"is not valid UTF-8 (byte {e.start}); save it as UTF-8"
        ) from None


def check_markdown(data: bytes, shown: str) -> None:
    """A Markdown artifact is UTF-8 text with something in it (issue 27): an empty, whitespace-only
    or binary file is refused in one line naming it (exit 5), never recorded as a phase's result."""
    text = strip_bom(data)
    if not text.strip():
        what = "is empty" if not text else "has only whitespace"
        raise InvalidInputError(shown, "", f"{what}; write the phase's findings into it")
    nul = text.find(b"\0")
    if nul >= 0:
        raise InvalidInputError(
            shown, "", f"is binary (a NUL at byte {nul}); a Markdown artifact is UTF-8 text"
        )
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInputError(
            shown, "", f"is not valid UTF-8 (byte {e.start}); save it as UTF-8"
        ) from None
