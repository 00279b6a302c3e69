"""The store's lock: an exclusive ``flock`` on the ``.agents/`` directory, waited for in the kernel.

The lock is taken on the directory itself, not on a file inside it: a file can be deleted or
replaced while writers run (``git clean``, a hand, a script), and then two writers lock two
different files and both believe they hold the lock.  The directory a process opened cannot be
swapped out from under it: every writer that works in ``.agents/`` opens that directory, so they
all lock one inode.  (``.agents/state.lock`` is no longer used on POSIX.)

filelock (a dependency) polls: a waiting process wakes every few milliseconds to try again, so 50
concurrent writers burn a core on retries while the holder works.  On POSIX, from the main
thread, the lock is taken with a blocking ``flock`` (the kernel wakes a waiter when the holder
lets go) bounded by a one-shot timer signal; from other threads, where a signal cannot interrupt
the wait, the same ``flock`` is tried every 5 ms.  On Windows, where a directory cannot be
locked, filelock locks ``state.lock`` inside it.  The kernel releases the lock when a holder dies.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["WAIT_NOTICE_AFTER", "LockTimeout", "acquire", "holder_pid", "is_held"]

Release = Callable[[], None]
WAIT_NOTICE_AFTER = 1.0  # seconds of waiting before ``waiting`` is called (issue 33)


class LockTimeout(Exception):
    """The lock was not free within the timeout."""


def _open(path: Path | str) -> int:
    if os.path.isdir(path):
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)


def acquire(path: Path | str, timeout: float, waiting: Callable[[], None] | None = None) -> Release:
    """Lock ``path`` (a directory, or a file) within ``timeout`` seconds; returns the function
    that releases it.  ``waiting`` is called once when the wait passes ``WAIT_NOTICE_AFTER``
    (to say who holds the lock, issue 33)."""
    import threading

    if os.name != "posix":
        target = os.path.join(path, "state.lock") if os.path.isdir(path) else path
        return _with_filelock(target, timeout)
    import fcntl

    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if timeout <= 0:
                raise LockTimeout from None
            if threading.current_thread() is threading.main_thread():
                _wait(fd, timeout, waiting)
            else:
                _poll(fd, timeout, waiting)
    except BaseException as e:
        os.close(fd)
        if isinstance(e, _Expired):  # the timer fired as the lock was granted: let it go
            raise LockTimeout from None
        raise

    def release() -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)  # closing the last descriptor releases the lock in any case

    return release


class _Expired(Exception):
    pass


def _expire(signum: int, frame: object) -> None:
    raise _Expired


def _wait(fd: int, timeout: float, waiting: Callable[[], None] | None) -> None:
    import fcntl
    import signal

    previous = signal.signal(signal.SIGALRM, _expire)
    try:
        if waiting is not None and timeout > WAIT_NOTICE_AFTER:
            try:  # a first wait, then the notice, then the rest of the timeout
                signal.setitimer(signal.ITIMER_REAL, WAIT_NOTICE_AFTER)
                fcntl.flock(fd, fcntl.LOCK_EX)
                return
            except _Expired:
                timeout -= WAIT_NOTICE_AFTER
            waiting()  # held still (a lock granted as the timer fired is granted again below)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        fcntl.flock(fd, fcntl.LOCK_EX)
    except _Expired:
        raise LockTimeout from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _poll(fd: int, timeout: float, waiting: Callable[[], None] | None) -> None:
    import fcntl

    start = time.monotonic()
    deadline = start + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            now = time.monotonic()
            if now >= deadline:
                raise LockTimeout from None
            if waiting is not None and now - start >= WAIT_NOTICE_AFTER:
                notice, waiting = waiting, None
                notice()
            time.sleep(0.005)


def holder_pid(path: Path | str) -> int | None:
    """The process that holds the ``flock`` on ``path`` now, from the kernel's own table
    (``/proc/locks``, Linux); None when unknown.  Not ``lock-owner``: a process that takes the
    lock without writing it (a hook) would leave the last, perhaps dead, writer named there."""
    try:
        st = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            table = f.read()
    except OSError:
        return None
    key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in table.splitlines():
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 4242 fe:00:2179778 0 EOF"; waiters have "->" after the id
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5] == key:
            try:
                return int(parts[4])
            except ValueError:
                return None
    return None


def is_held(path: Path | str) -> bool:
    """True when another open file holds the lock right now (for ``doctor``)."""
    if os.name != "posix":
        from filelock import FileLock, Timeout

        lock = FileLock(os.path.join(path, "state.lock"), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            return True
        except OSError:
            return False
        lock.release()
        return False
    try:
        acquire(path, 0)()
    except LockTimeout:
        return True
    except OSError:
        return False
    return False


def _with_filelock(path: Path | str, timeout: float) -> Release:
    from filelock import FileLock, Timeout

    lock = FileLock(os.fspath(path), timeout=timeout)
    try:
        lock.acquire(poll_interval=0.005)
    except Timeout:
        raise LockTimeout from None
    return lock.release
