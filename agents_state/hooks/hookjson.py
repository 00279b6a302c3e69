"""JSON for the hooks: the standard library's parser for small documents, orjson for the rest.

A hook runs before every tool call, and its payload is a few hundred bytes; ``import orjson``
costs about 15 ms on its own (it loads ``uuid``, ``dataclasses``, ``inspect`` and ``datetime``
to learn their types), more than the whole hook does otherwise.  The standard library's ``json``
(its C scanner) parses a small document in microseconds and loads in about 2 ms beyond ``re``,
which the hooks' pattern checks need anyway.

orjson stays the judge: whatever the standard parser refuses or would read differently (NaN and
Infinity, a number out of range, a lone surrogate, a byte-order mark, invalid UTF-8, nesting the
C scanner cannot follow) is parsed again by orjson, which returns its value or raises its own
error.  So a hook accepts exactly the documents orjson accepts, reads the same values and
reports the same error texts, and only the common case is cheaper.  The standard parser takes
about 5 us per KB of a state file and orjson about 2.5 (measured at 1,000 and 10,000 tasks), so
orjson's import pays for itself only above about 4 MB (some 12,000 tasks): larger documents go
to orjson at once.

``benchmarks/bench_hook.py`` measures the whole hook; ``tests/protocol/test_hook_fast_paths.py``
holds the two parsers to the same results.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = ["ORJSON_ABOVE", "dumps", "loads", "loads_file"]

# Above this size orjson's speed (about twice the standard parser's) pays for its import.
ORJSON_ABOVE = 4 * 1024 * 1024

_LONE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")  # any surrogate escape: orjson judges pairs
_INT64 = (-(2**63), 2**64 - 1)  # orjson reads integers in this range exactly, others as floats


class _Differs(ValueError):
    """The standard parser would read this document differently from orjson."""


def _constant(name: str) -> Any:
    raise _Differs(name)


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Differs(text)
    return value


def _int(text: str) -> int:
    value = int(text)
    if not _INT64[0] <= value <= _INT64[1]:
        raise _Differs(text)
    return value


def loads(raw: bytes) -> Any:
    """The JSON value of ``raw``, exactly as ``orjson.loads`` reads it; its errors
    (``orjson.JSONDecodeError``, a ``ValueError``) when it is not JSON."""
    if len(raw) <= ORJSON_ABOVE and _LONE_SURROGATE.search(raw) is None:
        try:
            return json.loads(
                raw.decode("utf-8"), parse_constant=_constant, parse_float=_float, parse_int=_int
            )
        except (ValueError, RecursionError):
            pass  # orjson decides, and words the error
    import orjson

    return orjson.loads(raw)


def loads_file(raw: bytes) -> Any:
    """A file's JSON value: a leading UTF-8 byte-order mark is tolerated, as the engine's own
    readers tolerate it (``jsonio.strip_bom``); hooks must see the workflow the engine sees."""
    return loads(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)


def dumps(data: Any) -> bytes:
    """Compact UTF-8 JSON, as ``orjson.dumps`` writes it."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
