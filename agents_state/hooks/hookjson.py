"""JSON for the hooks: the standard library's C parser for small documents, orjson for the rest.

A hook runs before every tool call, and its payload is a few hundred bytes; ``import orjson``
costs about 15 ms on its own (it loads ``uuid``, ``dataclasses``, ``inspect`` and ``datetime``
to learn their types), more than the whole hook does otherwise.  The standard library parses a
small document in microseconds, but ``import json`` costs about 7 ms on the hook's path: its
pure-Python modules compile regular expressions, which loads ``re``, ``enum`` and ``functools``.
So the hooks call the C functions behind ``json.loads`` and ``json.dumps`` themselves (``_json``:
the scanner and encoder ``json.JSONDecoder`` and ``json.JSONEncoder`` build, with the same
settings), and load the ``json`` package only where they are missing or refuse.

orjson stays the judge: whatever the standard parser refuses or would read differently (NaN and
Infinity, a number out of range, a lone surrogate, a byte-order mark, invalid UTF-8, nesting the
C scanner cannot follow) is parsed again by orjson, which returns its value or raises its own
error.  So a hook accepts exactly the documents orjson accepts, reads the same values and
reports the same error texts, and only the common case is cheaper.  The standard parser takes
about 5 us per KB of a state file and orjson about 2.5 (measured at 1,000 and 10,000 tasks), so
orjson's import pays for itself only above about 4 MB (some 12,000 tasks): larger documents go
to orjson at once.

``benchmarks/bench_hook.py`` measures the whole hook; ``tests/protocol/test_hook_fast_paths.py``
holds the parsers to the same results.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ORJSON_ABOVE", "dumps", "loads", "loads_file"]

# Above this size orjson's speed (about twice the standard parser's) pays for its import.
ORJSON_ABOVE = 4 * 1024 * 1024

_INT64 = (-(2**63), 2**64 - 1)  # orjson reads integers in this range exactly, others as floats
_WHITESPACE = " \t\n\r"  # JSON's white space, which json.loads skips around the value

json: Any = None  # the json package, once a fallback needed it


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


class _Settings:
    """What ``json.loads(text, parse_constant=..., parse_float=..., parse_int=...)`` gives the
    C scanner (``json.decoder.JSONDecoder``'s attributes): strict strings, no object hooks."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_constant = staticmethod(_constant)
    parse_float = staticmethod(_float)
    parse_int = staticmethod(_int)
    array_hook = None  # read from Python 3.15 on


def _c_scanner() -> Any:
    """The C scanner ``json.JSONDecoder`` builds (``_json``: CPython's accelerator of the json
    package), or ``None`` where there is none: then the json package parses."""
    try:
        from _json import make_scanner

        return make_scanner(_Settings)  # type: ignore[arg-type]  # duck-typed settings
    except Exception:  # pragma: no cover - another Python, or another _json
        return None


_scan = _c_scanner()


def _json_package() -> Any:
    global json
    if json is None:
        import json as package

        json = package
    return json


def _standard_loads(text: str) -> Any:
    """``json.loads(text)`` with ``_Settings``' hooks; raises on anything it would refuse."""
    if _scan is None:  # pragma: no cover - another Python
        package = _json_package()
        return package.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    import gc

    # A parse makes no reference cycles, so the collector's passes while it builds thousands of
    # objects find nothing: about a fifth of a 1,000-task state's parse in a fresh process.
    collecting = gc.isenabled()
    gc.disable()
    try:  # json.JSONDecoder.decode: white space, one value, white space, the end
        value, end = _scan(text, len(text) - len(text.lstrip(_WHITESPACE)))
    finally:
        if collecting:
            gc.enable()
    if end != len(text.rstrip(_WHITESPACE)):
        raise _Differs("extra data")
    return value


def _surrogate_escape(raw: bytes) -> bool:
    """Whether ``raw`` holds any surrogate escape (``\\ud800``): orjson judges pairs."""
    if b"\\u" not in raw:
        return False
    import re  # only for a document with \\u escapes (rare: Claude Code writes UTF-8)

    return re.search(rb"\\u[dD][89a-fA-F]", raw) is not None


def loads(raw: bytes) -> Any:
    """The JSON value of ``raw``, exactly as ``orjson.loads`` reads it; its errors
    (``orjson.JSONDecodeError``, a ``ValueError``) when it is not JSON."""
    if len(raw) <= ORJSON_ABOVE and not _surrogate_escape(raw):
        try:
            return _standard_loads(raw.decode("utf-8"))
        except Exception:  # refused: StopIteration, ValueError, RecursionError, and SystemError
            # for the errors the C scanner words with json.decoder, which is not loaded
            pass  # orjson decides, and words the error
    import orjson

    return orjson.loads(raw)


def loads_file(raw: bytes) -> Any:
    """A file's JSON value: a leading UTF-8 byte-order mark is tolerated, as the engine's own
    readers tolerate it (``jsonio.strip_bom``); hooks must see the workflow the engine sees."""
    return loads(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)


class _Unencodable(TypeError):
    pass


def _refuse(value: Any) -> Any:
    raise _Unencodable(type(value).__name__)


def dumps(data: Any) -> bytes:
    """Compact UTF-8 JSON, as ``orjson.dumps`` writes it: ``json.dumps(data,
    ensure_ascii=False, separators=(",", ":"))``, whose errors it raises."""
    try:
        from _json import encode_basestring, make_encoder

        # json.JSONEncoder.iterencode's one-shot C encoder, with these settings: circular
        # references checked, no default, no indent, keys in order, NaN allowed
        encode = make_encoder({}, _refuse, encode_basestring, None, ":", ",", False, False, True)
        return "".join(encode(data, 0)).encode("utf-8")
    except (ImportError, TypeError, ValueError, RecursionError):
        pass  # the json package does it, or raises its own error
    package = _json_package()
    text: str = package.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8")
