"""A deadline for every answer the PostgreSQL server owes (issue 23).

libpq's ``connect_timeout`` bounds the connection; after it, a server that stops answering (a
stopped process, a network that drops its replies) used to hang a command for ever.  Every wait
of the connection for the server (psycopg's ``Connection.wait``: each statement, each commit) now
runs beside a timer; when it expires the socket is shut down, the wait ends with psycopg's
"connection lost" error, and the store says ``no answer from the server within Ns`` (exit 7, or
8 for a commit, which may have been applied).  The deadline is ``AGENTS_STATE_STATEMENT_TIMEOUT``
(default 10 s); a statement that waits for the workflow's lock gets the lock timeout on top; a
hook's budget (``agents_state.deadline``) caps both.
"""

from __future__ import annotations

import os
import socket
import threading
from contextlib import contextmanager
from typing import Any

from agents_state import deadline
from agents_state.errors import InvalidInputError

__all__ = [
    "DEFAULT_STATEMENT_TIMEOUT",
    "connect_timeout",
    "connection_class",
    "lock_wait",
    "statement_timeout",
    "timed_out",
]

DEFAULT_STATEMENT_TIMEOUT = 10
_CLASS: list[type] = []


def statement_timeout() -> float:
    raw = os.environ.get("AGENTS_STATE_STATEMENT_TIMEOUT")
    if not raw:
        return float(DEFAULT_STATEMENT_TIMEOUT)
    if not raw.isdigit() or not 1 <= int(raw) <= 3600:
        raise InvalidInputError(
            "environment AGENTS_STATE_STATEMENT_TIMEOUT",
            "",
            f"{raw!r} is not a whole number of seconds from 1 to 3600 (write e.g. 10)",
        )
    return float(raw)


def connect_timeout(conninfo: str) -> dict[str, int]:
    """Under a hook's budget, ``connect_timeout`` no longer than what is left of it (libpq
    counts whole seconds, at least 2); with no budget, the URL's own (``pg_url``)."""
    left = deadline.remaining()
    if left is None:
        return {}
    from urllib.parse import parse_qsl, urlsplit

    given = dict(parse_qsl(urlsplit(conninfo).query)).get("connect_timeout", "")
    configured = int(given) if given.isdigit() else DEFAULT_STATEMENT_TIMEOUT
    return {"connect_timeout": max(2, min(configured, int(left)))}


def connection_class(psycopg: Any) -> Any:
    """psycopg's ``Connection`` with a deadline on every wait for the server."""
    if _CLASS:
        return _CLASS[0]

    class DeadlineConnection(psycopg.Connection):  # type: ignore[misc]
        extra = 0.0  # seconds on top, while a statement waits for the workflow's lock
        timed_out: float | None = None  # the deadline that cut the connection

        def wait(self, gen: Any, *args: Any, **kwargs: Any) -> Any:
            seconds = deadline.cap(statement_timeout() + self.extra)
            fd = self.pgconn.socket
            timer = threading.Timer(seconds, self._cut, (fd, seconds))
            timer.daemon = True
            timer.start()
            try:
                return super().wait(gen, *args, **kwargs)
            finally:
                timer.cancel()

        def _cut(self, fd: int, seconds: float) -> None:
            self.timed_out = seconds
            try:
                s = socket.socket(fileno=os.dup(fd))
            except OSError:
                return
            try:
                s.shutdown(socket.SHUT_RDWR)  # the waiting call sees the connection end
            except OSError:
                pass
            finally:
                s.close()

    _CLASS.append(DeadlineConnection)
    return DeadlineConnection


def timed_out(conn: Any) -> float | None:
    """The deadline that cut ``conn``, if one did."""
    return getattr(conn, "timed_out", None)


@contextmanager
def lock_wait(conn: Any, seconds: float) -> Any:
    """Statements in this block may wait ``seconds`` more (the lock timeout)."""
    conn.extra = seconds
    try:
        yield
    finally:
        conn.extra = 0.0
