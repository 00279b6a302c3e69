"""The PostgreSQL store's schema: created on first use, versioned, migrated forward.

``agents_state.schema_version`` holds one row, the version of the tables.  ``MIGRATIONS[i]``
takes the schema from version ``i`` to ``i + 1``; a process that finds an older version applies
the missing steps under a transaction-scoped advisory lock, so two hosts starting at once
create or migrate the schema once.  A database newer than this agents-state is refused.
"""

from __future__ import annotations

from typing import Any

from agents_state.errors import StateFileError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "ensure_schema"]

_LOCK_KEY = 0x6167656E7473  # "agents": the advisory lock for creating and migrating the schema

MIGRATIONS: list[list[str]] = [
    [  # 0 -> 1
        "CREATE SCHEMA IF NOT EXISTS agents_state",
        "CREATE TABLE agents_state.schema_version (version integer NOT NULL)",
        "INSERT INTO agents_state.schema_version (version) VALUES (0)",
        """CREATE TABLE agents_state.workflows (
               name text PRIMARY KEY,
               revision bigint NOT NULL DEFAULT 0,
               state bytea,
               updated_at timestamptz NOT NULL DEFAULT now())""",
        """CREATE TABLE agents_state.events (
               workflow text NOT NULL REFERENCES agents_state.workflows ON DELETE CASCADE,
               seq bigserial,
               rev bigint,
               record text NOT NULL,
               PRIMARY KEY (workflow, seq))""",
        """CREATE TABLE agents_state.artifacts (
               workflow text NOT NULL REFERENCES agents_state.workflows ON DELETE CASCADE,
               name text NOT NULL,
               data bytea NOT NULL,
               PRIMARY KEY (workflow, name))""",
        """CREATE TABLE agents_state.toolcalls (
               workflow text NOT NULL,
               agent text NOT NULL,
               calls bigint NOT NULL,
               PRIMARY KEY (workflow, agent))""",
    ],
    [  # 1 -> 2: chains (issue 10's chain files) in the store
        """CREATE TABLE agents_state.chains (
               workflow text NOT NULL,
               id text NOT NULL,
               data bytea NOT NULL,
               PRIMARY KEY (workflow, id))""",
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)


def current_version(conn: Any) -> int:
    row = conn.execute("SELECT to_regclass('agents_state.schema_version')").fetchone()
    if row[0] is None:
        return 0
    got = conn.execute("SELECT version FROM agents_state.schema_version").fetchone()
    return int(got[0]) if got else 0


def ensure_schema(conn: Any, shown: str) -> None:
    """Create or migrate the schema if needed (one query when it is up to date)."""
    version = current_version(conn)
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise StateFileError(
            shown,
            "schema_version",
            f"is {version}, newer than this "
            f"agents-state knows ({SCHEMA_VERSION}); upgrade agents-state",
        )
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        version = current_version(conn)  # another process may have done it meanwhile
        for step in range(version, SCHEMA_VERSION):
            for sql in MIGRATIONS[step]:
                conn.execute(sql)
            conn.execute("UPDATE agents_state.schema_version SET version = %s", (step + 1,))
