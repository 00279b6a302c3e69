"""The PostgreSQL store (issue 17): the same engine and guarantees on a database server.

Selected by a ``postgresql://USER[:PASSWORD]@HOST:PORT/DB?workflow=NAME`` URL (``--store`` or
``AGENTS_STATE_STORE``); ``workflow`` (default ``default``) names the workflow, so several share one
database and every host that names it sees the same one.  psycopg 3 is imported only here (and in
``watch_pg``); the URL is read by ``store_pg_url``.

Every update is one transaction: ``SET LOCAL lock_timeout`` -> ``SELECT ... FOR UPDATE`` on the
workflow's row -> apply the pure engine -> validate -> write the new state, its event row and the
artifacts -> ``COMMIT`` -> only then report success; psycopg's ``conn.transaction()`` begins,
commits and rolls back.  Readers read the row in one statement: they see a whole committed state,
never a half-made one.  Each commit sends ``NOTIFY`` for ``watch``.
The tables live in their own schema ``agents_state`` (``store_pg_schema``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from agents_state.errors import (
    InvalidInputError,
    LockTimeoutError,
    StorageIOError,
    UsageError,
)
from agents_state.store.files import (
    MAX_STATE_BYTES,
    UncertainWriteError,
)
from agents_state.store.lock import env_lock_timeout
from agents_state.store.pg_url import PgTarget, parse_url
from agents_state.store.pg_url import reason as _reason

if TYPE_CHECKING:
    from agents_state.engine.phases import Outcome
    from agents_state.models import State
    from agents_state.store.commits import CommitLog

__all__ = ["PgStore", "PgTarget", "parse_url"]

_CONNECTIONS: dict[str, Any] = {}  # conninfo -> the process's open connection


def load_psycopg() -> Any:
    """psycopg, or a one-line usage error saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise UsageError(
            "a postgresql:// store needs psycopg 3, which is not installed; "
            "install it with: pip install 'agents-state[postgres]'"
        ) from None
    return psycopg


