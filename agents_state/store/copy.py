"""``agents-state store copy``: move a workflow between the files and a database (issue 17).

The copy keeps the revision, every event, every phase artifact, the chains and the tool-call
counts (``toolcalls``: how many calls the orchestrator's context holds, which decides when
compaction is due; a workflow moved in the middle of a session keeps counting from there).
The source is read under its lock (files) or in one snapshot (PostgreSQL); the target is
written under its lock as one unit: for the files, copied whole beside the old workflow and
then switched in (``store/switch.py``: the old one is deleted only after the new state is in
place), for the database one transaction.  A target that already holds a workflow is refused
unless ``--replace``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from agents_state.errors import StateFileError, UsageError
from agents_state.store.paths import AGENTS_DIR
from agents_state.store.snapshot import Snapshot

if TYPE_CHECKING:
    from agents_state.store.commits import CommitLog

__all__ = ["Snapshot", "copy_workflow"]


def _read_files(root: Path) -> Snapshot:
    from agents_state.store import fsops
    from agents_state.store.codec import decode_state
    from agents_state.store.files import Store

    store = Store(root)
    if not store.present():
        raise UsageError(f"{root}: no {AGENTS_DIR}/ here to copy from")
    with store.locked():
        data = store.read_bytes()
        if data is None:
            raise UsageError(f"{root / AGENTS_DIR}: no workflow (state.json) to copy")
        state = decode_state(data, f"{AGENTS_DIR}/state.json")
        artifacts = {}
        if store.phases_dir.is_dir():
            for n in sorted(os.listdir(store.phases_dir)):
                if not n.startswith(".tmp-") and (store.phases_dir / n).is_file():
                    artifacts[n] = fsops.read_regular(store.phases_dir / n, f"phases/{n}")
        chains = {}
        chain_dir = store.dir / "chains"
        if chain_dir.is_dir():
            for p in sorted(chain_dir.glob("*.json")):
                chains[p.stem] = fsops.read_regular(p, f"{AGENTS_DIR}/chains/{p.name}")
        from agents_state.store.toolcalls import file_counts

        calls = file_counts(str(root))
        return Snapshot(data, state.revision, store.events(), artifacts, chains, calls)


def _read_pg(url: str, root: Path) -> Snapshot:
    from agents_state.store.codec import decode_state
    from agents_state.store.paths import safe_name
    from agents_state.store.pg import PgStore

    store = PgStore(url, root)
    conn = store.connect()
    with store.errors("copy"), conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        data = store.read_bytes()
        if data is None:
            raise UsageError(f"{store.shown}: no workflow to copy")
        state = decode_state(data, store.shown)
        # ids and names from the database name files in the target: the files store's rule
        chains = {
            safe_name(r[0], store.shown, "chain"): bytes(r[1])
            for r in store._all(
                "SELECT id, data FROM agents_state.chains WHERE workflow = %s", (store.workflow,)
            )
        }
        artifacts = {
            safe_name(n, store.shown, "artifact"): d
            for n, d in store.artifacts().items()
            if "/" not in n  # archive/<name>/...: kept in the database only
        }
        snap = Snapshot(
            data, state.revision, store.events(), artifacts, chains, store.call_counts()
        )
    return snap


def _write_files(root: Path, snap: Snapshot, replace: bool, commits: CommitLog | None) -> None:
    from agents_state.store.files import Store
    from agents_state.store.switch import replace_workflow
    from agents_state.store.switch_recover import recover

    store = Store(root, commits=commits)
    store.ensure_dirs()
    with store.locked():
        recover(store)
        old = store.read_bytes()
        if old is not None and not replace:
            raise StateFileError(
                f"{AGENTS_DIR}/state.json",
                "",
                "already holds a workflow; pass --replace to overwrite it",
            )
        replace_workflow(store, snap, old)
        store.ensure_ignored()
    store.note_commit(f"revision {snap.revision}")


def copy_workflow(
    source: str, target: str, replace: bool, commits: CommitLog | None = None
) -> tuple[Snapshot, str, str]:
    """Copy between a folder (a root holding ``.agents/``) and a ``postgresql://`` URL, either
    way (or between two of either kind); returns the snapshot and both ends as shown."""
    from agents_state.store.api import PG_SCHEMES, mask_url

    def is_pg(s: str) -> bool:
        return s.startswith(PG_SCHEMES)

    root = Path.cwd()
    snap = _read_pg(source, root) if is_pg(source) else _read_files(Path(source).absolute())
    if is_pg(target):
        _write_pg(target, root, snap, replace, commits)
    else:
        _write_files(Path(target).absolute(), snap, replace, commits)
    return snap, mask_url(source), mask_url(target)


def _write_pg(
    url: str, root: Path, snap: Snapshot, replace: bool, commits: CommitLog | None
) -> None:
    """Write a whole workflow into the server in one transaction (its row locked)."""
    from agents_state.store.pg import PgStore
    from agents_state.store.pg_deadline import lock_wait

    store = PgStore(url, root, commits=commits)
    conn = store.connect()
    workflow = store.workflow
    with store.errors("copy"), lock_wait(conn, store.lock_timeout), conn.transaction():
        conn.execute(
            "INSERT INTO agents_state.workflows (name) VALUES (%s) ON CONFLICT (name) DO NOTHING",
            (workflow,),
        )
        row = conn.execute(
            "SELECT state FROM agents_state.workflows WHERE name = %s FOR UPDATE", (workflow,)
        ).fetchone()
        if row[0] is not None and not replace:
            raise StateFileError(
                store.shown, "", "already holds a workflow; pass --replace to overwrite it"
            )
        for table in ("events", "artifacts", "chains", "toolcalls"):
            conn.execute(f"DELETE FROM agents_state.{table} WHERE workflow = %s", (workflow,))
        conn.execute(
            "UPDATE agents_state.workflows SET state = %s, revision = %s, "
            "updated_at = now() WHERE name = %s",
            (snap.state, snap.revision, workflow),
        )
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO agents_state.events (workflow, rev, record) VALUES (%s, %s, %s)",
                [(workflow, e.get("rev"), orjson.dumps(e).decode()) for e in snap.events],
            )
            cur.executemany(
                "INSERT INTO agents_state.artifacts (workflow, name, data) VALUES (%s, %s, %s)",
                [(workflow, n, d) for n, d in snap.artifacts.items()],
            )
            cur.executemany(
                "INSERT INTO agents_state.chains (workflow, id, data) VALUES (%s, %s, %s)",
                [(workflow, c, d) for c, d in (snap.chains or {}).items()],
            )
            cur.executemany(
                "INSERT INTO agents_state.toolcalls (workflow, agent, calls) VALUES (%s, %s, %s)",
                [(workflow, a, n) for a, n in (snap.toolcalls or {}).items() if n > 0],
            )
    store.note_commit(f"revision {snap.revision}")
