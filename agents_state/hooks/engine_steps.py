"""The closed list of ``agents-state`` invocations the approvals hook may allow (issue 23).

Each entry is a sub-command that changes nothing but this project's workflow: it reads it, or
records phases, tasks, handoffs, chains, a compaction, a stop or a ``resume`` choice.  For each,
the options Click accepts and what each value is: a flag, a free text, a path, or an id.  A word
the table does not know (an option, an extra argument), and every command left out, gets no
answer from the hook: ``phase run`` (runs the project's commands), ``scaffold``, ``schema``,
``graph --write``, ``store copy``, ``doctor --repair``, ``dispatch --replace``, ``migrate``,
``demo``, ``completion``, ``watch``, ``hook``, ``gate`` (and ``gate list``), every person's
decision of ``agents_state.persons`` (``budget --raise`` / ``--once``, ``resume --skip``,
``task done --force``, ``dispatch --replace``: taken off the table below when it is built, and
``hooks.persongate`` even denies them), and ``--store`` or ``--set`` anywhere.

``parse`` reads the words the way Click does (options interspersed with arguments in a command,
before the sub-command in a group, ``--opt=value``, ``--`` ending the options) and returns what
the paths and roots are, for ``permission`` to resolve.  Standard library only.
"""

from __future__ import annotations

import re

from agents_state.persons import DECISIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    Row: TypeAlias = tuple[dict[str, str], tuple[str, ...], str | None]

__all__ = ["STEPS", "SUBAGENT_STEPS", "Parsed", "Step", "parse"]

FLAG, TEXT, PATH, ID = "flag", "text", "path", "id"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")  # a chain id ("code-1"): never a path
# accepted before or after any sub-command; ``--store`` (the workflow elsewhere) and ``--set`` (a
# configuration value, which can name the commands ``phase run`` runs: issue 27) are refused
_EVERYWHERE = {
    "--json": FLAG,
    "-h": FLAG,
    "--help": FLAG,
    "--root": "root",
    "--store": "refused",
    "--set": "refused",
}


class Step:
    """One row of the table: the options Click accepts (name -> kind), the kinds of the
    positional arguments, and the kind of any more of them (None: no more).  A slotted class,
    as ``persons.Decision``: a ``NamedTuple`` would import ``typing`` on the hook's path."""

    __slots__ = ("args", "more", "options")

    def __init__(self, options: dict[str, str], args: tuple[str, ...], more: str | None) -> None:
        self.options, self.args, self.more = options, args, more


# (the command's words) -> (its options, its positional arguments, what more of them are)
_ROWS: dict[tuple[str, ...], Row] = {
    ("next",): ({}, (), None),
    ("status",): (
        {"--verbose": FLAG, "-v": FLAG, "--brief": FLAG, "--offset": TEXT, "--limit": TEXT},
        (),
        None,
    ),
    ("context",): ({}, (), None),
    ("compact",): ({}, (), None),
    ("stop",): ({}, (), None),
    # not --skip: going on past a failed phase or gate is the user's call (issue 32)
    ("resume",): ({"--retry": FLAG, "--abort": FLAG, "--answer": TEXT}, (), None),
    ("dispatch",): ({"--task-file": PATH, "--dry-run": FLAG}, (TEXT,), None),
    ("phase", "start"): ({}, (TEXT,), None),
    ("phase", "complete"): (
        {"--artifact": PATH, "--plan-agents": TEXT, "--from-answers": FLAG},  # issue 34
        (TEXT,),
        None,
    ),
    ("phase", "fail"): ({"--error": TEXT}, (TEXT,), None),
    ("tasks", "load"): ({"--wave-size": TEXT}, (PATH,), None),
    ("task", "claim"): ({"--agent": TEXT}, (TEXT,), None),
    ("task", "start"): ({"--agent": TEXT}, (TEXT,), None),
    ("task", "done"): (
        {"--summary": TEXT, "--result": PATH, "--agent": TEXT, "--attempt": TEXT},
        (TEXT,),
        None,
    ),
    ("task", "fail"): ({"--error": TEXT, "--agent": TEXT, "--attempt": TEXT}, (TEXT,), None),
    ("handoff", "validate"): ({"--kind": TEXT}, (PATH,), None),
    ("handoff", "new"): (
        {
            "--role": TEXT,
            "--task": TEXT,
            "--id": TEXT,
            "--instructions": TEXT,
            "--file": PATH,
            "--constraint": TEXT,
            "--spec": PATH,
        },
        (),
        None,
    ),
    ("handoff", "record"): (
        {"--task": TEXT, "--phase": TEXT, "--agent": TEXT, "--kind": TEXT},
        (PATH,),
        None,
    ),
    ("handoff", "aggregate"): ({"--record": FLAG, "--phase": TEXT, "--kind": TEXT}, (), PATH),
    ("chain", "start"): (
        {
            "--feature-file": PATH,
            "--args-file": PATH,
            "--only": TEXT,
            "--analyze": FLAG,
            "--mode": TEXT,
            "--files": TEXT,
            "--tasks": TEXT,
            "--modules": TEXT,
            "--effort": TEXT,
            "--model": TEXT,
            "--file": PATH,
            "--constraint": TEXT,
            "--spec": PATH,
            "--task": TEXT,
            "--phase": TEXT,
        },
        (TEXT, TEXT),
        None,
    ),
    **{
        ("chain", sub): ({}, (ID,), None)
        for sub in ("next", "abort", "retry", "timeout", "request")
    },
    ("chain", "answer"): ({"--answer": TEXT, "--answer-file": PATH}, (ID,), None),
    ("chain", "record"): ({"--kind": TEXT}, (ID,), PATH),
    ("chain", "list"): ({}, (), None),
    ("chain", "defs"): ({}, (), None),
    ("config", "show"): ({}, (), None),
    ("config", "validate"): ({}, (PATH,), None),
    ("profile", "show"): ({}, (TEXT,), None),
    ("profile", "check"): ({"--path": PATH}, (TEXT, TEXT), None),
    ("score",): (
        {"--files": TEXT, "--tasks": TEXT, "--modules": TEXT, "--effort": TEXT},
        (TEXT,),
        None,
    ),
    ("graph",): ({"--pipeline": FLAG, "--wave": TEXT}, (), None),  # not --write
    ("doctor",): ({}, (), None),  # not --repair
    ("store", "show"): ({}, (), None),
    ("budget",): ({"--stage": TEXT}, (), None),  # not --raise / --once: the user's (issue 24)
    ("report",): ({"--html": FLAG}, (), None),  # printed, never written
}
STEPS: dict[tuple[str, ...], Step] = {words: Step(*row) for words, row in _ROWS.items()}
for _person in DECISIONS:  # the person's decisions: never on the list (issues 24, 32, 36)
    if _person.option is None:
        STEPS.pop(_person.words, None)
    elif _person.words in STEPS:
        STEPS[_person.words].options.pop(_person.option, None)
