"""Fault injection for the reliability tests: one run of the installed CLI under strace with the
n-th call of a system call failing (``error=EIO``) or killing the process (``signal=KILL``), and
the phase artifacts a run left (temp files aside)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from clitools import CLI

__all__ = ["STRACE", "inject", "phases"]

STRACE = shutil.which("strace")


def inject(
    log: Path | str, syscalls: str, action: str, n: int | str, *args: str
) -> subprocess.CompletedProcess[str]:
    """``agents-state ARGS`` with the ``n``-th of ``syscalls`` (comma-separated names; ``"2+"``:
    the second and every later one) answered by ``action``; strace's trace goes to ``log``."""
    assert STRACE is not None
    return subprocess.run(
        [
            STRACE,
            "-f",
            "-qq",
            "-o",
            str(log),
            "-e",
            f"trace={syscalls}",
            "-e",
            f"inject={syscalls}:{action}:when={n}",
            CLI,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def phases(folder: Path) -> dict[str, bytes]:
    """The artifacts in ``folder`` by name (none when it is missing), temp files left out."""
    if not folder.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.startswith(".tmp-")}
