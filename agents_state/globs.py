"""Glob patterns as regular expressions: ripgrep's ``--glob`` and the shell's, one translator.

``*`` and ``?`` stay within one path component, ``**`` crosses them (``**/x``, ``a/**``,
``a/**/b``), ``[abc]`` / ``[!a-z]`` / ``[^a-z]`` are classes, ``{a,b}`` alternatives (nested),
and a backslash escapes the next character.  A leading dot needs no explicit dot: the guards use
these to find every file a pattern *could* reach, so matching more is the safe side.
Pure and small: imported on the hook's path.
"""

from __future__ import annotations

__all__ = ["GLOB_CHARS", "glob_regex", "has_glob"]

GLOB_CHARS = frozenset("*?[{")


def has_glob(text: str) -> bool:
    return any(c in GLOB_CHARS for c in text)


def glob_regex(pattern: str) -> str:
    """A regular expression (for ``fullmatch``) matching what ``pattern`` matches."""
    out, _ = _translate(pattern, 0, top=True)
    return out


def _translate(p: str, i: int, top: bool) -> tuple[str, int]:
    import re  # here, not above: the hook imports this module and often compiles no glob

    out: list[str] = []
    alts: list[str] = []
    n = len(p)
    while i < n:
        c = p[i]
        if c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            if j - i >= 2:
                before_ok = i == 0 or p[i - 1] == "/"
                if before_ok and j < n and p[j] == "/":  # '**/': any directories, or none
                    out.append("(?:.*/)?")
                    j += 1
                else:
                    out.append(".*")
            else:
                out.append("[^/]*")
            i = j
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            cls, i = _char_class(p, i)
            out.append(cls)
        elif c == "{":
            inner, i = _translate(p, i + 1, top=False)
            out.append(inner)
        elif c == "," and not top:
            alts.append("".join(out))
            out = []
            i += 1
        elif c == "}" and not top:
            alts.append("".join(out))
            return "(?:" + "|".join(alts) + ")", i + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(p[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    if not top:  # an unclosed '{' is a literal brace
        return re.escape("{") + ",".join([*alts, "".join(out)]), i
    return "".join(out), i


def _char_class(p: str, i: int) -> tuple[str, int]:
    import re

    j = i + 1
    negate = j < len(p) and p[j] in "!^"
    if negate:
        j += 1
    start = j
    if j < len(p) and p[j] == "]":
        j += 1
    while j < len(p) and p[j] != "]":
        j += 1
    if j >= len(p):  # no closing bracket: a literal '['
        return re.escape("["), i + 1
    body = "".join("\\" + ch if ch in "\\^[&~|" else ch for ch in p[start:j])
    if body.startswith("]"):
        body = "\\" + body
    return f"[{'^/' if negate else ''}{body}]", j + 1
