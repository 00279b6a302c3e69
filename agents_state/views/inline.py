"""Short artifacts a step needs, printed in its action (issue 34, item 2).

A ``read:`` entry costs the main conversation a turn, and every turn re-sends the whole
conversation; a short file is cheaper printed in the action itself.  Each file the action lists
under ``read`` that is a regular file in ``.agents/`` of at most ``ONE`` bytes (and ``ALL``
together) moves to ``inline`` (``[{"path", "text"}]``, in order); the rest stay under ``read``.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["ALL", "ONE", "inline_reads"]

ONE = 4_000
ALL = 8_000


def inline_reads(action: dict[str, Any], root: str) -> dict[str, Any]:
    from agents_state.errors import AgentsStateError
    from agents_state.store.fsops import read_regular

    reads = action.get("read")
    if not isinstance(reads, list) or not reads:
        return action
    kept: list[Any] = []
    inline: list[dict[str, str]] = []
    total = 0
    for rel in reads:
        path = rel if os.path.isabs(str(rel)) else os.path.join(root, str(rel))
        if "/.agents/" not in path:  # the engine's own files only
            kept.append(rel)
            continue
        try:
            data = read_regular(path, str(rel), ONE)
        except (OSError, ValueError, AgentsStateError):
            kept.append(rel)
            continue
        if len(data) > ONE or total + len(data) > ALL:
            kept.append(rel)
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            kept.append(rel)
            continue
        total += len(data)
        inline.append({"path": str(rel), "text": text})
    if not inline:
        return action
    return {**action, "read": kept, "inline": inline}
