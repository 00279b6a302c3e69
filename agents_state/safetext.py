"""Text a model or a person wrote, made safe to print, and its documented size limits (pure).

Task text travels into every ``status``, ``next`` and ``context``: unbounded, a 20 KB task makes
every status 40 KB; printed raw, a multi-line task could forge its own ``NEXT:`` or ``then:`` line
in the text next action, and terminal escape sequences would reach a person's terminal.  So the
text renderers pass every field through ``escape``: control characters (newlines included), DEL,
the C1 controls and the Unicode line and paragraph separators are shown as backslash escapes, so
a field is always exactly one line.  JSON output escapes them itself.
"""

from __future__ import annotations

import re

from agents_state.errors import InvalidInputError

__all__ = ["LIMITS", "check_length", "escape"]

# characters, documented in the README ("Limits")
LIMITS = {
    "task": 4000,  # the workflow's task text (dispatch)
    "title": 200,  # a task's title in a tasks file
    "description": 4000,  # a task's description in a tasks file
    "answer": 4000,  # an answer to a CLARIFY
}

# Compiled on first need: a Unicode class costs ~0.4 ms to compile, on every command's start-up.
_CONTROL = "[\x00-\x1f\x7f-\x9f\u2028\u2029]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _esc(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def escape(text: object) -> str:
    """One printable line: control characters and terminal escapes shown as ``\\n``, ``\\e``..."""
    s = str(text)
    if s.isprintable():  # every character escaped below is non-printable: the common case
        return s
    return re.sub(_CONTROL, _esc, s)


def check_length(text: str, kind: str, file: str, field: str) -> None:
    limit = LIMITS[kind]
    if len(text) > limit:
        raise InvalidInputError(
            file,
            field,
            f"{len(text)} characters; the limit is {limit} "
            "(put the details in a file and refer to it)",
        )
