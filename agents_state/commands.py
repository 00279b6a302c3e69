"""Phase 3.1: run the configured lint and test commands with a timeout; record the results."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import orjson

__all__ = ["run_phase_commands"]

TAIL = 40


def run_phase_commands(commands: dict[str, str], timeout: int, cwd: Path) -> bytes:
    results = []
    for name, command in commands.items():
        start = time.monotonic()
        try:
            proc = subprocess.run(command, shell=True, cwd=cwd, capture_output=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL, check=False)
            code: int | None = proc.returncode
            output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
            timed_out = False
        except subprocess.TimeoutExpired as e:
            code, timed_out = None, True
            output = ((e.stdout or b"") + (e.stderr or b"")).decode("utf-8", "replace")
        results.append({
            "name": name, "command": command, "exitCode": code, "timedOut": timed_out,
            "durationSeconds": round(time.monotonic() - start, 3),
            "outputTail": "\n".join(output.splitlines()[-TAIL:]),
        })
    passed = all(r["exitCode"] == 0 for r in results)
    return orjson.dumps({"passed": passed, "commands": results}, option=orjson.OPT_INDENT_2)
