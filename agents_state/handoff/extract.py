"""Find the handoff JSON in a model's reply.

A sub-agent is asked to answer with JSON, and often does it inside prose ("Here is my handoff:")
or a Markdown code fence.  The reply is accepted as: the whole text as JSON; else the fenced blocks
(a ``json`` fence first, the last one winning, since models end with their answer); else the JSON
objects found in the prose.  Among several candidates the last one that looks like a handoff
(has ``decision``, ``task_id``, ``status``, ``checks`` or ``instructions``) wins.

Every scan is linear in the text (issue 23: a regex over 100 KB of backticks took 16 s): fences
are found with ``str.find``, and in prose at most ``MAX_FAILED`` decodes may fail.  A
candidate nested deeper than ``MAX_DEPTH`` or holding a number longer than ``MAX_NUMBER``
characters refuses the whole reply (``JsonLimitError``): a handoff is a flat object, and such a
reply is an attack or a bug, never an answer to look past.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "HANDOFF_KEYS",
    "MAX_DEPTH",
    "MAX_NUMBER",
    "ExtractError",
    "JsonLimitError",
    "extract_json",
]

HANDOFF_KEYS = frozenset(
    {"decision", "task_id", "status", "checks", "instructions", "check_type", "context_summary"}
)

MAX_DEPTH = 64
MAX_NUMBER = 100
MAX_FAILED = 64
_WS = " \t\n\r"  # JSON's white space
_OPEN = re.compile(r"\{[ \t\n\r]*[\"}]")  # where an object may start
_LANG = re.compile(r"[ \t]*([A-Za-z0-9_+-]*)")
_find = str.find  # the scans' one search of a literal, a name a test can count (issue 35)


class ExtractError(ValueError):
    """No JSON object in the text; the message says what was wrong and where."""


class JsonLimitError(ExtractError):
    """A JSON value nested too deep or with a number too long: the reply is refused whole."""


def _limited(text: str) -> None:
    if len(text) > MAX_NUMBER:
        raise JsonLimitError(f"a number of {len(text)} characters; the limit is {MAX_NUMBER}")


def _int(text: str) -> int:
    _limited(text)
    return int(text)


def _float(text: str) -> float:
    _limited(text)
    return float(text)


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float)


def _checked(obj: Any) -> Any:
    """``obj`` when it is nested at most ``MAX_DEPTH`` deep (walked without recursion)."""
    level: list[Any] = [obj]
    for _ in range(MAX_DEPTH + 1):
        level = [
            v
            for c in level
            if isinstance(c, dict | list)
            for v in (c.values() if isinstance(c, dict) else c)
        ]
        if not level:
            return obj
    raise JsonLimitError(_TOO_DEEP)


_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels; a handoff is a flat object"


def _decode(text: str, start: int = 0) -> tuple[Any, int]:
    try:
        obj, end = _DECODER.raw_decode(text, start)
    except RecursionError:
        raise JsonLimitError(_TOO_DEEP) from None
    return _checked(obj), end


def _loads(text: str) -> Any:
    """``json.loads`` with the limits."""
    start = len(text) - len(text.lstrip(_WS))
    obj, end = _decode(text, start)
    rest = len(text) - len(text[end:].lstrip(_WS))
    if rest != len(text):
        raise json.JSONDecodeError("Extra data", text, rest)
    return obj


def _fences(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block: an opening triple backtick, the rest of its line
    (a language first), the body up to the next triple backtick.  One pass."""
    found = []
    pos = 0
    while (i := _find(text, "```", pos)) != -1:
        nl = _find(text, "\n", i + 3)
        if nl == -1:
            break  # no line ends after here: no later fence has a body either
        close = _find(text, "```", nl + 1)
        if close == -1:
            break
        m = _LANG.match(text, i + 3, nl)
        found.append((m.group(1) if m else "", text[nl + 1 : close]))
        pos = close + 3
    return found


def _objects_in_prose(text: str) -> list[dict[str, Any]]:
    """Every JSON object in the prose, from each ``{`` that could open one (a quote or ``}``
    next) and is not inside one found.  A failed decode costs up to the length of the text
    (the decoder counts the lines before the error), so after ``MAX_FAILED`` failures the rest
    is prose: a reply with that many broken objects holds no answer to find."""
    found: list[dict[str, Any]] = []
    failed = 0
    m = _OPEN.search(text)
    while m is not None:
        try:
            obj, end = _decode(text, m.start())
        except JsonLimitError:
            raise
        except ValueError:
            failed += 1
            if failed >= MAX_FAILED:
                break
            m = _OPEN.search(text, m.start() + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        m = _OPEN.search(text, end)
    return found


def _pick(candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not candidates:
        return None
    looks = [c for c in candidates if HANDOFF_KEYS & c.keys()]
    return (looks or candidates)[-1]


def extract_json(text: str) -> dict[str, Any]:
    """The handoff object in ``text``; raises ``ExtractError`` if there is none."""
    stripped = text.strip().lstrip("\ufeff")
    if not stripped:
        raise ExtractError("empty input: expected a handoff JSON object")
    if stripped[0] in "{[":
        try:
            whole = _loads(stripped)
        except json.JSONDecodeError as e:
            if not _objects_in_prose(stripped):
                raise ExtractError(
                    f"invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}"
                ) from None
        else:
            if isinstance(whole, dict):
                return whole
            raise ExtractError(f"expected a JSON object, got a {type(whole).__name__}")
    fences = _fences(stripped)
    errors: list[str] = []
    for want_json in (True, False):
        blocks: list[dict[str, Any]] = []
        for lang, body in fences:
            if (lang.lower() == "json") != want_json:
                continue
            try:
                obj = _loads(body)
            except json.JSONDecodeError as e:
                errors.append(
                    f"invalid JSON in a code fence at line {e.lineno}, column {e.colno}: {e.msg}"
                )
                continue
            if isinstance(obj, dict):
                blocks.append(obj)
        picked = _pick(blocks)
        if picked is not None:
            return picked
    picked = _pick(_objects_in_prose(stripped))
    if picked is not None:
        return picked
    if errors:
        raise ExtractError(errors[-1])
    raise ExtractError(
        "no JSON object found: answer with the handoff JSON, alone or in a ```json code fence"
    )
