"""Issue 17: doctor on the PostgreSQL store."""

from __future__ import annotations

import json
from pathlib import Path

from clitools import run_cli

from agents_state.store.pg import PgStore


def test_doctor_on_postgresql_finds_a_missing_artifact_and_a_log_gap(
    root: Path, pg_url: str
) -> None:
    assert run_cli(root, "--store", pg_url, "dispatch", "doc").returncode == 0
    proc = run_cli(
        root, "--store", pg_url, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n"
    )
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(root, "--store", pg_url, "doctor")
    assert (proc.returncode, proc.stdout) == (0, "doctor: no problems found\n")
    store = PgStore(pg_url, root)
    conn = store.connect()
    conn.execute("DELETE FROM agents_state.artifacts WHERE workflow = %s", (store.workflow,))
    conn.execute(
        "DELETE FROM agents_state.events WHERE workflow = %s AND rev = 1", (store.workflow,)
    )
    proc = run_cli(root, "--store", pg_url, "doctor", "--json")
    assert proc.returncode == 5
    codes = {f["code"]: f["severity"] for f in json.loads(proc.stdout)["findings"]}
    assert codes == {"missing_artifact": "error", "log_gap": "warning"}
