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

__all__ = ["end_group", "run_phase_commands"]

TAIL = 40
_TAIL_BYTES = 256 * 1024  # read from the end of the output; TAIL lines fit in it
_GRACE = 2.0


def _exited(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout`` for the command to exit, without reaping it: while its zombie
    stands, its process group id cannot be given to another process."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # no waitid: reap it (a reused group id is then barely possible)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    deadline, delay = time.monotonic() + timeout, 0.0005
    while waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(delay, left))
        delay = min(delay * 2, 0.05)
    return True


def _signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def end_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the command's process group, reap the command, SIGKILL what is left of the
    group after a short grace."""
    deadline = time.monotonic() + _GRACE
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=_GRACE)
    except subprocess.TimeoutExpired:
        pass
    while time.monotonic() < deadline and _signal_group(proc.pid, 0):
        time.sleep(0.02)
    _signal_group(proc.pid, signal.SIGKILL)
    proc.wait()


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
        timed_out = not _exited(proc, timeout)
        end_group(proc)  # whatever it left in its group, or all of it on timeout
        code = None if timed_out else proc.returncode
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
