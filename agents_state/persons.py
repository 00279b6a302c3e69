"""The person's decisions: the one list of engine commands no model or agent may run (issue 32, 36).

Each is a person's answer: a gate (``gate approve`` / ``reject``), going on past a failed phase or
gate (``resume --skip``), more tokens (``budget --raise`` / ``--once``), completing a task nobody
started (``task done --force``), throwing the active workflow away (``dispatch --replace``).
Three places read this table: the first PreToolUse hook denies them for every conversation and
agent (``hooks.persongate``), the approvals' closed list leaves them out
(``hooks.engine_steps``), and the unattended-run advice gives them no allow rule
(``store.allowrules``).  Standard library only, no imports: the hook reads it on Bash calls.
"""

from __future__ import annotations

__all__ = ["DECISIONS", "Decision", "decision"]


class Decision:
    """``words``: the sub-command; ``option``: the option that makes it the person's (None: the
    whole sub-command is); ``person``: what the person runs; ``what``: what it decides."""

    __slots__ = ("option", "person", "what", "words")

    def __init__(self, words: tuple[str, ...], option: str | None, person: str, what: str):
        self.words, self.option, self.person, self.what = words, option, person, what


DECISIONS = (
    Decision(
        ("gate", "approve"),
        None,
        "agents-state gate approve PHASE --by NAME",
        "a gate is a person's decision",
    ),
    Decision(
        ("gate", "reject"),
        None,
        'agents-state gate reject PHASE --by NAME --note "WHY"',
        "a gate is a person's decision",
    ),
    Decision(
        ("resume",),
        "--skip",
        "agents-state resume --skip",
        "going on past a failed phase or gate is a person's decision",
    ),
    Decision(
        ("budget",),
        "--raise",
        "agents-state budget --raise TOKENS",
        "more tokens is a person's decision",
    ),
    Decision(
        ("budget",),
        "--once",
        "agents-state budget --once",
        "more tokens is a person's decision",
    ),
    Decision(
        ("task", "done"),
        "--force",
        "agents-state task done ID --force",
        "completing a task nobody started is a person's decision",
    ),
    Decision(
        ("dispatch",),
        "--replace",
        'agents-state dispatch --replace "TASK"',
        "throwing the active workflow away is a person's decision",
    ),
)
_GROUPS = frozenset(d.words[0] for d in DECISIONS if len(d.words) > 1)
# the options taking a value that Click accepts before a sub-command
_VALUED = frozenset({"--root", "--store", "--set"})


def decision(args: list[str]) -> Decision | None:
    """The person's decision that ``args`` (the words after ``agents-state``) make, or None.

    The sub-command is read past the options before it, as Click reads it; the option counts
    anywhere after it, also as ``--raise=N``.  A false match only costs a refused call."""
    words: list[str] = []
    i = 0
    while i < len(args) and len(words) < 2:
        word = args[i]
        i += 1
        if word.startswith("-") and word != "-":
            i += word in _VALUED
            continue
        words.append(word)
        if words[0] not in _GROUPS:
            break
    rest = args[i:]
    for d in DECISIONS:
        if tuple(words[: len(d.words)]) != d.words:
            continue
        if d.option is None or any(a == d.option or a.startswith(d.option + "=") for a in rest):
            return d
    return None
