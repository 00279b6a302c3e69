"""The store's lock as a context manager: the kernel lock on the ``.agents/`` directory itself
(``lockfile``: nothing inside it can be removed or replaced to split writers), a bounded wait
(``AGENTS_STATE_LOCK_TIMEOUT``) and the holder named: after a second of waiting (one line on
stderr) and in a timeout message, from the kernel's lock table where there is one, else from
``lock-owner`` (issue 33: that file names only the last process that wrote it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from agents_state.errors import InvalidInputError, LockTimeoutError, StorageIOError
from agents_state.store import fsops
from agents_state.store.paths import AGENTS_DIR

if TYPE_CHECKING:
    from typing import Protocol

    class Lockable(Protocol):
        """What the lock needs of the file store (``files.Store``, which imports this module)."""

        agents: str  # the ``.agents/`` folder
        lock_timeout: float
        holding: bool


__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "MAX_LOCK_TIMEOUT",
    "StoreLock",
    "env_lock_timeout",
    "holder_of",
    "notice_wait",
]

DEFAULT_LOCK_TIMEOUT = 30.0
MAX_LOCK_TIMEOUT = 86400.0


def env_lock_timeout() -> float:
    raw = os.environ.get("AGENTS_STATE_LOCK_TIMEOUT")
    if not raw:
        raw = str(DEFAULT_LOCK_TIMEOUT)
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise InvalidInputError(
            "environment AGENTS_STATE_LOCK_TIMEOUT",
            "",
            f"{raw!r} is not a number of seconds to wait for the lock (write e.g. 10)",
        )
    if seconds > MAX_LOCK_TIMEOUT:
        raise InvalidInputError(
            "environment AGENTS_STATE_LOCK_TIMEOUT",
            "",
            f"{raw!r} seconds is out of range (at most {MAX_LOCK_TIMEOUT:g}, a day)",
        )
    from agents_state.deadline import cap

    return cap(seconds)  # a hook waits no longer than its budget (issue 23)


class StoreLock:
    """The kernel lock on the ``.agents/`` directory itself (``lockfile``: nothing inside it can
    be removed or replaced to split writers), with a bounded wait naming the holder."""

    def __init__(self, store: Lockable) -> None:
        self.store = store
        self.release: Callable[[], None] | None = None

    def __enter__(self) -> None:
        from agents_state.deadline import remaining
        from agents_state.store.lockfile import LockTimeout, acquire

        agents, timeout = self.store.agents, self.store.lock_timeout
        # a hook (it runs on a budget) waits silently: its stderr is the host's, not a person's
        quiet = remaining() is not None
        try:
            self.release = acquire(
                agents, timeout, None if quiet else lambda: notice_wait(agents, timeout)
            )
        except LockTimeout:
            raise LockTimeoutError(f"{AGENTS_DIR}/", timeout, holder_of(agents)) from None
        except OSError as e:
            raise StorageIOError(f"{AGENTS_DIR}/", "lock", e.strerror or str(e)) from None
        self.store.holding = True
        try:
            fd = fsops.open_regular(
                os.path.join(self.store.agents, "lock-owner"),
                os.O_WRONLY | os.O_CREAT,
                f"{AGENTS_DIR}/lock-owner",
            )
            try:
                # over the last one, at the same width: no truncation, whose freeing and
                # allocating again of a block was about 0.5 ms of every update (issue 26)
                os.pwrite(fd, b"%-10d %-12d\n" % (os.getpid(), int(time.time())), 0)
            finally:
                os.close(fd)
        except OSError:
            pass  # only used to name the holder in a timeout message
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: object) -> None:
        self.store.holding = False
        release, self.release = self.release, None
        if release is not None:
            release()


def notice_wait(locked: str, timeout: float, shown: str = f"{AGENTS_DIR}/") -> None:
    """One line on stderr once a wait passes a second: who holds the lock (issue 33: a silent
    wait of 11 s looked like a hang).  Silent under ``--json``: there stderr holds only the error
    object, as the runner decides (``"--json" in argv``)."""
    import sys

    if "--json" in sys.argv[1:]:
        return
    try:
        sys.stderr.write(
            f"agents-state: waiting for the lock on {shown}, held by {holder_of(locked)}; "
            f"waiting up to {timeout:g}s\n"
        )
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def holder_of(locked: str) -> str:
    """Who holds the lock on ``locked``: the kernel's holder with its command line (Linux),
    else ``lock-owner``'s last writer when it still runs."""
    from agents_state.store.lockfile import holder_pid

    pid = holder_pid(locked)
    owner = os.path.join(locked, "lock-owner") if os.path.isdir(locked) else None
    written = _owner_line(owner) if owner else None
    if pid is None:
        if written is None or not _alive(written[0]):
            return "an unknown process"
        pid = written[0]
    facts = [_command(pid) or "running"]
    if written is not None and written[0] == pid:
        facts.append(f"took it {written[1]:.0f}s ago")
    return f"pid {pid} ({', '.join(facts)})"


def _owner_line(path: str) -> tuple[int, float] | None:
    try:
        pid_s, since = fsops.read_regular(path, "", 200).decode().split()[:2]
        return int(pid_s), time.time() - float(since)
    except (OSError, ValueError, InvalidInputError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        pass
    return True


def _command(pid: int) -> str:
    """``agents-state compact`` for ``/venv/bin/python3 /venv/bin/agents-state compact``."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read(4096).decode("utf-8", "replace").split("\0")
    except OSError:
        return ""
    argv = [a for a in argv if a]
    if len(argv) > 1 and os.path.basename(argv[0]).startswith("python"):
        argv = argv[1:]
        while len(argv) > 1 and argv[0].startswith("-"):  # -P, -c CODE, -m MOD: keep it short
            argv = argv[2:] if argv[0] in ("-c", "-m") else argv[1:]
    if not argv:
        return ""
    text = " ".join([os.path.basename(argv[0]), *argv[1:]])
    return text if len(text) <= 80 else text[:77] + "..."
