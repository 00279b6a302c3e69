"""Bash for a profile that keeps an agent off credentials: deny by default, allow a list.

A command line is split into simple commands (``shellwords``); each must start with a command
on ``ALLOWLIST`` (or a project's ``bashAllow`` entry), use none of its refused options, and every
argument, redirection and glob expansion is checked as a path (``PathGuard``) -- against the
working directory and every folder a ``cd`` or ``git -C`` moved to.  What cannot be judged from
the text (``$``, substitutions, ``sh -c``, ``eval``, interpreters with inline code, ``xargs``,
output redirection to files) is denied with the reason.  The tables it judges by are in
``bashlist``; docs/reliability.md lists them.
"""

from __future__ import annotations

import os
import re

from agents_state.globs import has_glob
from agents_state.hooks.bashlist import (
    ALLOWLIST,
    ANY,
    GIT_REF_WRITES,
    GIT_WRITE_COMMANDS,
    PYTHON_MODULES,
    REFUSED_OPTIONS,
    SAFE_ENV,
    WHY_NOT,
)
from agents_state.hooks.pathguard import PathGuard, Undecided
from agents_state.hooks.shellwords import SimpleCommand, Unjudgeable, Word, parse

__all__ = ["ALLOWLIST", "GIT_WRITE_COMMANDS", "BashVerdict", "check_bash"]

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


class BashVerdict:
    """Why a command is refused: ``credential`` is set when it would reach a credential file."""

    def __init__(self, why: str, credential: bool = False) -> None:
        self.why, self.credential = why, credential


def check_bash(
    command: str,
    guard: PathGuard,
    extra: tuple[tuple[str, ...], ...] = (),
    git_write: bool = False,
) -> BashVerdict | None:
    """``None`` when ``command`` may run; else the verdict.  ``git_write``: the committer
    profile's git and gh writes (``hooks.gitwrite``) are allowed too."""
    try:
        commands = parse(command)
    except Unjudgeable as e:
        return BashVerdict(str(e))
    if not commands:
        return BashVerdict("the command is empty")
    cwds = [guard.cwd]
    for simple in commands:
        verdict = _check_simple(simple, guard, cwds, extra, git_write)
        if verdict is not None:
            return verdict
    return None


def _check_simple(
    simple: SimpleCommand,
    guard: PathGuard,
    cwds: list[str],
    extra: tuple[tuple[str, ...], ...],
    git_write: bool,
) -> BashVerdict | None:
    words = list(simple.words)
    while words and _ASSIGN.match(words[0].text) and not words[0].quoted:
        name = words[0].text.split("=", 1)[0]
        if name not in SAFE_ENV:
            return BashVerdict(f"setting {name} for a command cannot be judged")
        words.pop(0)
    for redirect in simple.redirects:
        target = redirect.target.text
        if redirect.op in (">&", "<&") and (target.isdigit() or target == "-"):
            continue
        if redirect.op[0] != "<" and target != "/dev/null":
            return BashVerdict(
                f"'{redirect.op} {target}' writes a file, and this profile does "
                "not write files (only /dev/null)"
            )
        found = _check_word(redirect.target, guard, cwds)
        if found:
            return BashVerdict(found, credential=not isinstance(found, Undecided))
    if not words:
        return None
    why = _command_allowed(words, guard, extra, git_write)
    if why:
        return BashVerdict(why)
    if words[0].text == "cd":
        return _cd(words, guard, cwds)
    scoped = list(cwds)
    git = words[0].text == "git"
    text: set[int] = set()
    if git_write:
        from agents_state.hooks import gitwrite  # only the committer profile loads it

        text = gitwrite.text_values([w.text for w in words])
    for i, word in enumerate(words[1:], 1):
        if git and i >= 2 and words[i - 1].text == "-C":
            scoped.append(guard.resolve(word.text))
        if i in text:
            continue  # a commit message or pull request text, not a path
        found = _check_word(_pathspec(word) if git else word, guard, scoped)
        if found:
            return BashVerdict(found, credential=not isinstance(found, Undecided))
    if git and git_write:
        globbed = {w.text for w in words if w.globbed}  # expanded as patterns already
        from agents_state.hooks import gitwrite

        found = gitwrite.git_scope(_git_rest([w.text for w in words]), globbed, guard, scoped)
        if found:
            return BashVerdict(found, credential=not isinstance(found, Undecided))
    return None


