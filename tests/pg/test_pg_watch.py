"""Issue 17: ``watch`` on the PostgreSQL store wakes on LISTEN/NOTIFY."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from clitools import run_cli

from .pgrace import CLI, env_for


def test_watch_wakes_on_notify_and_exits_when_the_workflow_ends(
    root: Path, pg_url: str, tmp_path: Path
) -> None:
    assert run_cli(root, "--store", pg_url, "dispatch", "watched").returncode == 0
    other = tmp_path / "elsewhere"  # the watcher runs in another folder: only the URL is shared
    other.mkdir()
    proc = subprocess.Popen(
        [CLI, "watch", "--plain", "--exit-on-done"],
        cwd=other,
        env=env_for(pg_url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(1.5)  # its first frame (revision 1)
        assert run_cli(root, "--store", pg_url, "phase", "start", "0").returncode == 0
        time.sleep(1.0)
        assert run_cli(root, "--store", pg_url, "resume", "--abort").returncode == 0
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    headers = [ln for ln in out.splitlines() if ln.startswith("── agents-state watch")]
    assert headers[0].startswith("── agents-state watch · revision 1 ·")
    assert any("· revision 2 ·" in h for h in headers)
    assert all("· LISTEN/NOTIFY ·" in h for h in headers)
    assert "status: aborted" in out
