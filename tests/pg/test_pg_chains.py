"""Issue 17: chains on the PostgreSQL store (their state in ``agents_state.chains``), and the
schema's migration path (a version-1 database gains the chains table on first use)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from clitools import run_cli

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "chains"))

from chainhelp import CLARIFY, QA_PASS, RESEARCH, WRITER, Walk

from agents_state.store.pg import PgStore
from agents_state.store.pg_schema import MIGRATIONS, SCHEMA_VERSION

from .pgserver import PgServer

SIZE3 = ("--files", "3", "--tasks", "3", "--modules", "1", "--effort", "medium")


class PgWalk(Walk):
    def __init__(self, root: Path, url: str) -> None:
        super().__init__(root)
        self.url = url

    def chain(self, cid: str) -> dict[str, Any]:
        from agents_state.chains.pg import PgChainStore

        c = PgChainStore(PgStore(self.url, self.root)).load(cid)
        data: dict[str, Any] = c.model_dump(mode="json", exclude_none=True)
        return data


def test_a_chain_with_a_clarify_answer_runs_on_postgresql(
    root: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTS_STATE_STORE", pg_url)
    w = PgWalk(root, pg_url)
    w.run("chain", "start", "ui", "Add a login form", *SIZE3)
    out = w.respond("ui-1", CLARIFY)
    assert out["next"]["kind"] == "ask_user"
    out = w.js("resume", "--answer", "JWT tokens")
    assert out["status"] == "running" and out["chain"] == "ui-1"
    w.respond("ui-1", RESEARCH)
    w.respond("ui-1", WRITER)
    assert w.respond("ui-1", QA_PASS)["status"] == "completed"
    assert w.chain("ui-1")["answers"][0]["answer"] == "JWT tokens"
    assert not (root / ".agents" / "chains" / "ui-1.json").exists()  # the state is in the store
    assert [c["id"] for c in w.js("chain", "list")] == ["ui-1"]


def test_a_version_1_database_is_migrated_on_first_use_and_keeps_its_workflow(
    root: Path, pg_server: PgServer
) -> None:
    import psycopg  # after the fixture: a missing psycopg fails under CI, else skips

    db = f"mig_{uuid.uuid4().hex[:8]}"
    admin = psycopg.connect(PgStore(pg_server.url("x"), root).target.conninfo, autocommit=True)
    admin.execute(f"CREATE DATABASE {db}")
    admin.close()
    url = pg_server.url("old").replace("/postgres?", f"/{db}?")
    conn = psycopg.connect(PgStore(url, root).target.conninfo, autocommit=True)
    for sql in MIGRATIONS[0]:  # the schema as version 1 made it, with a workflow in it
        conn.execute(sql)
    conn.execute("UPDATE agents_state.schema_version SET version = 1")
    conn.execute("INSERT INTO agents_state.workflows (name) VALUES ('old')")
    conn.close()
    assert run_cli(root, "--store", url, "dispatch", "old work").returncode == 0
    conn = psycopg.connect(PgStore(url, root).target.conninfo, autocommit=True)
    assert conn.execute("SELECT version FROM agents_state.schema_version").fetchone() == (
        SCHEMA_VERSION,
    )
    row = conn.execute("SELECT to_regclass('agents_state.chains')").fetchone()
    assert row is not None and row[0] is not None
    # a database newer than this program is refused, not written
    conn.execute("UPDATE agents_state.schema_version SET version = 99")
    conn.close()
    from agents_state.store import pg as store_pg

    store_pg._CONNECTIONS.clear()  # a new process would connect anew
    proc = run_cli(root, "--store", url, "status")
    assert proc.returncode == 5
    assert proc.stderr.endswith(
        f"schema_version: is 99, newer than this agents-state knows "
        f"({SCHEMA_VERSION}); upgrade agents-state\n"
    )


def test_a_chain_linked_to_a_task_completes_it_in_the_server_store(
    root: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: the chain records on the workflow store it lives beside (the server), through
    the command's own store, not an ``App`` it would build for itself."""
    import json

    from clitools import cli_json

    monkeypatch.setenv("AGENTS_STATE_STORE", pg_url)
    w = PgWalk(root, pg_url)
    (root / ".agents").mkdir()
    (root / ".agents" / "config.json").write_text(
        json.dumps({"stages": {"PLAN": {"enabled": False}}, "compaction": {"betweenStages": False}})
    )
    w.run("dispatch", "Add user authentication")
    w.run("phase", "complete", "0", "--artifact", "-", stdin="# explore\n")
    (root / "tasks.json").write_text(json.dumps({"tasks": [{"id": "auth", "title": "Login"}]}))
    w.run("tasks", "load", "tasks.json")
    w.run("chain", "start", "code", "Add loginUser", "--task", "auth", *SIZE3)
    w.respond("code-1", RESEARCH)
    w.respond("code-1", WRITER)
    assert w.respond("code-1", QA_PASS)["status"] == "completed"
    state = PgStore(pg_url, root).load()
    assert state is not None
    tasks = state.phase("2.1").tasks or {}
    assert tasks["auth"].status == "completed"
    assert w.chain("code-1")["workflow"] == {"phase": "2.1", "task": "auth", "recorded": True}
    assert not (root / ".agents" / "state.json").exists()  # nothing recorded on disk
    assert cli_json(root, "status")["workflow"]["currentPhase"] == "2.2"
