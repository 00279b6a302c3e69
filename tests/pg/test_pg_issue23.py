"""Issue 23: ``store copy`` with a PostgreSQL end; ids read from the database; deadlines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clitools import run_cli

from agents_state.store.pg import PgStore


def _admin(url: str, root: Path) -> Any:
    import psycopg

    return psycopg.connect(PgStore(url, root).target.conninfo, autocommit=True)


def test_issue_23_copy_replace_into_the_database_is_one_transaction(
    root: Path, pg_url: str, tmp_path: Path
) -> None:
    """A write that fails in the middle of the copy (an artifact refused by the server) leaves
    the database's old workflow whole: state, artifacts and events."""
    assert run_cli(root, "--store", pg_url, "dispatch", "old").returncode == 0
    proc = run_cli(
        root, "--store", pg_url, "phase", "complete", "0", "--artifact", "-", stdin="# old\n"
    )
    assert proc.returncode == 0, proc.stderr
    store = PgStore(pg_url, root)
    before = (store.read_bytes(), store.artifacts(), store.events())
    source = tmp_path / "source"
    source.mkdir()
    assert run_cli(source, "dispatch", "new").returncode == 0
    proc = run_cli(source, "phase", "complete", "0", "--artifact", "-", stdin="# new\n")
    assert proc.returncode == 0, proc.stderr
    admin = _admin(pg_url, root)
    try:
        admin.execute(
            "CREATE FUNCTION pg_temp_refuse() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$"
        )
        admin.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON agents_state.artifacts "
            "FOR EACH ROW EXECUTE FUNCTION pg_temp_refuse()"
        )
        proc = run_cli(root, "store", "copy", "--from", str(source), "--to", pg_url, "--replace")
    finally:
        admin.execute("DROP TRIGGER IF EXISTS refuse ON agents_state.artifacts")
        admin.execute("DROP FUNCTION IF EXISTS pg_temp_refuse()")
        admin.close()
    assert proc.returncode == 7, proc.stderr
    assert proc.stderr.count("\n") == 1 and "refused by the test" in proc.stderr
    assert proc.stderr.endswith("; the previous state is unchanged\n")
    store = PgStore(pg_url, root)
    assert (store.read_bytes(), store.artifacts(), store.events()) == before
    proc = run_cli(root, "store", "copy", "--from", str(source), "--to", pg_url, "--replace")
    assert proc.returncode == 0, proc.stderr
    assert PgStore(pg_url, root).artifacts()["0-explore.md"] == b"# new\n"


def test_issue_23_a_chain_id_from_the_database_never_names_a_path(
    root: Path, pg_url: str, tmp_path: Path
) -> None:
    """A row of ``agents_state.chains`` holding ``../../x`` is refused before any file is
    written: one line, exit 5, nothing outside the target (and nothing in it)."""
    assert run_cli(root, "--store", pg_url, "dispatch", "x").returncode == 0
    store = PgStore(pg_url, root)
    admin = _admin(pg_url, root)
    try:
        admin.execute(
            "INSERT INTO agents_state.chains (workflow, id, data) VALUES (%s, %s, %s)",
            (store.workflow, "../../x", b'{"owned": true}'),
        )
    finally:
        admin.close()
    target = tmp_path / "a" / "b" / "target"
    target.mkdir(parents=True)
    proc = run_cli(root, "store", "copy", "--from", pg_url, "--to", str(target))
    assert proc.returncode == 5, proc.stderr
    assert proc.stderr == (
        f"agents-state: error: {store.shown}: chain: '../../x' is not allowed; use letters, "
        "digits, '.', '_' and '-' only (no '/', '..' or absolute paths)\n"
    )
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written == []
    assert not (target / ".agents" / "state.json").exists()
