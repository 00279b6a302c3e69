"""Split a shell command line the way POSIX sh would, or say why it cannot be judged.

``shlex`` gives the words but forgets which characters were quoted, and that decides whether
``*`` expands; so this is a small tokenizer of its own.  It accepts plain words, single and
double quotes, backslashes, ``~/`` at a word's start, the glob characters, and the operators
``; & && | || |& < > >> >| &> &>> N>&M``; anything that makes the words depend on the shell's
state (``$``, backquotes, ``$(...)``, ``<(...)``, here-documents, ``{a..z}``, ``~user``,
subshells) raises ``Unjudgeable`` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Redirect", "SimpleCommand", "Unjudgeable", "Word", "parse"]

_OPERATORS = (
    "&>>",
    "&&",
    "||",
    "|&",
    ">>",
    ">|",
    "&>",
    ">&",
    "<&",
    "<<",
    "<>",
    ";",
    "&",
    "|",
    "<",
    ">",
    "(",
    ")",
)
_SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&", "\n"})
_GLOB = "*?["


class Unjudgeable(Exception):
    """The command line uses a form whose effect depends on more than its text."""


@dataclass
class Word:
    text: str = ""  # after quote removal
    pattern: str = ""  # the same with quoted glob characters escaped, for expansion
    globbed: bool = False  # an unquoted * ? [ or {a,b}: the shell expands it
    quoted: bool = False


@dataclass
class Redirect:
    op: str
    target: Word


@dataclass
class SimpleCommand:
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


def parse(line: str) -> list[SimpleCommand]:
    """The simple commands of ``line`` (split at ``;``, ``&&``, ``||``, ``|``, newlines)."""
    commands: list[SimpleCommand] = [SimpleCommand()]
    pending: str | None = None  # a redirection operator waiting for its target
    for token in _tokens(line):
        current = commands[-1]
        if isinstance(token, Word):
            if pending is not None:
                current.redirects.append(Redirect(pending, token))
                pending = None
            else:
                current.words.append(token)
            continue
        if pending is not None:
            raise Unjudgeable(f"'{pending}' is not followed by a file")
        if token in _SEPARATORS:
            if not current.words and not current.redirects:
                if token != "\n":
                    raise Unjudgeable(f"'{token}' has no command before it")
                continue
            commands.append(SimpleCommand())
        elif token in ("(", ")"):
            raise Unjudgeable("subshells '( ... )' cannot be judged")
        elif token in ("<<", "<>"):
            raise Unjudgeable(f"'{token}' (here-documents, read-write opens) cannot be judged")
        else:
            pending = token
    if pending is not None:
        raise Unjudgeable(f"'{pending}' is not followed by a file")
    return [c for c in commands if c.words or c.redirects]


def _tokens(line: str) -> list[Word | str]:
    out: list[Word | str] = []
    word: Word | None = None
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in "$`":
            raise Unjudgeable(f"'{c}' expansions and substitutions cannot be judged")
        if c != "\t" and c != "\n" and (ord(c) < 32 or ord(c) == 127):
            raise Unjudgeable(f"control character {c!r} in the command")
        if c in " \t\n":
            if word is not None:
                out.append(word)
                word = None
            if c == "\n":
                out.append("\n")
            i += 1
            continue
        if c == "#" and word is None:
            while i < n and line[i] != "\n":
                i += 1
            continue
        op = next((o for o in _OPERATORS if line.startswith(o, i)), None)
        if op is not None:
            if op[0] in "<>" and word is not None and word.text.isdigit() and not word.quoted:
                word = None  # a file descriptor number: 2>/dev/null
            if word is not None:
                out.append(word)
                word = None
            if line.startswith("<<<", i):
                raise Unjudgeable("here-strings '<<<' cannot be judged")
            if op in ("<", ">") and line.startswith("(", i + 1):
                raise Unjudgeable("process substitution cannot be judged")
            out.append(op)
            i += len(op)
            continue
        if word is None:
            word = Word()
            if c == "~":
                j = i + 1
                if j < n and line[j] not in "/ \t\n;&|<>":
                    raise Unjudgeable("'~user' home directories cannot be judged")
        if c == "'":
            end = line.find("'", i + 1)
            if end == -1:
                raise Unjudgeable("an unclosed single quote")
            _literal(word, line[i + 1 : end])
            word.quoted = True
            i = end + 1
        elif c == '"':
            i = _double_quoted(line, i + 1, word)
        elif c == "\\":
            if i + 1 < n and line[i + 1] == "\n":
                i += 2
                continue
            _literal(word, line[i + 1 : i + 2])
            word.quoted = True
            i += 2
        else:
            _plain(word, c, line, i)
            i += 1
    if word is not None:
        out.append(word)
    return out


def _literal(word: Word, text: str) -> None:
    word.text += text
    word.pattern += "".join("\\" + ch if ch in _GLOB + "{}\\" else ch for ch in text)


def _plain(word: Word, c: str, line: str, i: int) -> None:
    if c == "{":
        close = line.find("}", i)
        inner = line[i + 1 : close] if close != -1 else ""
        if ".." in inner:
            raise Unjudgeable("brace sequences '{a..z}' cannot be judged")
        if "," in inner:
            word.globbed = True
    if c in _GLOB:
        word.globbed = True
    word.text += c
    word.pattern += c


def _double_quoted(line: str, i: int, word: Word) -> int:
    n = len(line)
    word.quoted = True
    while i < n:
        c = line[i]
        if c == '"':
            return i + 1
        if c in "$`":
            raise Unjudgeable(f"'{c}' expansions and substitutions cannot be judged")
        if c == "\\" and i + 1 < n and line[i + 1] in '"\\\n':
            if line[i + 1] != "\n":
                _literal(word, line[i + 1])
            i += 2
            continue
        _literal(word, c)
        i += 1
    raise Unjudgeable("an unclosed double quote")
