"""The store's lock as a context manager: the kernel lock on the ``.agents/`` directory itself
(``lockfile``: nothing inside it can be removed or replaced to split writers), a bounded wait
(``AGENTS_STATE_LOCK_TIMEOUT``) and ``lock-owner``, which names the holder in a timeout message.
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


__all__ = ["DEFAULT_LOCK_TIMEOUT", "MAX_LOCK_TIMEOUT", "StoreLock", "env_lock_timeout"]

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
        from agents_state.store.lockfile import LockTimeout, acquire

        try:
            self.release = acquire(self.store.agents, self.store.lock_timeout)
        except LockTimeout:
            holder = _holder(os.path.join(self.store.agents, "lock-owner"))
            raise LockTimeoutError(f"{AGENTS_DIR}/", self.store.lock_timeout, holder) from None
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


def _holder(owner_path: str) -> str:
    try:
        pid_s, since = fsops.read_regular(owner_path, "", 200).decode().split()[:2]
        pid = int(pid_s)
        age = time.time() - float(since)
    except (OSError, ValueError, InvalidInputError):
        return "an unknown process"
    try:
        os.kill(pid, 0)
        alive = "running"
    except (ProcessLookupError, OverflowError):
        alive = "no longer running"
    except PermissionError:
        alive = "running"
    return f"pid {pid} ({alive}, took it {age:.0f}s ago)"