class PgStore:
    """One workflow in a PostgreSQL database; the same interface as ``store.Store``."""

    def __init__(
        self,
        url: str,
        root: Path,
        lock_timeout: float | None = None,
        commits: CommitLog | None = None,
    ) -> None:
        self.url = url
        self.commits = commits  # where this command's commits are noted (``store.commits``)
        self.target = parse_url(url)
        self.root = root
        self.workflow = self.target.workflow
        self.lock_timeout = lock_timeout if lock_timeout is not None else env_lock_timeout()
        self._conn: Any = None
        self._tx: Any = None  # the connection of the running commit
        self._wrote = False  # an artifact was written in the running commit

    def note_commit(self, what: str) -> None:
        """This update is durable: from here on a failure is "saved, not reported" (exit 8)."""
        if self.commits is not None:
            self.commits.note(what)

    @property
    def shown(self) -> str:
        return f"{self.target.shown} workflow {self.workflow}"

    # -- connection -----------------------------------------------------------------------------

    def connect(self) -> Any:
        """The process's connection to this server (shared by every ``PgStore`` of the same
        URL in the process: a command and its hooks' counts connect once)."""
        if self._conn is not None and not self._conn.closed:
            return self._conn
        shared = _CONNECTIONS.get(self.target.conninfo)
        if shared is not None and not shared.closed:
            self._conn = shared
            return shared
        psycopg = load_psycopg()

        from agents_state.store.pg_deadline import connect_timeout, connection_class
        from agents_state.store.pg_schema import ensure_schema

        with self.errors("connect"):
            conn = connection_class(psycopg).connect(
                self.target.conninfo,
                autocommit=True,
                application_name="agents-state",
                **connect_timeout(self.target.conninfo),
            )
            self._conn = conn  # for ``errors``: a deadline that cuts the schema check is named
            try:
                ensure_schema(conn, self.target.shown)
            except BaseException:
                conn.close()
                raise
        self._conn = _CONNECTIONS[self.target.conninfo] = conn
        return conn

    def close(self) -> None:
        conn, self._conn = self._conn, None
        _CONNECTIONS.pop(self.target.conninfo, None)
        if conn is not None:
            conn.close()

    @contextmanager
    def errors(self, operation: str) -> Iterator[None]:
        """psycopg's errors as the documented ones: one line, password never shown."""
        import psycopg
        from psycopg import errors as pge

        try:
            yield
        except pge.LockNotAvailable:
            self.close()
            raise LockTimeoutError(
                self.shown,
                self.lock_timeout,
                "another agents-state process (on this or another host)",
            ) from None
        except psycopg.Error as e:
            why = self._why(e)
            self.close()
            raise StorageIOError(self.target.shown, operation, why) from None

    def _why(self, e: Exception) -> str:
        """The reason to show: the deadline that cut the connection, or the server's words."""
        from agents_state.store.pg_deadline import timed_out

        cut = timed_out(self._conn)
        if cut is not None:
            return (
                f"no answer from the server within {cut:.0f}s"
                if cut >= 1
                else (f"no answer from the server within {cut:.1f}s")
            )
        return _reason(e, self.url)

    # -- reading ----------------------------------------------------------------------------------

    def present(self) -> bool:
        """A server store always exists (``commit`` creates the workflow's row)."""
        return True

    def read_bytes(self) -> bytes | None:
        row = self._one(
            "SELECT state FROM agents_state.workflows WHERE name = %s", (self.workflow,)
        )
        if row is None or row[0] is None:
            return None
        return bytes(row[0])

    def load(self) -> State | None:
        from agents_state.store.codec import decode_state

        data = self.read_bytes()
        return None if data is None else decode_state(data, self.shown)

    def revision(self) -> int:
        row = self._one(
            "SELECT revision FROM agents_state.workflows WHERE name = %s", (self.workflow,)
        )
        return int(row[0]) if row else 0

    def read_artifact(self, name: str) -> bytes | None:
        row = self._one(
            "SELECT data FROM agents_state.artifacts WHERE workflow = %s AND name = %s",
            (self.workflow, name),
        )
        return None if row is None else bytes(row[0])

    def artifacts(self, prefix: str = "") -> dict[str, bytes]:
        rows = self._all(
            "SELECT name, data FROM agents_state.artifacts WHERE workflow = %s "
            "AND starts_with(name, %s) ORDER BY name",
            (self.workflow, prefix),
        )
        return {r[0]: bytes(r[1]) for r in rows}

    def events(self) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT record FROM agents_state.events WHERE workflow = %s ORDER BY seq",
            (self.workflow,),
        )
        return [orjson.loads(r[0]) for r in rows]

    def _one(self, sql: str, params: tuple[Any, ...]) -> Any:
        return self._read(lambda conn: conn.execute(sql, params).fetchone())

    def _all(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        rows: list[Any] = self._read(lambda conn: list(conn.execute(sql, params).fetchall()))
        return rows

    def _read(self, run: Callable[[Any], Any]) -> Any:
        """A read; outside a commit, a connection the server dropped (a restart) is replaced
        once, as a read is safe to repeat."""
        if self._tx is not None:
            with self.errors("read"):
                return run(self._tx)
        conn = self.connect()
        import psycopg

        from agents_state.store.pg_deadline import timed_out

        try:
            return run(conn)
        except psycopg.OperationalError:
            # a dropped connection is replaced once; one that went unanswered is not asked again
            if (not conn.broken and not conn.closed) or timed_out(conn) is not None:
                with self.errors("read"):
                    raise
            self.close()
        with self.errors("read"):
            return run(self.connect())

    # -- writing ----------------------------------------------------------------------------------

    def commit(self, mutate: Callable[[State | None], Outcome]) -> Outcome:
        """Run ``mutate`` on the row read ``FOR UPDATE`` and commit its result as one
        transaction; a refusal or any error rolls everything back."""
        import psycopg

        from agents_state.store.codec import decode_state, encode_state

        with self._transaction("update") as conn:
            old = self._lock_row(conn, "state")
            self._wrote = False
            outcome = mutate(None if old is None else decode_state(bytes(old), self.shown))
            if not outcome.changed:
                if not self._wrote:  # nothing to keep (an artifact of an unchanged state is)
                    raise psycopg.Rollback
                return outcome
            data = encode_state(outcome.state, self.shown)
            if len(data) > MAX_STATE_BYTES:
                raise InvalidInputError(
                    self.shown,
                    "",
                    f"the new state would be {len(data)} "
                    f"bytes, over the {MAX_STATE_BYTES}-byte limit; nothing "
                    "was written",
                )
            rev = outcome.state.revision
            with self.errors("write"):
                conn.execute(
                    "UPDATE agents_state.workflows SET state = %s, revision = %s, "
                    "updated_at = now() WHERE name = %s",
                    (data, rev, self.workflow),
                )
                if outcome.record:
                    conn.execute(
                        "INSERT INTO agents_state.events (workflow, rev, record) "
                        "VALUES (%s, %s, %s)",
                        (self.workflow, rev, orjson.dumps(outcome.record).decode()),
                    )
                conn.execute("SELECT pg_notify('agents_state', %s)", (self.workflow,))
        if outcome.changed:
            self.note_commit(f"revision {outcome.state.revision}")
        return outcome

    @contextmanager
    def locked(self) -> Iterator[Any]:
        """A transaction holding the workflow's row lock (for chains: the same lock as the
        state's updates); commits when the block ends normally, else rolls back."""
        with self._transaction("lock") as conn:
            self._lock_row(conn, "1")
            yield conn

    def _lock_row(self, conn: Any, column: str) -> Any:
        """Create the workflow's row if it is new and lock it (``FOR UPDATE``), waiting at most
        the lock timeout; ``column`` of the row."""
        from agents_state.store.pg_deadline import lock_wait

        with self.errors("lock"), lock_wait(conn, self.lock_timeout):
            conn.execute(f"SET LOCAL lock_timeout = {max(1, int(self.lock_timeout * 1000))}")
            conn.execute(
                "INSERT INTO agents_state.workflows (name) VALUES (%s) "
                "ON CONFLICT (name) DO NOTHING",
                (self.workflow,),
            )
            row = conn.execute(
                f"SELECT {column} FROM agents_state.workflows WHERE name = %s FOR UPDATE",
                (self.workflow,),
            ).fetchone()
        return row[0]

    @contextmanager
    def _transaction(self, operation: str) -> Iterator[Any]:
        """psycopg's ``conn.transaction()`` on the store's connection, as ``_tx`` for the
        block: it commits when the block ends normally (``psycopg.Rollback`` or an error rolls
        back).  A connection the server dropped fails at ``BEGIN``, where nothing was done, and
        is replaced once; a failed ``COMMIT`` may or may not have been applied (exit 8)."""
        import psycopg

        body_done = False
        try:
            with ExitStack() as stack:
                conn = self.connect()
                try:
                    stack.enter_context(conn.transaction())
                except psycopg.Error:
                    self.close()
                    conn = self.connect()
                    with self.errors(operation):
                        stack.enter_context(conn.transaction())
                self._tx = conn
                try:
                    yield conn
                finally:
                    self._tx = None
                body_done = True
        except psycopg.Error as e:
            if not body_done:
                raise
            raise self._uncertain(e) from None

    def _uncertain(self, e: Exception) -> UncertainWriteError:
        """The error of a ``COMMIT`` that got no answer: saved or not, the caller cannot tell."""
        why = self._why(e)
        self.close()
        err = UncertainWriteError(self.target.shown, "commit", why)
        err.message = (
            f"{self.target.shown}: commit failed: {err.reason}; the connection "
            "broke while the server committed, so the update may or may not be "
            "saved: check with agents-state status before repeating it"
        )
        err.args = (err.message,)
        return err

    def write_side(self, name: str, data: bytes) -> None:
        """A file kept beside the workflow that is not a phase artifact (``usage/book.json``,
        issue 24): stored with the artifacts under a name with a folder, which ``store copy``
        does not carry to ``phases/``; inside ``locked`` it is part of that transaction."""
        sql = (
            "INSERT INTO agents_state.artifacts (workflow, name, data) VALUES (%s, %s, %s) "
            "ON CONFLICT (workflow, name) DO UPDATE SET data = EXCLUDED.data"
        )
        with self.errors("write"):
            (self._tx or self.connect()).execute(sql, (self.workflow, name, data))

    def write_artifact(self, name: str, data: bytes) -> str:
        """Store a phase artifact; inside ``commit`` it is part of the same transaction."""
        from agents_state.store.paths import safe_name

        shown = f".agents/phases/{safe_name(name, 'artifact')}"
        conn = self._tx
        self._wrote = True
        sql = (
            "INSERT INTO agents_state.artifacts (workflow, name, data) VALUES (%s, %s, %s) "
            "ON CONFLICT (workflow, name) DO UPDATE SET data = EXCLUDED.data"
        )
        with self.errors("write artifact"):
            (conn or self.connect()).execute(sql, (self.workflow, name, data))
        return shown

    def archive(self, state: State) -> str:
        """``dispatch --replace`` inside the commit: the old state and artifacts move under
        ``archive/<stamp>-r<rev>/`` in the same transaction that writes the new state."""
        stamp = (state.startedAt or "unknown").replace(":", "").replace("-", "")
        base = f"archive/{stamp}-r{state.revision}"
        taken = {n.split("/")[1] for n in self.artifacts("archive/")}
        name, i = base, 1
        while name.split("/")[1] in taken:
            i += 1
            name = f"{base}-{i}"
        conn = self._tx
        with self.errors("archive"):
            conn.execute(
                "UPDATE agents_state.artifacts SET name = %s || '/phases/' || name "
                "WHERE workflow = %s AND NOT starts_with(name, 'archive/')",
                (name, self.workflow),
            )
            conn.execute(
                "INSERT INTO agents_state.artifacts (workflow, name, data) VALUES (%s, %s, %s)",
                (self.workflow, f"{name}/state.json", self.read_bytes() or b""),
            )
        return name

    # -- tool-call counts (the PostToolUse hook) --------------------------------------------------

    def count_call(self, agent: str) -> None:
        with self.errors("count"):
            self.connect().execute(
                "INSERT INTO agents_state.toolcalls (workflow, agent, calls) VALUES (%s, %s, 1) "
                "ON CONFLICT (workflow, agent) DO UPDATE SET calls = toolcalls.calls + 1",
                (self.workflow, agent),
            )

    def call_counts(self) -> dict[str, int]:
        rows = self._all(
            "SELECT agent, calls FROM agents_state.toolcalls WHERE workflow = %s", (self.workflow,)
        )
        return {r[0]: int(r[1]) for r in rows}

    def reset_calls(self) -> None:
        with self.errors("count"):
            self.connect().execute(
                "DELETE FROM agents_state.toolcalls WHERE workflow = %s", (self.workflow,)
            )
