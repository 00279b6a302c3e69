"""Reading token usage from a Claude Code transcript, incrementally (issue 24).

A transcript is a JSON-lines file; each assistant line carries ``message.usage``
(``input_tokens``, ``output_tokens``, ``cache_read_input_tokens``,
``cache_creation_input_tokens``) and ``message.model``.  One API response is written as several
lines with the same ``message.id`` and the same usage: a sum counts each id once.  A reader
starts at a remembered byte offset, so that a hook's cost does not grow with the transcript, and
never moves past a line that has no newline yet (the host may still be writing it).  Lines that
are not JSON, or whose usage has an unknown shape, are skipped and counted; so are lines nested
too deep to parse (``RecursionError``) or longer than ``MAX_LINE`` (never parsed, never held
whole): the offset moves past them and later lines are booked (issue 32).

Plain ``json`` and ``os`` only: this runs in hooks.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FIELDS", "MAX_LINE", "Chunk", "Msg", "read_new"]

# our name -> the API's name
FIELDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cacheRead", "cache_read_input_tokens"),
    ("cacheWrite", "cache_creation_input_tokens"),
)
_BLOCK = 4 * 1024 * 1024
MAX_LINE = 16 * 1024 * 1024  # a response line is some kilobytes; past this it is skipped
_KEEP_IDS = 32  # ids of one response are adjacent; a few dozen cover any interleaving


class Msg:
    """One counted API response."""

    __slots__ = ("at", "id", "model", "sidechain", "tokens")

    def __init__(
        self, id: str, model: str, at: str, tokens: dict[str, int], sidechain: bool
    ) -> None:
        self.id, self.model, self.at, self.tokens, self.sidechain = (
            id,
            model,
            at,
            tokens,
            sidechain,
        )


class Chunk:
    """What one read found: the new responses, where to start next time, and what was odd."""

    def __init__(self) -> None:
        self.msgs: list[Msg] = []
        self.offset = 0
        self.ids: list[str] = []
        self.first_at: str | None = None  # the first and last timestamp of any line read
        self.last_at: str | None = None
        self.prompt: str | None = None  # the first user message's text (from offset 0 only)
        self.bad_lines = 0  # not JSON
        self.odd_usage = 0  # usage of an unknown shape
        self.too_deep = 0  # nested past the parser's recursion limit
        self.too_long = 0  # longer than MAX_LINE
        self.partial = False  # a last line without its newline was left for next time


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _tokens(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    out: dict[str, int] = {}
    for ours, theirs in FIELDS:
        v = usage.get(theirs)
        if v is None:
            out[ours] = 0
            continue
        n = _int(v)
        if n is None:
            return None
        out[ours] = n
    if "input_tokens" not in usage and "output_tokens" not in usage:
        return None
    return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "")
            for b in content
            if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


def _line(line: bytes, out: Chunk, seen: set[str]) -> None:
    has_usage = b'"usage"' in line
    want_prompt = out.prompt is None and b'"user"' in line
    if not has_usage and not want_prompt and out.first_at is not None:
        # the timestamp of the line is all we need from it
        i = line.rfind(b'"timestamp":"')
        if i >= 0:
            out.last_at = line[i + 13 : i + 13 + 24].split(b'"', 1)[0].decode("ascii", "replace")
        return
    try:
        entry = json.loads(line)
    except ValueError:
        out.bad_lines += 1
        return
    except RecursionError:  # uncaught, it stopped this transcript's booking for good
        out.too_deep += 1
        return
    if not isinstance(entry, dict):
        out.bad_lines += 1
        return
    at = entry.get("timestamp")
    if isinstance(at, str):
        out.first_at = out.first_at or at
        out.last_at = at
    msg = entry.get("message")
    if not isinstance(msg, dict):
        return
    if want_prompt and entry.get("type") == "user" and msg.get("role") == "user":
        out.prompt = _text(msg.get("content"))[:20000]
    if entry.get("type") != "assistant" or "usage" not in msg:
        return
    tokens = _tokens(msg.get("usage"))
    mid = msg.get("id")
    if tokens is None or not isinstance(mid, str) or not mid:
        out.odd_usage += 1
        return
    if mid in seen:
        return
    seen.add(mid)
    out.ids.append(mid)
    model = msg.get("model")
    out.msgs.append(
        Msg(
            mid,
            model if isinstance(model, str) and model else "unknown",
            at if isinstance(at, str) else "",
            tokens,
            entry.get("isSidechain") is True,
        )
    )


def read_new(path: str, offset: int = 0, ids: list[str] | None = None) -> Chunk:
    """The responses written to ``path`` since ``offset`` (``ids``: those counted last time).

    Raises ``OSError`` when the file cannot be read; the caller notes it and goes on."""
    out = Chunk()
    out.offset = offset
    seen = set(ids or ())
    out.ids = list(ids or ())
    if offset == 0:
        out.prompt = None
    else:
        out.prompt = ""  # the first prompt was read before
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        import stat

        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path} is not a regular file")
        if st.st_size < offset:  # rewritten or truncated: start again (ids keep repeats out)
            offset = out.offset = 0
        os.lseek(fd, offset, os.SEEK_SET)
        rest = b""
        skipping = False  # inside a line longer than MAX_LINE: dropped up to its newline
        dropped = 0  # its bytes read so far, not yet counted in the offset
        while True:
            block = os.read(fd, _BLOCK)
            if not block:
                break
            data = rest + block
            end = data.rfind(b"\n")
            if end < 0:
                if skipping or len(data) > MAX_LINE:  # never held whole
                    skipping, dropped, rest = True, dropped + len(data), b""
                else:
                    rest = data
                continue
            lines = data[:end].split(b"\n")
            if skipping:  # the end of the long line
                out.too_long += 1
                lines = lines[1:]
            for line in lines:
                if len(line) > MAX_LINE:
                    out.too_long += 1
                elif line.strip():
                    _line(line, out, seen)
            out.offset += dropped + end + 1
            rest = data[end + 1 :]
            skipping, dropped = False, 0
        out.partial = bool(rest.strip()) or skipping
    finally:
        os.close(fd)
    out.ids = out.ids[-_KEEP_IDS:]
    if out.prompt == "":
        out.prompt = None
    return out