_GROUPS = frozenset(words[0] for words in STEPS if len(words) > 1)
# what a sub-agent of this plugin may record or read: its task, its handoff, where things stand
SUBAGENT_STEPS = frozenset({"task", "handoff", "status", "next", "context"})


class Parsed:
    """An invocation on the list: its command words, the paths it names and its ``--root``s."""

    __slots__ = ("paths", "roots", "words")

    def __init__(self, words: tuple[str, ...], paths: list[str], roots: list[str]) -> None:
        self.words, self.paths, self.roots = words, paths, roots


def _option(word: str, known: dict[str, str]) -> tuple[str, str | None, str] | None:
    """(name, attached value, kind) of an option word, or None when Click would not know it."""
    name, eq, value = word.partition("=")
    kind = known.get(name) or _EVERYWHERE.get(name)
    if kind is None or (eq and (kind == FLAG or not name.startswith("--"))):
        return None
    return name, (value if eq else None), kind


def _options_then_word(args: list[str], i: int, roots: list[str]) -> tuple[int, str] | None:
    """Group level: skip the options before the sub-command (Click stops at the first other
    word there); the index after the sub-command and the sub-command, or None."""
    while i < len(args):
        word = args[i]
        if not word.startswith("-") or word == "-":
            return i + 1, word
        found = _option(word, {})
        if found is None or found[2] == "refused":
            return None
        _name, value, kind = found
        if kind == "root":
            if value is None:
                i += 1
                if i >= len(args):
                    return None
                value = args[i]
            roots.append(value)
        i += 1
    return None


def parse(args: list[str]) -> Parsed | None:
    """The words after ``agents-state``, read as Click would; None unless on the list."""
    if args and all(w in ("-h", "--help", "--version") for w in args):
        return Parsed((), [], [])
    roots: list[str] = []
    found = _options_then_word(args, 0, roots)
    if found is None:
        return None
    i, first = found
    words: tuple[str, ...] = (first,)
    if first in _GROUPS:
        found = _options_then_word(args, i, roots)
        if found is None:
            return None
        i, second = found
        words = (first, second)
    spec = STEPS.get(words)
    if spec is None:
        return None
    return _leaf(args[i:], words, spec, roots)


def _leaf(args: list[str], words: tuple[str, ...], spec: Step, roots: list[str]) -> Parsed | None:
    known, positional, more = spec.options, spec.args, spec.more
    paths: list[str] = []
    values: list[str] = []
    i, options_end = 0, False
    while i < len(args):
        word = args[i]
        i += 1
        if options_end or not word.startswith("-") or word == "-":
            values.append(word)
            continue
        if word == "--":
            options_end = True
            continue
        found = _option(word, known)
        if found is None or found[2] == "refused":
            return None
        _name, value, kind = found
        if kind == FLAG:
            continue
        if value is None:
            if i >= len(args):
                return None
            value, i = args[i], i + 1
        if kind == "root":
            roots.append(value)
        elif kind == PATH:
            paths.append(value)
    if len(values) > len(positional) and more is None:
        return None
    for n, value in enumerate(values):
        what = positional[n] if n < len(positional) else more
        if what == PATH:
            paths.append(value)
        elif what == ID and not _ID.fullmatch(value):
            return None
    return Parsed(words, paths, roots)
