"""``agents-state doctor`` on the PostgreSQL store (issue 17).

A server store has no temp files, backups, lock-owner files or half-written state to repair: a
transaction either committed whole or not at all.  What can still go wrong is checked: the
server is reachable (else exit 7 from the store), the schema is current, the state decodes, the
event log agrees with it (gap-free, ending at the state's revision), every artifact the state
names is stored, and no session has held the workflow's row lock for long.
"""

from __future__ import annotations

from typing import Any

from agents_state.doctor.diagnose import Diagnosis
from agents_state.errors import AgentsStateError

__all__ = ["diagnose_pg"]

STUCK_LOCK_SECONDS = 60


def diagnose_pg(store: Any) -> Diagnosis:
    from agents_state.store.codec import decode_state
    from agents_state.store.pg_schema import SCHEMA_VERSION, current_version

    d = Diagnosis(store)
    conn = store.connect()  # a down server or wrong password: StorageIOError, exit 7
    with store.errors("doctor"):
        version = current_version(conn)
    if version != SCHEMA_VERSION:
        d.add(
            "schema_version",
            "error",
            f"{store.shown}: schema version {version}, this agents-state needs {SCHEMA_VERSION}",
            "run any command to migrate it",
            False,
        )
    data = store.read_bytes()
    if data is not None:
        try:
            d.state = decode_state(data, store.shown)
        except AgentsStateError as e:
            d.add(
                "corrupt_state",
                "error",
                e.message,
                "by hand: agents-state store copy --from a good copy --to this URL --replace",
                False,
            )
    if d.state is None:
        return d
    d.events = store.events()
    revs = [e.get("rev") for e in d.events]
    want = list(range(1, d.state.revision + 1))
    if revs != want:
        missing = sorted(set(want) - {r for r in revs if isinstance(r, int)})
        d.add(
            "log_gap",
            "warning",
            f"{store.shown}: the event log does not match revision "
            f"{d.state.revision} (missing: {', '.join(map(str, missing[:10])) or 'none'}; "
            f"{len(revs)} events)",
            "nothing to do: the state is whole",
            False,
        )
    from agents_state.workflow import PHASES

    by_key = {p.file_key: p for p in PHASES}
    for key, path in d.state.files.items():
        spec = by_key.get(key)
        if (
            spec is not None
            and path.endswith(spec.artifact)
            and store.read_artifact(spec.artifact) is None
        ):
            d.missing_artifacts[spec.id] = path
            d.add(
                "missing_artifact",
                "error",
                f"phase {spec.id}'s artifact {path} is not in "
                f"the store (state.files.{key} points at it)",
                f"reopen phase {spec.id}",
                False,
            )
    with store.errors("doctor"):
        held = conn.execute(
            "SELECT count(*), coalesce(max(extract(epoch FROM now() - xact_start)), 0) "
            "FROM pg_stat_activity WHERE application_name = 'agents-state' "
            "AND state = 'idle in transaction' AND pid <> pg_backend_pid()"
        ).fetchone()
    if held and int(held[0]) and float(held[1]) > STUCK_LOCK_SECONDS:
        d.add(
            "stuck_session",
            "warning",
            f"{store.shown}: {held[0]} agents-state session(s) "
            f"idle in a transaction for up to {float(held[1]):.0f}s (a writer hung on "
            "another host)",
            "end it on the server: SELECT pg_terminate_backend(pid)",
            False,
        )
    return d
