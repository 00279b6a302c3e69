"""The store's lock: an exclusive ``flock`` on ``.agents/state.lock``, waited for in the kernel.

filelock (a dependency) polls: a waiting process wakes every few milliseconds to try again, so 50
concurrent writers burn a core on retries while the holder works.  On POSIX, from the main
thread, the lock is taken with a blocking ``flock`` (the kernel wakes a waiter when the holder
lets go) bounded by a one-shot timer signal; elsewhere (Windows, other threads, where a signal
cannot interrupt the wait) filelock takes it.  Both are the same kernel lock on the same file,
so they exclude each other, and the kernel releases it when a holder dies.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["LockTimeout", "acquire"]

Release = Callable[[], None]


class LockTimeout(Exception):
    """The lock was not free within the timeout."""


def acquire(path: Path, timeout: float) -> Release:
    """Take the lock within ``timeout`` seconds; returns the function that releases it."""
    import threading

    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return _with_filelock(path, timeout)
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if timeout <= 0:
                raise LockTimeout from None
            _wait(fd, timeout)
    except BaseException as e:
        os.close(fd)
        if isinstance(e, _Expired):  # the timer fired as the lock was granted: let it go
            raise LockTimeout from None
        raise

    def release() -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    return release


class _Expired(Exception):
    pass


def _expire(signum: int, frame: object) -> None:
    raise _Expired


def _wait(fd: int, timeout: float) -> None:
    import fcntl
    import signal

    previous = signal.signal(signal.SIGALRM, _expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        fcntl.flock(fd, fcntl.LOCK_EX)
    except _Expired:
        raise LockTimeout from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _with_filelock(path: Path, timeout: float) -> Release:
    from filelock import FileLock, Timeout

    lock = FileLock(str(path), timeout=timeout)
    try:
        lock.acquire(poll_interval=0.005)
    except Timeout:
        raise LockTimeout from None
    return lock.release
