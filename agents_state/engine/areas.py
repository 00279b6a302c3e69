"""The plan areas a brainstorm lists (issue 33; pure): what sizes the plan fan-out of phase 1.2.

The brainstorm (``.agents/phases/1.1-brainstorm.md``) names its areas under a heading whose
text is ``Areas`` or ``Plan areas`` (any level), one Markdown list item each; an agent's answer
written into it as a JSON block gives them as ``findings.areas`` (or ``areas``).  The number of
areas is how many plan agents 1.2 runs: the estimate printed on the 1.1 command came from the
task's wording, and the plan agents past the last area were told to plan an area that is not
there.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["brainstorm_areas"]

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(?:plan\s+)?areas\b[^\n]*$", re.IGNORECASE)
_ANY_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_ITEM = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+\S")
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


def brainstorm_areas(text: str) -> list[str]:
    """The areas the brainstorm lists, in order; empty when it lists none that can be read."""
    found = _listed(text)
    return found if found else _in_json(text)


def _listed(text: str) -> list[str]:
    areas: list[str] = []
    inside = False
    for line in text.splitlines():
        if _HEADING.match(line):
            if areas:
                break  # the first list of areas is the one
            inside = True
            continue
        if inside and _ANY_HEADING.match(line):
            if areas:
                break
            inside = False
            continue
        if inside and _ITEM.match(line):  # top-level items only: nested ones describe an area
            areas.append(re.sub(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+", "", line).strip())
    return areas


def _in_json(text: str) -> list[str]:
    for block in _FENCE.findall(text):
        try:
            data: Any = json.loads(block)
        except (ValueError, RecursionError):
            continue
        if not isinstance(data, dict):
            continue
        findings = data.get("findings")
        areas = findings.get("areas") if isinstance(findings, dict) else data.get("areas")
        if isinstance(areas, list) and areas:
            return [a if isinstance(a, str) else json.dumps(a) for a in areas]
    return []