def _git_rest(argv: list[str]) -> list[str]:
    """git's sub-command and its arguments, after the global ``--no-pager`` and ``-C DIR``."""
    rest = argv[1:]
    while rest and rest[0] in ("--no-pager", "-C"):
        rest = rest[2:] if rest[0] == "-C" else rest[1:]
    return rest


def _command_allowed(
    words: list[Word], guard: PathGuard, extra: tuple[tuple[str, ...], ...], git_write: bool
) -> str | None:
    argv = [w.text for w in words]
    if any(tuple(argv[: len(e)]) == e for e in extra if e):
        return None
    name = argv[0]
    if words[0].globbed:
        return f"a command name with glob characters ({name}) cannot be judged"
    if "/" in name:
        # a project's own copy of an allowed tool (node_modules/.bin/eslint, .venv/bin/pytest,
        # ./gradlew), also under its real name: a link named pytest that leads to sh is not one
        resolved = guard.resolve(name)
        inside = resolved.startswith(guard.root.rstrip("/") + "/")
        base = os.path.basename(name)
        real = os.path.basename(os.path.realpath(guard.joined(name)))
        real = re.sub(r"\.(?:c|m)?js$|\.py$|\.sh$", "", real)
        if (
            not inside
            or ALLOWLIST.get(base, False) is not ANY
            or ALLOWLIST.get(real, False) is not ANY
        ):
            return f"'{name}' is not on the Bash allowlist of this profile"
        name = base
    name = re.sub(r"^(python3?)\.\d+$", r"\1", name)
    if git_write and name == "gh":
        from agents_state.hooks import gitwrite

        return gitwrite.check_gh(argv)
    if name == "agents-state":  # a sub-agent's engine steps (issue 23), as the approvals read them
        from agents_state.hooks.engine_steps import SUBAGENT_STEPS, parse

        expanded = next((w.text for w in words if w.expands), None)
        if expanded is not None:  # it runs outside the room (issue 32): every word as written
            return (
                f"'{expanded}' is a word bash would expand (a glob, a brace list or ~), and "
                "agents-state runs outside the sandbox; write the path out in full"
            )
        parsed = parse(argv[1:])
        if parsed is not None and set(parsed.words[:1]) & SUBAGENT_STEPS:
            return None
        return (
            f"'{' '.join(argv[:3])}' is not on the Bash allowlist of this profile (allowed: "
            f"agents-state {', '.join(sorted(SUBAGENT_STEPS))})"
        )
    if name not in ALLOWLIST:
        why = WHY_NOT.get(name)
        return f"'{name}' is not on the Bash allowlist of this profile" + (
            f" ({why})" if why else ""
        )
    refused = REFUSED_OPTIONS.get(name, frozenset())
    text: set[int] = set()
    if git_write:
        from agents_state.hooks import gitwrite

        text = gitwrite.text_values(argv)  # a commit message is not an option
    for i, arg in enumerate(argv[1:], 1):
        if i not in text and _refused(arg, refused):
            return (
                f"'{name} {arg}' is refused (it runs other programs, writes files or reads "
                "whole folders)"
            )
    subs = ALLOWLIST[name]
    if subs is ANY:
        return None
    rest = _git_rest(argv) if name == "git" else argv[1:]
    if git_write and name == "git" and rest and rest[0] in GIT_WRITE_COMMANDS:
        from agents_state.hooks import gitwrite

        return gitwrite.check_git_write(rest[0], rest[1:])
    if not rest or rest[0] not in subs:
        shown = " ".join(argv[:2])
        return (
            f"'{shown}' is not on the Bash allowlist of this profile (allowed: {name} "
            f"{', '.join(sorted(subs))})"
        )
    if name == "git" and rest[0] in ("branch", "tag"):
        args = rest[1:]
        listing = any(a in ("-l", "--list") for a in args)
        creating = git_write and rest[0] == "branch"  # the committer may create a branch
        if any(
            a.split("=", 1)[0] in GIT_REF_WRITES
            or (rest[0] == "tag" and a == "-a")
            or (not a.startswith("-") and not listing and not creating)
            for a in args
        ):
            return (
                f"'{' '.join(argv)}' would change branches or tags; only listing them is "
                "on the Bash allowlist of this profile"
            )
    if (
        name in ("npm", "pnpm", "yarn", "bun")
        and rest[0] in ("run", "run-script")
        and (len(rest) < 2 or rest[1] == "env")
    ):
        return (
            f"'{' '.join(argv[:3])}' prints the environment (credentials live there too) "
            "or lists scripts; name the script to run"
        )
    if name.startswith("python") and (len(rest) < 2 or rest[1] not in PYTHON_MODULES):
        return (
            f"'{' '.join(argv[:3])}' is not on the Bash allowlist of this profile "
            f"(python -m {', '.join(sorted(PYTHON_MODULES))})"
        )
    return None


