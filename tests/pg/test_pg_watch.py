"""Issue 17: ``watch`` on the PostgreSQL store wakes on LISTEN/NOTIFY.  No sleeps (issue 35):
each step waits for the frame the watcher prints, read as it comes."""

from __future__ import annotations

import queue
import subprocess
import threading
from pathlib import Path
from typing import IO

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
    lines: queue.Queue[str | None] = queue.Queue()
    assert proc.stdout is not None
    reader = threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        _wait_for(lines, seen, "· revision 1 ·")  # its first frame
        assert run_cli(root, "--store", pg_url, "phase", "start", "0").returncode == 0
        _wait_for(lines, seen, "· revision 2 ·")  # woken by the notification
        assert run_cli(root, "--store", pg_url, "resume", "--abort").returncode == 0
        proc.wait(timeout=30)
        reader.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    while (line := lines.get_nowait() if not lines.empty() else None) is not None:
        seen.append(line)
    out = "".join(seen)
    assert proc.returncode == 0, err
    headers = [ln for ln in out.splitlines() if ln.startswith("── agents-state watch")]
    assert headers[0].startswith("── agents-state watch · revision 1 ·")
    assert any("· revision 2 ·" in h for h in headers)
    assert all("· LISTEN/NOTIFY ·" in h for h in headers)
    assert "status: aborted" in out


def _read_lines(stream: IO[str], out: queue.Queue[str | None]) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


def _wait_for(lines: queue.Queue[str | None], seen: list[str], text: str) -> None:
    """Block until the watcher prints a line holding ``text`` (a frame's header); a watcher
    that ends first, or prints nothing for 30 s, fails the test."""
    while True:
        line = lines.get(timeout=30)
        assert line is not None, f"the watcher ended before printing {text!r}: {seen}"
        seen.append(line)
        if text in line and line.startswith("── agents-state watch"):
            return
