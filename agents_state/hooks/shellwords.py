"""Split a shell command line the way POSIX sh would, or say why it cannot be judged.

``shlex`` gives the words but forgets which characters were quoted, and that decides whether
``*`` expands; so this is a small tokenizer of its own.  It accepts plain words, single and
double quotes, backslashes, ``~/`` at a word's start, the glob characters, and the operators
``; & && | || |& < > >> >| &> &>> N>&M``; anything that makes the words depend on the shell's
state (``$``, backquotes, ``$(...)``, ``<(...)``, here-documents, ``{a..z}``, ``~user``,
subshells, the shell's keywords where they start a command) raises ``Unjudgeable`` with the
reason.  With ``heredocs=True`` a here-document is read as bash reads it: its body is the
command's input, not words, and is skipped; an unquoted delimiter's body must hold no ``$``,
backquote or backslash (bash would expand them there), else it cannot be judged.
``tests/protocol/test_shellwords_bash.py`` holds it to what bash itself does.
"""

from __future__ import annotations

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
_JOINS = frozenset({"&&", "||", "|", "|&"})  # bash reads on after them, past newlines
_GLOB = "*?["
_KEYWORDS = frozenset(
    {"!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi"}
    | {"for", "function", "if", "in", "select", "then", "time", "until", "while"}
)
_NAME = frozenset("_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


class Unjudgeable(Exception):
    """The command line uses a form whose effect depends on more than its text."""


class Word:
    """One word: ``text`` after quote removal; ``pattern`` the same with quoted glob characters
    escaped, for expansion; ``globbed``: an unquoted ``* ? [`` or ``{a,b}`` (the shell expands
    it); ``assignment``: ``NAME=``, ``NAME+=`` or ``NAME[...]=`` unquoted at its start (bash's
    rule); ``tilde``: an unquoted ``~`` at its start or after ``=`` or ``:``, which bash may
    expand.  A plain class: ``dataclasses`` loads ``inspect``, milliseconds on every hook call."""

    __slots__ = ("assignment", "globbed", "pattern", "quoted", "text", "tilde")

    def __init__(
        self, text: str = "", pattern: str = "", globbed: bool = False, quoted: bool = False
    ) -> None:
        self.text, self.pattern, self.globbed, self.quoted = text, pattern, globbed, quoted
        self.assignment = self.tilde = False

    @property
    def expands(self) -> bool:
        """Bash would rewrite this word (a glob, a brace list, a tilde): its text is not
        what the command receives (issue 32)."""
        return self.globbed or self.tilde

    def __repr__(self) -> str:
        return f"Word({self.text!r})"


class Redirect:
    __slots__ = ("op", "target")

    def __init__(self, op: str, target: Word) -> None:
        self.op, self.target = op, target


class SimpleCommand:
    __slots__ = ("redirects", "words")

    def __init__(self) -> None:
        self.words: list[Word] = []
        self.redirects: list[Redirect] = []


def parse(line: str, heredocs: bool = False) -> list[SimpleCommand]:
    """The simple commands of ``line`` (split at ``;``, ``&&``, ``||``, ``|``, newlines); with
    ``heredocs`` a here-document is a redirection (``<<``, its delimiter as the target)."""
    commands: list[SimpleCommand] = [SimpleCommand()]
    pending: str | None = None  # a redirection operator waiting for its target
    joined: str | None = None  # '|', '&&'... waiting for the command it joins
    for token in _tokens(line, heredocs):
        current = commands[-1]
        if token != "\n":
            joined = token if isinstance(token, str) and token in _JOINS else None
        if isinstance(token, Word):
            if pending is not None:
                if pending in (">&", "<&") and token.quoted and not _is_fd(token):
                    # bash reads a quoted file name there its own way: '>&x\\'' writes 'x'
                    raise Unjudgeable(f"a quoted file name after '{pending}' cannot be judged")
                current.redirects.append(Redirect(pending, token))
                pending = None
            else:
                if _is_keyword(current, token):
                    raise Unjudgeable(f"the shell keyword '{token.text}' cannot be judged")
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
        elif token == "<<" and heredocs:
            pending = token
        elif token in ("<<", "<>"):
            raise Unjudgeable(f"'{token}' (here-documents, read-write opens) cannot be judged")
        else:
            pending = token
    if pending is not None:
        raise Unjudgeable(f"'{pending}' is not followed by a file")
    if joined is not None:
        raise Unjudgeable(f"'{joined}' is not followed by a command")
    return [c for c in commands if c.words or c.redirects]


def _is_assignment(raw: str) -> bool:
    """Whether a word, as written, is an assignment when it leads a simple command."""
    i = 0
    while i < len(raw) and raw[i] in _NAME:
        i += 1
    if i == 0 or raw[0].isdigit():
        return False
    if raw.startswith("[", i):
        close = raw.find("]", i)
        if close == -1:
            return False
        i = close + 1
    if raw.startswith("+", i):
        i += 1
    return raw.startswith("=", i)


def _is_keyword(command: SimpleCommand, word: Word) -> bool:
    """``word`` would be a reserved word (``if``, ``{``, ``!``, ``time``...) where it stands:
    bash reads the command as a compound one, not as a program and its arguments."""
    if word.quoted or word.text not in _KEYWORDS:
        return False
    return all(w.assignment for w in command.words)


def _tokens(line: str, heredocs: bool = False) -> list[Word | str]:
    out: list[Word | str] = []
    docs: list[tuple[str, bool, bool]] = []  # here-documents whose bodies start after the line
    word: Word | None = None
    start = 0  # where the current word began in the line
    at_command = True  # the next word may lead a simple command (only assignments so far)
    target = False  # the next word is a redirection's file
    i, n = 0, len(line)

    def finish(end: int) -> None:
        nonlocal word, at_command, target
        assert word is not None
        word.assignment = _is_assignment(line[start:end])
        if target:
            target = False
        elif not word.assignment:
            at_command = False
        out.append(word)
        word = None

    while i < n:
        c = line[i]
        if c in "$`":
            raise Unjudgeable(f"'{c}' expansions and substitutions cannot be judged")
        if c != "\t" and c != "\n" and (ord(c) < 32 or ord(c) == 127):
            raise Unjudgeable(f"control character {c!r} in the command")
        if c in " \t\n":
            if word is not None:
                finish(i)
            if c == "\n":
                out.append("\n")
                at_command, target = True, False
                if docs:  # the bodies of the line's here-documents follow it, in order
                    i = _skip_bodies(line, i + 1, docs)
                    docs = []
                    continue
            i += 1
            continue
        if c == "#" and word is None:
            while i < n and line[i] != "\n":
                i += 1
            continue
        op = next((o for o in _OPERATORS if line.startswith(o, i)), None)
        if op is not None:
            if op[0] in "<>" and word is not None and _is_fd(word):
                word = None  # a file descriptor number: 2>/dev/null
            if word is not None:
                finish(i)
            if line.startswith("<<<", i):
                raise Unjudgeable("here-strings '<<<' cannot be judged")
            if op in ("<", ">") and line.startswith("(", i + 1):
                raise Unjudgeable("process substitution cannot be judged")
            if op == "<<" and heredocs:
                i = _delimiter(line, i + 2, docs)
                out += ["<<", Word(docs[-1][0], docs[-1][0], quoted=True)]
                target = False
                continue
            out.append(op)
            if op in _SEPARATORS or op in "()":
                at_command, target = True, False
            else:
                target = True
            i += len(op)
            continue
        if c == "\\" and line.startswith("\n", i + 1):
            i += 2  # a line continuation is removed before words are split
            continue
        if word is None:
            word, start = Word(), i
            _tilde(line, i)
            if at_command and not target and _subscript_start(line, i):
                raise Unjudgeable("an array element 'name[...]' leading a command cannot be judged")
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
            if i + 1 == n:  # bash keeps it, or drops it after '>&'
                raise Unjudgeable("a backslash at the end of the command cannot be judged")
            _literal(word, line[i + 1])
            word.quoted = True
            i += 2
        else:
            if c == "~" and line[i - 1] in "=:":  # bash expands it there too: a=~0, PATH=x:~+
                _tilde(line, i)
            if c == "~" and (i == start or line[i - 1] in "=:"):
                word.tilde = True
            _plain(word, c, line, i)
            i += 1
    if word is not None:
        finish(n)
    return out


def _delimiter(line: str, i: int, docs: list[tuple[str, bool, bool]]) -> int:
    """Read a here-document's ``-`` and delimiter word from ``line[i:]`` into ``docs`` as
    ``(delimiter, quoted, tabs stripped)``; where the line goes on."""
    tabs = line.startswith("-", i)
    i += tabs
    while i < len(line) and line[i] in " \t":
        i += 1
    start = i
    while i < len(line) and line[i] not in " \t\n;&|<>()":
        if line[i] in "'\"":
            end = line.find(line[i], i + 1)
            if end == -1:
                raise Unjudgeable("an unclosed quote in a here-document's delimiter")
            i = end + 1
        else:
            i += 2 if line[i] == "\\" else 1
    raw = line[start:i]
    if not raw or any(c in raw for c in "$`"):
        raise Unjudgeable("a here-document's delimiter cannot be judged")
    text = raw.replace("\\", "").replace("'", "").replace('"', "")
    docs.append((text, raw != text, tabs))
    return i


def _skip_bodies(line: str, i: int, docs: list[tuple[str, bool, bool]]) -> int:
    """Skip the bodies of ``docs`` from ``line[i:]`` (each up to its delimiter's line, or the
    end, as bash reads them); where the line goes on."""
    for delimiter, quoted, tabs in docs:
        while i < len(line):
            end = line.find("\n", i)
            end = len(line) if end == -1 else end
            text = line[i:end]
            i = end + 1
            if (text.lstrip("\t") if tabs else text) == delimiter:
                break
            if not quoted and any(c in text for c in "$`\\"):
                raise Unjudgeable(
                    "an unquoted here-document's body with $, ` or \\ cannot be judged"
                )
    return min(i, len(line))


def _tilde(line: str, i: int) -> None:
    """``~`` or ``~/`` is the home folder; any other ``~...`` (``~user``, ``~+``, ``~0``...)
    names a folder only the shell's state knows."""
    if line.startswith("~", i) and i + 1 < len(line) and line[i + 1] not in "/: \t\n;&|<>":
        raise Unjudgeable("'~user' home directories cannot be judged")


def _is_fd(word: Word) -> bool:
    return not word.quoted and word.text.isascii() and word.text.isdigit()


def _subscript_start(line: str, i: int) -> bool:
    """``line[i:]`` starts with ``name[``: where a command starts, bash reads up to the
    matching ``]`` as one word (an array element being assigned), spaces and ``;`` included."""
    j = i
    while j < len(line) and line[j] in _NAME:
        j += 1
    return j > i and not line[i].isdigit() and line.startswith("[", j)


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
