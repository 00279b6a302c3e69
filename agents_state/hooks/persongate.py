"""PreToolUse: a person's gate answer is never a tool call (issue 36).

``agents-state gate approve|reject`` records a person's decision.  The plugin's commands and
skills pre-approve ``Bash(agents-state *)`` while they run, and that wildcard would cover it; so
the first PreToolUse hook (``pre_tool_use``) denies any Bash call that names a gate answer, for
the main conversation and every agent alike, and Claude Code lets a hook's deny beat any allow.
The reason names the command the person runs.  The words are matched on the raw text (also
inside ``bash -c '...'`` or after ``--root``), not parsed: a false match only costs a refused
call, a missed one a person's decision.  Standard library only: this runs on every Bash call.
"""

from __future__ import annotations

import re

__all__ = ["gate_denial"]

# ``gate`` then, past any options (``--json``, ``--root X``), ``approve`` or ``reject``
_ANSWER = re.compile(
    r"(?<![\w.-])gate['\"]?\s+(?:(?:-\S+|['\"]?[\w./-]+['\"]?)\s+){0,4}?['\"]?(approve|reject)"
    r"(?![\w-])(?:['\"]?\s+(?:--?\S+\s+)*['\"]?([0-9][0-9.]*))?",
)


def gate_denial(command: str) -> str | None:
    """The deny reason for a Bash ``command`` that answers a gate, or None."""
    if "gate" not in command:  # the hot path: almost every call
        return None
    found = _ANSWER.search(command)
    if found is None:
        return None
    phase = found.group(2) or "PHASE"
    return (
        f"agents-state: a gate is a person's decision; no model or agent answers it (refused: "
        f"gate {found.group(1)}). Stop and tell the user to look at the phase's artifact and "
        f"run in their own shell: agents-state gate approve {phase} --by NAME (or: agents-state "
        f'gate reject {phase} --by NAME --note "WHY"); then end your turn.'
    )
