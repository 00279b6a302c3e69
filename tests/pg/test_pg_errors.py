"""Issue 17: connection and lock failures are one line with the documented exit code, never a
traceback, and never show the password."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from clitools import run_cli

from agents_state.errors import StorageIOError
from agents_state.store.pg import PgStore

from .pgserver import PASSWORD, PgServer, free_port


def test_a_wrong_password_is_exit_7_in_one_line(root: Path, pg_server: PgServer) -> None:
    url = pg_server.url("w", password="not-the-pw-x")
    proc = run_cli(root, "--store", url, "status")
    assert proc.returncode == 7
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(
        f"agents-state: error: postgresql://postgres:***@127.0.0.1:"
        f"{pg_server.port}/postgres: connect failed: "
    )
    assert "password authentication failed" in proc.stderr
    assert "not-the-pw-x" not in proc.stderr and PASSWORD not in proc.stderr


def test_a_server_that_is_down_is_exit_7_in_one_line(root: Path, pg_server: PgServer) -> None:
    url = pg_server.url("w").replace(f":{pg_server.port}/", f":{free_port()}/")
    proc = run_cli(root, "--store", url, "dispatch", "x", "--json")
    assert proc.returncode == 7
    assert proc.stderr.count("\n") == 1 and PASSWORD not in proc.stderr
    assert '"code":"io"' in proc.stderr.replace(" ", "") and "connect failed" in proc.stderr


def test_a_held_row_lock_times_out_with_exit_6(root: Path, pg_url: str) -> None:
    import psycopg  # after the fixture: a missing psycopg fails under CI, else skips

    assert run_cli(root, "--store", pg_url, "dispatch", "x").returncode == 0
    holder = psycopg.connect(PgStore(pg_url, root).target.conninfo)
    try:
        holder.execute(
            "SELECT 1 FROM agents_state.workflows WHERE name = %s FOR UPDATE",
            (PgStore(pg_url, root).workflow,),
        )
        proc = run_cli(
            root, "--store", pg_url, "phase", "start", "0", env={"AGENTS_STATE_LOCK_TIMEOUT": "0.3"}
        )
    finally:
        holder.close()
    assert proc.returncode == 6
    workflow = PgStore(pg_url, root).workflow
    assert proc.stderr.endswith(
        f"/postgres workflow {workflow}: lock still held after 0.3s by "
        "another agents-state process (on this or another host); retry, "
        "or run 'agents-state doctor' if that process is gone\n"
    )
    assert PASSWORD not in proc.stderr
    assert run_cli(root, "--store", pg_url, "phase", "start", "0").returncode == 0


def test_psycopg_is_imported_only_for_a_postgresql_url(root: Path, pg_url: str) -> None:
    import subprocess
    import sys

    code = (
        "import sys; from agents_state.__main__ import main; rc = main(%r); "
        "print('psycopg' in sys.modules, rc)"
    )
    env = {k: v for k, v in os.environ.items() if k != "AGENTS_STATE_STORE"}
    files = subprocess.run(
        [sys.executable, "-c", code % (["status"],)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert files.stdout.splitlines()[-1] == "False 0"
    pg = subprocess.run(
        [sys.executable, "-c", code % (["--store", pg_url, "status"],)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert pg.stdout.splitlines()[-1] == "True 0"


# Where a ``task done`` meets a server that stops: each step of the store's update names itself
# (``PgStore.connect``, ``_read``, ``commit``); libpq's or the server's reason follows on the same
# line (connection refused, "the database system is shutting down", "terminating connection due
# to administrator command", "server closed the connection unexpectedly" ...).  The server stops
# at a random moment, so any step may be the one that meets it: the test names them all.
_WRITE_PATH_STEPS = ("connect", "read", "lock", "update", "write", "write artifact")
_UNCHANGED = "; the previous state is unchanged"
_UNCERTAIN = (
    "; the connection broke while the server committed, so the update may or may not be "
    "saved: check with agents-state status before repeating it"
)


def _stopped_server_line(port: int) -> re.Pattern[str]:
    """One line: the masked URL (with the workflow or not), the step, a reason, the verdict."""
    url = re.escape(f"postgresql://postgres:***@127.0.0.1:{port}/postgres")
    steps = "|".join(re.escape(s) for s in _WRITE_PATH_STEPS)
    return re.compile(
        rf"agents-state: error: {url}(?: workflow [\w.-]+)?: "
        rf"(?:(?:{steps}) failed: [^\n]+{re.escape(_UNCHANGED)}"
        rf"|commit failed: [^\n]+{re.escape(_UNCERTAIN)})\n"
    )


def test_a_connection_dropped_inside_an_update_is_exit_7_and_writes_nothing(
    root: Path, pg_server: PgServer, pg_url: str
) -> None:
    """The server ends the store's session between its ``SELECT ... FOR UPDATE`` and its write
    (what a stopping server does to every session): one line, exit 7, nothing written, and the
    next update connects anew."""
    import psycopg

    from agents_state.engine.context import Outcome

    assert run_cli(root, "--store", pg_url, "dispatch", "x").returncode == 0
    store = PgStore(pg_url, root)
    before = store.read_bytes()
    killer = psycopg.connect(store.target.conninfo, autocommit=True)

    def mutate(state: Any) -> Outcome:
        pid = store.connect().info.backend_pid
        killer.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
        state.task = "changed"
        return Outcome(state, "changed")

    try:
        with pytest.raises(StorageIOError) as caught:
            store.commit(mutate)
    finally:
        killer.close()
    err = caught.value
    assert err.exit_code == 7
    assert str(err) == (
        f"postgresql://postgres:***@127.0.0.1:{pg_server.port}/postgres: "
        "write failed: terminating connection due to administrator command" + _UNCHANGED
    )
    assert _stopped_server_line(pg_server.port).fullmatch(f"agents-state: error: {err}\n")
    assert PgStore(pg_url, root).read_bytes() == before  # rolled back on the server
    proc = run_cli(root, "--store", pg_url, "phase", "start", "0")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_server_stopped_mid_run_writers_fail_with_7_then_carry_on(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two writers (two host folders) keep running ``task done``; the server is stopped under
    them and started again.  While it is down every command fails with exit 7 and one line; the
    writers retry and carry on; every acknowledged update is there at the end."""
    import subprocess
    import threading
    import time

    from clitools import wave_of

    from .pgrace import CLI, env_for, tasks_of
    from .pgserver import pg_bindir

    bindir = pg_bindir()
    assert bindir is not None
    server = PgServer(bindir)  # its own server: this test stops it
    try:
        server.start()
        url = server.url("down")
        monkeypatch.setenv("AGENTS_STATE_STORE", url)
        ids = wave_of(root, 16, "outage")
        monkeypatch.delenv("AGENTS_STATE_STORE")
        env = env_for(url, AGENTS_STATE_CONNECT_TIMEOUT="2")
        acked: list[str] = []
        failures: list[str] = []
        unexpected: list[str] = []
        mutex = threading.Lock()

        def writer(host: Path, mine: list[str]) -> None:
            for t in mine:
                for _ in range(200):
                    p = subprocess.run(
                        [CLI, "task", "done", t, "--force", "--summary", "ok"],
                        cwd=host,
                        env=env,
                        capture_output=True,
                        text=True,
                        timeout=120,
                    )
                    with mutex:
                        if p.returncode == 0 or (p.returncode == 4 and "already" in p.stderr):
                            acked.append(t)
                            break
                        if (
                            p.returncode == 7
                            and p.stderr.count("\n") == 1
                            and "Traceback" not in p.stderr
                            and PASSWORD not in p.stderr
                        ):
                            failures.append(p.stderr)
                        else:
                            unexpected.append(f"{p.returncode}: {p.stderr}")
                    time.sleep(0.2)  # the server is down: try again shortly

        hosts = [tmp_path / "host-a", tmp_path / "host-b"]
        threads = []
        for i, h in enumerate(hosts):
            h.mkdir()
            threads.append(threading.Thread(target=writer, args=(h, ids[i::2])))
            threads[-1].start()
        while len(acked) < 4:
            time.sleep(0.05)
        server.stop("fast")
        while len(failures) < 4:
            time.sleep(0.05)
        server.start()
        for th in threads:
            th.join()
        assert unexpected == []
        assert len(failures) >= 4
        shape = _stopped_server_line(server.port)
        assert [f for f in failures if not shape.fullmatch(f)] == []
        assert sorted(acked) == sorted(ids)
        state = PgStore(url, tmp_path).load()
        assert state is not None
        tasks = tasks_of(state)
        assert all(tasks[t].status == "completed" for t in acked)  # nothing acknowledged lost
    finally:
        server.close()


def test_without_psycopg_a_postgresql_url_says_how_to_install_it(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg -> ImportError
    url = f"postgresql://u:pw@127.0.0.1:{free_port()}/db?workflow=w"
    proc = run_cli(root, "--store", url, "status")
    assert (proc.returncode, proc.stderr) == (
        2,
        (
            "agents-state: error: a postgresql:// store needs psycopg 3, which is not installed; "
            "install it with: pip install 'agents-state[postgres]'\n"
        ),
    )
