"""Phase 3.1: run the configured lint and test commands with a timeout; record the results.

Each command runs in its own session (process group) and is waited for itself, not for its
output: its exit code is what counts, also when it leaves a background process behind. When it
exits, or on timeout, the whole group is ended (SIGTERM, then SIGKILL after a short grace), so a
test runner's children do not outlive it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO

import orjson

__all__ = ["run_phase_commands"]

TAIL = 40
_TAIL_BYTES = 256 * 1024  # read from the end of the output; TAIL lines fit in it
_GRACE = 2.0


def _end_group(pgid: int) -> None:
    """SIGTERM the process group, SIGKILL what is left of it after a short grace."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + _GRACE
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.02)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail_bytes(out: IO[bytes]) -> bytes:
    out.seek(0, os.SEEK_END)
    size = out.tell()
    out.seek(max(0, size - _TAIL_BYTES))
    data = out.read()
    if size > _TAIL_BYTES:  # the first line may be cut
        data = data.split(b"\n", 1)[-1]
    return data


def _run_one(command: str, timeout: int, cwd: Path) -> tuple[int | None, bool, str]:
    # Output goes to an unnamed file, not a pipe: a process the command leaves behind (`server
    # &`, even one that left the group) may hold it open for ever, and only the command itself
    # is waited for.
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            command,
            shell=True,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            code: int | None = proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            code, timed_out = None, True
        _end_group(proc.pid)  # whatever it left in its group, or all of it on timeout
        proc.wait()
        text = _tail_bytes(out).decode("utf-8", "replace")
    return code, timed_out, text


def run_phase_commands(commands: dict[str, str], timeout: int, cwd: Path) -> bytes:
    results = []
    for name, command in commands.items():
        start = time.monotonic()
        code, timed_out, output = _run_one(command, timeout, cwd)
        tail = output.splitlines()[-TAIL:]
        if timed_out:
            tail.append(f"[agents-state: timed out after {timeout}s; its process group was killed]")
        results.append(
            {
                "name": name,
                "command": command,
                "exitCode": code,
                "timedOut": timed_out,
                "durationSeconds": round(time.monotonic() - start, 3),
                "outputTail": "\n".join(tail),
            }
        )
    failed = [r["name"] for r in results if r["exitCode"] != 0]
    return orjson.dumps(
        {"passed": not failed, "failed": failed, "commands": results}, option=orjson.OPT_INDENT_2
    )
