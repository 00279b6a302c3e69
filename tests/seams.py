"""Test-only seams: switch the lock off, fail or trace the N-th file-system call, point the
network-file-system check at another mountinfo.  None of this ships: the package reads no
environment variable for it.  In process a test installs a seam with ``monkeypatch``
(``install``); a real process gets it through ``command``, which starts the CLI with a ``-c``
boot script that installs the seams named on its command line and then runs the entry point.

Faults: ``"fsync:2:ENOSPC"`` fails the 2nd call of ``fsync`` once, ``"replace:1:EIO:always"``
fails the 1st and every later one.  Operation names are the ``op`` arguments of
``agents_state.store.fsops`` (``write``, ``fsync``, ``replace``, ``fsync_dir``, ``backup_write``,
``append_fsync`` ...).
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

__all__ = ["command", "fault_checker", "install", "no_lock"]


def fault_checker(
    fault: str = "", trace: Callable[[str], None] | None = None
) -> Callable[[str], None]:
    """A replacement for ``fsops._check``: trace each call, fail the one ``fault`` names."""
    counts: dict[str, int] = {}
    name, nth, code, *mode = fault.split(":") if fault else ("", "0", "", "")

    def check(op: str) -> None:
        if trace is not None:
            trace(op)
        if op != name:
            return
        counts[op] = counts.get(op, 0) + 1
        n = int(nth)
        if counts[op] == n or (mode == ["always"] and counts[op] >= n):
            err = getattr(errno, code)
            raise OSError(err, os.strerror(err))

    return check


def _no_release() -> None:
    return None


def no_lock(
    path: Path, timeout: float, on_wait: Callable[[], None] | None = None
) -> Callable[[], None]:
    """A replacement for ``lockfile.acquire`` that takes no lock (the torture's control run)."""
    return _no_release


def _stdout_trace(op: str) -> None:
    sys.stdout.write(op + "\n")  # looked up per call: CliRunner swaps sys.stdout
    sys.stdout.flush()


def install(
    setattr: Callable[[Any, str, Any], None],
    *,
    fault: str = "",
    trace: bool = False,
    lock: bool = True,
    mountinfo: str | None = None,
) -> None:
    """Install seams with ``setattr`` (``monkeypatch.setattr`` in a test, plain ``setattr`` in
    a child process)."""
    from agents_state.store import fsops, lockfile, netfs

    if fault or trace:
        setattr(fsops, "_check", fault_checker(fault, _stdout_trace if trace else None))
    if not lock:
        setattr(lockfile, "acquire", no_lock)
    if mountinfo is not None:
        setattr(netfs, "MOUNTINFO", mountinfo)


_BOOT = (
    "import json, sys\n"
    "sys.path.insert(0, {here!r})\n"
    "import seams\n"
    "seams.install(setattr, **json.loads(sys.argv.pop(1)))\n"
    "from agents_state.__main__ import main\n"
    "sys.argv[0] = 'agents-state'\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def command(*args: str, **seams: Any) -> list[str]:
    """The argv of a real CLI process with ``seams`` (the keywords of ``install``) in place."""
    return [sys.executable, "-c", _BOOT.format(here=str(HERE)), json.dumps(seams), *args]
