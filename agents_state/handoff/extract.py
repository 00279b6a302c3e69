"""Find the handoff JSON in a model's reply.

A sub-agent is asked to answer with JSON, and often does it inside prose ("Here is my handoff:")
or a Markdown code fence.  The reply is accepted as: the whole text as JSON; else the fenced blocks
(a ``json`` fence first, the last one winning, since models end with their answer); else the JSON
objects found in the prose.  Among several candidates the last one that looks like a handoff
(has ``decision``, ``task_id``, ``status``, ``checks`` or ``instructions``) wins.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["HANDOFF_KEYS", "ExtractError", "extract_json"]

HANDOFF_KEYS = frozenset(
    {"decision", "task_id", "status", "checks", "instructions", "check_type", "context_summary"}
)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)


class ExtractError(ValueError):
    """No JSON object in the text; the message says what was wrong and where."""


def _loads(text: str) -> Any:
    return json.loads(text)


def _objects_in_prose(text: str) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    i = text.find("{")
    while i != -1:
        try:
            obj, end = decoder.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        i = text.find("{", end)
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
    fences = _FENCE.findall(stripped)
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
