"""PreToolUse: a person's decision is never a tool call (issues 32, 36).

A gate's answer, ``resume --skip``, ``budget --raise`` / ``--once``, ``task done --force`` and
``dispatch --replace`` (the one list: ``agents_state.persons``) are a person's.  The plugin's
commands and skills grant ``Bash(agents-state *)`` while they run, and that wildcard covers them;
so the first PreToolUse hook (``pre_tool_use``) denies any Bash call that makes one, for the main
conversation and every agent alike (Claude Code lets a hook's deny beat any allow), with a
reason naming the command the person runs in their own shell.

The words are judged as bash reads them, not as written: the line is split into simple commands
by the project's one tokenizer (``shellwords``), so ``g\\ate``, ``"ga"te`` or ``ga''te`` are
``gate``; the words after a shell (``bash -c '...'``, ``sh -o x -c``, ``su -c``, ``ssh``) and an
``eval``'s words are judged as lines of their own. The engine is any word named ``agents-state``
(the command, its launcher, any path to it) or ``python -m agents_state``. Fail closed: a line
that names the engine but cannot be judged (``$``, backquotes, subshells, an unquoted
here-document's body with ``$``...) and
an engine command with a word bash would expand (a glob, a brace list, a tilde) are denied,
saying why. The hot path: a line whose text, quotes and backslashes removed, does not name the
engine is not tokenized at all.
Standard library only: this runs on every Bash call.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.hooks.shellwords import Word
    from agents_state.persons import Decision

__all__ = ["denial", "gate_denial"]

_HIDING = str.maketrans("", "", "'\"\\")
_SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "busybox", "su", "ssh"})
_MODULES = frozenset({"agents_state", "agents_state.__main__"})
_DEPTH = 4  # bash -c "sh -c '...'": deeper than any real call


def denial(command: str) -> str | None:
    """The deny reason for a Bash ``command`` that makes a person's decision, or None."""
    if not _named(command):  # the hot path: almost every call
        return None
    return _judge(command, _DEPTH)


def _named(line: str) -> bool:
    """Whether ``line``, its quotes and backslashes removed, names the engine: ``agents-state``
    (the command, its launcher, a path to it) or ``-m agents_state``.  Cheap, and it cannot miss
    a name spelled by quoting: bash's words are the text with those characters removed."""
    text = line.translate(_HIDING)
    if "agents-state" in text:
        return True
    at = text.find("agents_state")
    while at != -1:
        if text[:at].rstrip().endswith("-m"):
            return True
        at = text.find("agents_state", at + 1)
    return False


gate_denial = denial  # issue 36's name


def _judge(line: str, depth: int) -> str | None:
    from agents_state.hooks.shellwords import Unjudgeable, parse

    if depth == 0:
        return _unjudgeable("shells inside shells, too deep")
    try:
        commands = parse(line, heredocs=True)  # a body is input, not words
    except Unjudgeable as e:
        return _unjudgeable(str(e))
    for simple in commands:
        found = _simple(simple.words, depth)
        if found is not None:
            return found
    return None


def _simple(words: list[Word], depth: int) -> str | None:
    texts = [w.text for w in words]
    for i, text in enumerate(texts):
        if text.rsplit("/", 1)[-1] in _SHELLS:  # any word it may run as a line: -c's, ssh's
            for inner in texts[i + 1 :]:
                found = _judge(inner, depth - 1) if _named(inner) else None
                if found is not None:
                    return found
        if text == "eval" and _named(" ".join(texts[i + 1 :])):
            found = _judge(" ".join(texts[i + 1 :]), depth - 1)
            if found is not None:
                return found
        start = _engine_args(texts, i)
        if start is None:
            continue
        from agents_state.persons import decision

        found_decision = decision(texts[start:])
        if found_decision is not None:
            return _refusal(found_decision, texts[start:])
        expanded = next((w.text for w in words[start:] if w.expands), None)
        if expanded is not None:  # fail closed: the engine would get other words than these
            return (
                f"agents-state: '{expanded}' is a word bash would expand (a glob, a brace list "
                f"or ~): what agents-state would get cannot be judged, and it could be a "
                f"person's decision; denied. Write the words out in full."
            )
        if i > 0 and texts[i - 1].rsplit("/", 1)[-1] == "xargs":
            return _unjudgeable("xargs adds words to the agents-state command the hook cannot see")
    return None


def _engine_args(texts: list[str], i: int) -> int | None:
    """Where the engine's arguments start when ``texts[i]`` starts the engine, else None."""
    text = texts[i]
    if text.rsplit("/", 1)[-1] == "agents-state":
        return i + 1
    if text == "-m" and i + 1 < len(texts) and texts[i + 1] in _MODULES:
        return i + 2
    if text.startswith("-m") and text[2:] in _MODULES:
        return i + 1
    return None


def _refusal(found: Decision, args: list[str]) -> str:
    what, person = found.what, found.person
    refused = " ".join((*found.words, found.option or ""))
    if person.startswith("agents-state gate "):  # issue 36's text: the phase, both answers
        verb = "approve" if "approve" in args else "reject"
        phase = next((a for a in args if a[:1].isdigit()), "PHASE")
        return (
            f"agents-state: a gate is a person's decision; no model or agent answers it "
            f"(refused: gate {verb}). Stop and tell the user to look at the phase's artifact "
            f"and run in their own shell: agents-state gate approve {phase} --by NAME (or: "
            f'agents-state gate reject {phase} --by NAME --note "WHY"); then end your turn.'
        )
    return (
        f"agents-state: {what}; no model or agent makes it (refused: {refused}). Stop and tell "
        f"the user what you need and why, and that they run in their own shell: {person}; "
        f"then end your turn."
    )


def _unjudgeable(why: str) -> str:
    return (
        f"agents-state: this command line runs agents-state in a form the plugin cannot judge "
        f"({why}); denied, since it could make a person's decision. Run the agents-state "
        f"command on its own, its words plain (no $, backquotes, globs, ~ or subshells)."
    )
