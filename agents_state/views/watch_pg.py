"""``agents-state watch`` on the PostgreSQL store: wake on ``LISTEN``/``NOTIFY`` (issue 17).

Every commit of the store sends ``NOTIFY agents_state, '<workflow>'`` in its transaction, so the
notification arrives only once the new state is visible.  The watcher listens on its own
connection and compares the signature ``(revision, updated_at in ns, 0)`` of the workflow's row;
a timeout re-reads it anyway (the safety net, as polling is for the files).  Same interface as
``watch.StateWatcher``.
"""

from __future__ import annotations

import time
from typing import Any

from agents_state.views.watch import Signature

__all__ = ["PgWatcher"]


class PgWatcher:
    mode = "LISTEN/NOTIFY"

    def __init__(self, store: Any) -> None:
        self.store = store
        self.path = None
        self.last: Signature = None
        self.events_seen = 0
        self._listen: Any = None

    def start(self) -> None:
        from agents_state.store.pg import load_psycopg

        psycopg = load_psycopg()
        with self.store.errors("listen"):
            self._listen = psycopg.connect(
                self.store.target.conninfo, autocommit=True, application_name="agents-state watch"
            )
            self._listen.execute("LISTEN agents_state")

    def stop(self) -> None:
        conn, self._listen = self._listen, None
        if conn is not None:
            conn.close()

    def current(self) -> Signature:
        row = self.store._one(
            "SELECT revision, (extract(epoch FROM updated_at) * 1e9)::bigint "
            "FROM agents_state.workflows WHERE name = %s AND state IS NOT NULL",
            (self.store.workflow,),
        )
        return None if row is None else (int(row[0]), int(row[1]), 0)

    def seen(self, sig: Signature) -> None:
        self.last = sig

    def wait(self, timeout: float) -> Signature:
        """The new signature once the workflow changed, or None after ``timeout`` seconds."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                now = self.current()
                return now if now != self.last else None
            with self.store.errors("listen"):
                for note in self._listen.notifies(timeout=min(left, 5.0), stop_after=1):
                    if note.payload == self.store.workflow:
                        self.events_seen += 1
            now = self.current()
            if now != self.last:
                return now
