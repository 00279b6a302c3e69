"""Phase 3.1: run the configured lint and test commands with a timeout; record the results.

Each command runs in its own session (process group): on timeout the whole group is killed
(SIGTERM, then SIGKILL after a short grace), so a test runner's children do not outlive it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import orjson

__all__ = ["run_phase_commands"]

TAIL = 40
_GRACE = 2.0


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=_GRACE)
        except subprocess.TimeoutExpired:
            continue
        if sig is signal.SIGTERM:
            # the leader is gone; its children may not be
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        return


def _run_one(command: str, timeout: int, cwd: Path) -> tuple[int | None, bool, str]:
    proc = subprocess.Popen(
        command,
        shell=True,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            out, _ = proc.communicate(timeout=_GRACE)
        except subprocess.TimeoutExpired:  # a process that left the group holds the pipe
            proc.kill()
            out = b""
        code, timed_out = None, True
    return code, timed_out, (out or b"").decode("utf-8", "replace")


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
