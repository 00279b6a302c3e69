"""The file-system calls of a commit, in one place so that tests can fail or trace them.

Each call first passes its operation name to ``_check``, which does nothing here; the tests
replace it (``tests/seams.py``) to fail the N-th call of one operation or to trace the order of
the calls.  No environment variable or option reaches it: a user cannot switch it on.
Calls made after the state is durable (the last-good backup, the events append) pass their own
``op`` name (``backup_write``, ``append_fsync``, ...) so that a trace or a fault can tell them
apart.
"""

from __future__ import annotations

import errno
import os

from agents_state.regular import CLOEXEC as _CLOEXEC
from agents_state.regular import NONBLOCK as _NONBLOCK
from agents_state.regular import file_kind as _kind
from agents_state.regular import read_upto

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "append_line",
    "atomic_write",
    "check_dir",
    "check_file",
    "fsync",
    "fsync_dir",
    "make_dir",
    "open_dir",
    "open_regular",
    "read_regular",
    "refuse",
    "replace",
    "replace_at",
    "unlink_at",
    "write_all",
]


def _check(op: str) -> None:
    """The test seam: called with the operation's name before each call; a no-op."""


def write_all(fd: int, data: bytes, op: str = "write") -> None:
    _check(op)
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def fsync(fd: int, op: str = "fsync") -> None:
    _check(op)
    os.fsync(fd)


def replace(src: Path | str, dst: Path | str, op: str = "replace") -> None:
    _check(op)
    os.replace(src, dst)


def replace_at(dir_fd: int, src: str, dst: str, op: str = "replace") -> None:
    """``os.replace`` of two names in the directory ``dir_fd`` (see ``open_dir``)."""
    _check(op)
    os.replace(src, dst, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def unlink_at(dir_fd: int, name: str, op: str = "unlink") -> None:
    """``os.unlink`` of a name in the directory ``dir_fd``: a link is removed, not its target."""
    _check(op)
    os.unlink(name, dir_fd=dir_fd)


def fsync_dir(path: Path | str) -> None:
    _check("fsync_dir")
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- opening files inside .agents/ without following links or blocking on FIFOs -----------------

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def refuse(shown: str, what: str, want: str = "a regular file") -> Exception:
    from agents_state.errors import InvalidInputError

    return InvalidInputError(
        shown,
        "",
        f"is {what}, not {want}; agents-state does not follow "
        f"links or open special files in .agents/ (replace it with {want})",
    )


def open_regular(
    path: Path | str, flags: int, shown: str, mode: int = 0o644, follow: bool = False
) -> int:
    """Open a file inside ``.agents/``: never through a symbolic link (unless ``follow``, for a
    file of the user's outside it), never blocking on a FIFO, and only a regular file (exit 5
    naming it otherwise).  ``FileNotFoundError`` passes through."""
    import stat

    try:
        fd = os.open(path, flags | (0 if follow else _NOFOLLOW) | _NONBLOCK | _CLOEXEC, mode)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK) or (e.errno == errno.ENXIO):
            try:
                kind = _kind(os.lstat(path).st_mode)
            except OSError:
                kind = "a symbolic link"
            raise refuse(shown, kind) from None
        if e.errno == errno.EISDIR:
            raise refuse(shown, "a directory") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refuse(shown, _kind(st.st_mode))
        if _NONBLOCK:
            import fcntl

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(
    path: Path | str, shown: str, limit: int | None = None, follow: bool = False
) -> bytes:
    """The whole of a regular file inside ``.agents/`` (see ``open_regular``); over ``limit``
    bytes it is refused (exit 5), and a file that grows while read is cut at ``limit`` + 1 bytes
    (so that the caller can tell it is over)."""
    fd = open_regular(path, os.O_RDONLY, shown, follow=follow)
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            from agents_state.errors import InvalidInputError

            raise InvalidInputError(shown, "", f"is {size} bytes; the limit is {limit} bytes")
        return read_upto(fd, limit)
    finally:
        os.close(fd)


def open_dir(base: Path, parts: list[str], shown: str) -> int:
    """A descriptor of the directory ``base/parts...``, opened one component at a time with
    ``O_NOFOLLOW`` below ``base`` (shown as ``shown``): a link planted on the way (or anything
    not a directory) is refused (exit 5, naming it), so a call made through the descriptor
    (``dir_fd=``) stays inside ``base`` whatever is renamed meanwhile.  ``FileNotFoundError``
    passes through."""
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for i, part in enumerate(parts, 1):
            try:
                sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as e:
                if e.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                kind = _kind(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode)
                raise refuse("/".join((shown, *parts[:i])), kind, "a directory") from None
            os.close(fd)
            fd = sub
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_file(path: Path | str, shown: str) -> None:
    """Refuse (exit 5) a path that is there but not a regular file; a missing one is fine."""
    import stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise refuse(shown, _kind(st.st_mode))


def check_dir(path: Path | str, shown: str) -> bool:
    """True when ``path`` is a real directory, False when it is missing; a link or anything
    else is refused (exit 5)."""
    import stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        raise refuse(shown, _kind(st.st_mode), "a directory")
    return True


def make_dir(path: Path | str, shown: str) -> None:
    """``mkdir`` that accepts only a real directory already there (no link to elsewhere)."""
    if check_dir(path, shown):
        return
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        check_dir(path, shown)


def atomic_write(path: Path | str, data: bytes, shown: str) -> None:
    """Write a whole small file so that a reader sees the old or the new bytes, never a part:
    a temp file in the same directory, fsync, ``os.replace``, fsync of the directory.  For the
    files outside the state's commit (scaffolded agents, the remembered transcript path).
    Plain ``os.path`` (a ``str`` path loads no ``pathlib`` on the hot commands, issue 26)."""
    import time

    from agents_state.errors import StorageIOError

    folder, name = os.path.split(os.fspath(path))
    tmp = os.path.join(folder, f".tmp-{name}.{os.getpid()}.{time.monotonic_ns()}")
    try:
        os.makedirs(folder or ".", exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            write_all(fd, data)
            fsync(fd)
        finally:
            os.close(fd)
        replace(tmp, path)
        fsync_dir(folder or ".")
    except OSError as e:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise StorageIOError(shown, "write", e.strerror or str(e)) from None


def append_line(path: Path | str, line: bytes, shown: str) -> None:
    """Append one line to a log inside ``.agents/`` so that it always stands on its own line:
    a log whose last write was cut short (no final newline) gets one first, and a write that
    fails is cut back to the old length, so no fragment is left for the next line to join."""
    fd = open_regular(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, shown)
    try:
        size = os.fstat(fd).st_size
        if size:
            os.lseek(fd, size - 1, os.SEEK_SET)  # O_APPEND: the write still goes to the end
            if os.read(fd, 1) != b"\n":
                line = b"\n" + line
        try:
            write_all(fd, line + b"\n", "append_write")
            fsync(fd, "append_fsync")
        except OSError:
            try:
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)