def _refused(arg: str, refused: frozenset[str]) -> bool:
    if not refused:
        return False
    head = arg.split("=", 1)[0]
    if head in refused:  # options, and variables such as make's SHELL=
        return True
    if not arg.startswith("-"):
        return False
    if not arg.startswith("--") and len(arg) > 2:  # a cluster of short options: -rn
        return any(f"-{letter}" in refused for letter in arg[1:])
    # GNU getopt and git take any unambiguous prefix of a long option: --rec, --dir=, --ou=
    return len(head) > 2 and any(r.startswith(head) for r in refused if r.startswith("--"))


def _cd(words: list[Word], guard: PathGuard, cwds: list[str]) -> BashVerdict | None:
    args = [w for w in words[1:] if w.text != "--"]
    if len(args) != 1 or args[0].text in ("-", "") or args[0].globbed:
        return BashVerdict("'cd' without exactly one plain folder cannot be judged")
    found = _check_word(args[0], guard, cwds)
    if found:
        return BashVerdict(found, credential=not isinstance(found, Undecided))
    cwds.append(guard.resolve(args[0].text))
    guard.cwd = cwds[-1]
    return None


def _pathspec(word: Word) -> Word:
    """git reads quoted globs too (pathspecs), with ``*`` crossing folders, and magic
    prefixes such as ``:(glob)``: judge the word as the pattern git will match."""
    text = re.sub(r"^:(\([^)]*\)|[/!^]+)", "", word.text)
    if not has_glob(text):
        return Word(text, word.pattern, word.globbed, word.quoted) if text != word.text else word
    pattern = re.sub(r"\*+", "**", text)
    return Word(text, pattern, True, word.quoted)


def _check_word(word: Word, guard: PathGuard, cwds: list[str]) -> str | None:
    """Every path the word could name, from every working directory it could be read in."""
    parts: list[str] = []
    if word.text.startswith("-") and not word.text.startswith("--") and len(word.text) > 2:
        # a value attached to a short option (date -f.npmrc, git commit -F.pgpass), after
        # each letter of a cluster
        parts.extend(word.text[i:] for i in range(2, len(word.text)))
    if "=" in word.text:
        parts.append(word.text.split("=", 1)[1])
    if ":" in word.text:
        parts.extend(word.text.split(":"))
    texts = dict.fromkeys([*parts, word.text])  # the parts first: they name the file
    saved = guard.cwd
    try:
        for cwd in dict.fromkeys([*cwds, guard.root]):
            guard.cwd = cwd
            for text in texts:
                if not text:
                    continue
                if word.globbed and text == word.text:
                    found = guard.expand(word.pattern)
                else:
                    found = guard.check_path(text)
                if found:
                    return found
    finally:
        guard.cwd = saved
    return None
