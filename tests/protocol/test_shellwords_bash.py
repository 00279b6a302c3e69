"""Issue 23, item 6: the shell splitter (``hooks/shellwords.py``) against real bash.

Generated command lines are run by bash under a harness that never runs a program: every
builtin but ``printf`` is disabled, PATH names no folder, and ``command_not_found_handle``
writes each simple command's argv (NUL-separated) to a file instead.  Globbing and brace
expansion are off (``set -f +B``) and ``HOME`` is ``~``, so the words bash passes are its
splitting and quote removal alone.  Output redirections create files in an empty folder,
which are compared too.  Each line runs twice, every command answering 0 and then 1, so that
both sides of ``&&`` and ``||`` run at least once.

For a line the splitter accepts, what bash ran must be exactly its simple commands (argv after
the leading assignments) and its output files; a line bash cannot parse must be refused; and
when no word is marked as a pattern (``globbed``), bash with globbing and brace expansion on
must pass the same words.  A
refusal (``Unjudgeable``) is always allowed: the splitter may be conservative, never wrong.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents_state.hooks.shellwords import SimpleCommand, Unjudgeable, parse
from protocol.bashrun import RUNTIME, run_bash

_OUTPUT = (">", ">>", ">|", "&>", "&>>", ">&")
# names a glob made of the generated pieces could match
_LITTER = {"a", "b", "ab", "ba", ".e", ".env", "nv", "e/nv", "0", "1", "x=1", "a,b", "a b", "-"}
_FD = re.compile(r"[0-9]*-?")  # '>&2', '>&-' (close), '2>&1-' (move): no file

# No piece starts with '/', so no word (braces included) is an absolute path: the runs write
# only under their folder (bubblewrap holds them to it as well).
PIECES = [
    *"ab .env*?[]{},'\"\\;&|<>()$`~#=:+-!\n\t012",
    ".e/nv",
    "a ",
    "cat ",
    ".env",
    "../",
    "2>&1",
    ">&2",
    "x=1 ",
    "if ",
    "then ",
    "time ",
    "{ ",
    " }",
    "[[ ",
    "\\\n",
    "$'a'",
    "~/",
    "a=~",
]


def _expected(commands: list[SimpleCommand]) -> tuple[Counter[tuple[str, ...]], set[str]]:
    argvs: Counter[tuple[str, ...]] = Counter()
    outputs: set[str] = set()
    for simple in commands:
        words = list(simple.words)
        while words and words[0].assignment:
            words.pop(0)
        if words and "/" not in words[0].text:  # bash runs a path without the handler
            argvs[tuple(w.text for w in words)] += 1
        for redirect in simple.redirects:
            target = redirect.target.text
            if redirect.op in _OUTPUT and not (redirect.op == ">&" and _FD.fullmatch(target)):
                outputs.add(os.path.normpath(target))
    return argvs, outputs


def _inputs(commands: list[SimpleCommand]) -> set[str]:
    return {
        os.path.normpath(r.target.text)
        for c in commands
        for r in c.redirects
        if r.op == "<" and r.target.text
    }


def _differs(line: str, tmp: Path, heredocs: bool = False) -> str | None:
    """Why bash and the splitter disagree on ``line``; ``None`` when they agree, the splitter
    refuses, or a run-time error (a missing folder, an ambiguous redirect), not the parse, kept
    bash from running something."""
    try:
        commands = parse(line, heredocs)
    except Unjudgeable:
        return None
    argvs, outputs = _expected(commands)
    inputs = _inputs(commands)
    runs = [run_bash(line, status, tmp / f"run{status}", inputs) for status in (0, 1)]
    for run in runs:
        if "syntax error" in run.stderr:
            return f"bash cannot parse it ({run.stderr.strip()!r}), the splitter accepted it"
        if any(why in run.stderr for why in RUNTIME):
            return None
    for run in runs:
        if run.argvs - argvs:
            return f"bash ran {dict(run.argvs - argvs)}, the splitter saw {dict(argvs)}"
    ran = runs[0].argvs | runs[1].argvs
    if ran != argvs:
        return f"bash ran {dict(ran)}, the splitter saw {dict(argvs)}"
    files = runs[0].files | runs[1].files
    if files != outputs - inputs:  # a file made for '<' before the run is no new file
        return f"bash wrote {sorted(files)}, the splitter saw {sorted(outputs - inputs)}"
    if not any(w.globbed for c in commands for w in [*c.words, *(r.target for r in c.redirects)]):
        # nothing marked for expansion: with globbing and braces on, among files that the
        # line's patterns could match, bash must pass the very same words
        present = inputs | _LITTER
        for status, plain in zip((0, 1), runs, strict=True):
            grown = run_bash(line, status, tmp / f"glob{status}", present, expand=True)
            if any(why in grown.stderr for why in RUNTIME):
                return None
            if grown.argvs != plain.argvs:
                return f"bash expanded to {dict(grown.argvs)}; no word was marked as a pattern"
    return None


@pytest.mark.parametrize(
    "line",
    [
        'cat a \'b c\' "d\\"e" f\\ g',
        "a;b&&c||d|e|&f&g",
        "a # b c\nd",
        "a#b c",
        "a \\\n b",
        "x=1 y=2 a b=3",
        "a 2>&1 >out 2>>err <in",
        "a &>both; b >|clob",
        "a ~ ~/x =~ b=~/c",
    ],
)
def test_examples_agree_with_bash(line: str, tmp_path: Path) -> None:
    assert parse(line), line  # each example is accepted, so it is really compared
    assert _differs(line, tmp_path) is None


def test_the_splitter_against_bash(tmp_path: Path) -> None:
    """Property: a line the splitter accepts is split as bash splits it."""
    accepted: list[str] = []
    counter = iter(range(10**6))

    @settings(
        max_examples=int(os.environ.get("SHELLWORDS_EXAMPLES", "200")),
        deadline=None,
        derandomize="SHELLWORDS_EXAMPLES" not in os.environ,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
    def check(line: str) -> None:
        why = _differs(line, tmp_path / str(next(counter)))
        assert why is None, f"{line!r}: {why}"
        try:
            parse(line)
        except Unjudgeable:
            return
        accepted.append(line)

    check()
    assert len(accepted) >= 40, accepted  # enough lines were really compared


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("if a; then cat .env; fi", "the shell keyword 'if' cannot be judged"),
        ("{ cat .env; }", "the shell keyword '{' cannot be judged"),
        ("! cat .env", "the shell keyword '!' cannot be judged"),
        ("x=1 time cat .env", "the shell keyword 'time' cannot be judged"),
        ("a[ b; cat .env; ]", "an array element 'name[...]' leading a command cannot be judged"),
        (">f a[x", "an array element 'name[...]' leading a command cannot be judged"),
        ("cat .env |", "'|' is not followed by a command"),
        ("a &&\n", "'&&' is not followed by a command"),
        ("a >&x\\'", "a quoted file name after '>&' cannot be judged"),
        ("a \\", "a backslash at the end of the command cannot be judged"),
        ("cat a=~0", "'~user' home directories cannot be judged"),  # the folder stack's top
        ("cat p=x:~+/.env", "'~user' home directories cannot be judged"),  # $PWD
    ],
)
def test_what_bash_reads_otherwise_is_refused(line: str, why: str, tmp_path: Path) -> None:
    """Lines the splitter once split differently from bash (found by the property above)."""
    with pytest.raises(Unjudgeable) as refused:
        parse(line)
    assert str(refused.value) == why


@pytest.mark.parametrize(
    "line",
    [
        "agents-state dispatch --task-file - <<'EOF'\nAdd $(x) and `y` \\z\nEOF",
        "a <<'E'\nbody\nE\nb c",
        "a <<E\nplain body\nE\nb",
        'a <<-"E"\n\tbody\n\tE\nb',
        "a <<A <<'B' && c\na\nA\n$b\nB\nd",
        "echo \"<<'X'\"\nb c\nX",
        "a <<'E' | b\nbody",
        "a <<E\\x\nE\\x\nEx\nb",
    ],
)
def test_here_documents_agree_with_bash(line: str, tmp_path: Path) -> None:
    """Issues 32, 36: with ``heredocs`` a body is the command's input, skipped as bash skips it
    (the plugin's own commands pass a task's text that way)."""
    assert parse(line, heredocs=True), line
    assert _differs(line, tmp_path, heredocs=True) is None


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("a <<E\n$(b)\nE", "an unquoted here-document's body with $, ` or \\ cannot be judged"),
        ("a <<E\n`b`\nE", "an unquoted here-document's body with $, ` or \\ cannot be judged"),
        ("a <<$E\nx\n$E", "a here-document's delimiter cannot be judged"),
        ("a <<'E\nx", "an unclosed quote in a here-document's delimiter"),
    ],
)
def test_here_documents_that_bash_would_expand_are_refused(line: str, why: str) -> None:
    with pytest.raises(Unjudgeable) as refused:
        parse(line, heredocs=True)
    assert str(refused.value) == why
    with pytest.raises(Unjudgeable):
        parse("a <<'E'\nx\nE")  # without ``heredocs``, as before: refused


def test_a_line_continuation_is_no_word() -> None:
    (simple,) = parse("cat \\\n .env")
    assert [w.text for w in simple.words] == ["cat", ".env"]  # was ["cat", "", ".env"]
    assert [w.text for w in parse("c a[x y]")[0].words] == ["c", "a[x", "y]"]  # an argument


def test_no_piece_makes_an_absolute_path() -> None:
    assert not [p for p in PIECES if p.startswith("/")]
