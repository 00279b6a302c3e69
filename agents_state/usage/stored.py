"""The usage book as stored: where it lives and how it is read (``status``, ``next`` and the
budget read it; only the hooks record into it, in ``record``, so a reader does not load the
transcript reader and the recording code)."""

from __future__ import annotations

import os

import orjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.usage.book import Book

__all__ = [
    "PG_NAME",
    "SHOWN",
    "USAGE_FILE",
    "book_path",
    "decode_book",
    "read_book",
    "read_book_file",
]

USAGE_FILE = "usage.json"
PG_NAME = "usage/book.json"  # with the PostgreSQL store: beside the artifacts, not among them
SHOWN = f".agents/{USAGE_FILE}"


def book_path(root: str) -> str:
    return os.path.join(root, ".agents", USAGE_FILE)


def decode_book(raw: bytes | None) -> Book | None:
    """The book in ``raw`` (its readers still check each entry: it is a file people can edit),
    or ``None`` when it is not one."""
    try:
        data = orjson.loads(raw) if raw is not None else None
    except orjson.JSONDecodeError:
        return None
    ok = isinstance(data, dict) and isinstance(data.get("agents"), dict)
    return data if ok else None


def read_book(root: str) -> Book | None:
    """The book as stored, or ``None`` when there is none (or it cannot be read: usage is
    advice, never a reason for a command to fail)."""
    from agents_state.store.api import pg_from_env
    from agents_state.store.fsops import read_regular

    try:
        pg = pg_from_env(root)
        raw = pg.read_artifact(PG_NAME) if pg is not None else read_regular(book_path(root), SHOWN)
    except Exception:
        return None
    return decode_book(raw)


def read_book_file(root: str) -> bytes | None:
    from agents_state.store.fsops import read_regular

    try:
        return read_regular(book_path(root), SHOWN)
    except FileNotFoundError:
        return None
