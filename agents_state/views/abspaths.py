"""A next action's paths made absolute under worktree isolation (issue 33; pure).

The Bash tool keeps a ``cd``, and after 2.1 the model is told to work in the integration
worktree: a relative ``.agents/phases/...`` or ``.agents/worktrees/...`` it then reads, writes or
passes to a sub-agent resolves against the wrong folder.  Every string of the action (the
instructions, the command, ``read``/``write``, the tasks' worktrees, a fan-out's prompts) gets
them absolute, from the project's real path, so that the CLI and the hooks (which recompute the
action to approve a fan-out's call) print the same words.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["absolute_paths"]


def absolute_paths(action: dict[str, Any], root: str, worktrees: str) -> dict[str, Any]:
    real = os.path.realpath(root)
    rels = {".agents/phases/"}
    if not os.path.isabs(worktrees):
        rels.add(worktrees.rstrip("/") + "/")
    alternatives = "|".join(re.escape(r) for r in sorted(rels, key=len, reverse=True))
    found = re.compile(rf"(?<![\w/.~-])({alternatives})")

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            return (
                found.sub(lambda m: f"{real}/{m.group(1)}", value) if ".agents" in value else value
            )
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        return value

    out: dict[str, Any] = fix(action)
    return out
