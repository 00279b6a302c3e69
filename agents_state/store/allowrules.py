"""The narrowest ``permissions.allow`` rules that let a refused call run unattended (issue 33).

As docs/plugin.md ("Unattended runs") states them: a write in a task's worktree
``Edit(.agents/worktrees/**)`` (Claude Code checks Write against ``Edit`` rules, path rules
relative to the folder it runs in, ``//`` for an absolute one); a contained call (the
bubblewrap rewrite) the sandbox's prefix rule; the committer's hardened git its prefix per
sub-command; any other command exactly, one rule per simple command of a compound one (never a
``cd *`` wildcard).  A person's decision (``agents_state.persons``: a gate's answer, ``resume
--skip``, ``budget --raise`` / ``--once``, ``task done --force``, ``dispatch --replace``; and the
TEST gate's results file) gets no rule: ``[]``.  Standard library only.
"""

from __future__ import annotations

import os
from typing import Any

from agents_state.persons import decision

__all__ = ["PERSON", "rules_for"]

PERSON = "the person's decision: they run it themselves, no rule"
_EDITS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
_WORKTREES = ".agents/worktrees/"
_RESULTS = ".agents/phases/3.1-test-results.json"
_SANDBOX = " --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp"
_HARDENED = "git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.untrackedCache=false"


def rules_for(tool: str, tool_input: dict[str, Any], root: str | None = None) -> list[str]:
    """The rules that let this call run unattended; ``[]`` for a person's decision."""
    if tool in _EDITS:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        return _edit_rules(path, root) if isinstance(path, str) and path.strip() else ["Edit"]
    if tool == "Bash":
        command = str(tool_input.get("command") or "").strip()
        return _bash_rules(command) if command else ["Bash"]
    return [tool]


def _edit_rules(path: str, root: str | None) -> list[str]:
    full = os.path.normpath(os.path.join(root or os.sep, path))
    rel = os.path.relpath(full, root) if root else full
    if not root or rel == ".." or rel.startswith("../"):
        return [f"Edit(/{full})"]  # "//" + the absolute path without its leading "/"
    if rel.startswith(_WORKTREES):
        return [f"Edit({_WORKTREES}**)"]
    return [] if rel == _RESULTS else [f"Edit({rel})"]


def _bash_rules(command: str) -> list[str]:
    first = command.split()[0]
    if first.endswith("/bwrap") and command.startswith(first + _SANDBOX):
        return [f"Bash({first}{_SANDBOX}:*)"]
    rules: list[str] = []
    for part in _simple_commands(command):
        words = part.split()
        if words[0].endswith("agents-state") and decision(words[1:]) is not None:
            return []  # the person's: they run it themselves
        if part.startswith(_HARDENED + " ") and len(words) > 7:
            rule = f"Bash({_HARDENED} {words[7]}:*)"
        else:
            rule = f"Bash({part})"
        if rule not in rules:
            rules.append(rule)
    return rules


def _simple_commands(command: str) -> list[str]:
    """``command`` cut at the unquoted ``&&``, ``||``, ``;``, ``|`` and newlines, each part as
    written (Claude Code checks a compound command part by part)."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    i = 0
    while i < len(command):
        c = command[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "\\" and i + 1 < len(command):
            current.append(command[i : i + 2])
            i += 2
            continue
        elif c in ";|&\n" and (c != "&" or command[i : i + 2] == "&&"):
            parts.append("".join(current))
            current = []
            i += 2 if command[i : i + 2] in ("&&", "||") else 1
            continue
        current.append(c)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]
