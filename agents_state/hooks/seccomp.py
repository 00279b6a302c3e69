"""The room's system call filter (issue 32): classic BPF for bubblewrap's ``--seccomp FD``.

bubblewrap cannot say "no unix sockets" or "no new user namespace" with paths: ``connect()`` to
a socket works through a read-only bind, and a nested user namespace gives the command every
capability again over its own mounts.  So the room also runs under this filter:

- ``socket(AF_UNIX, ...)`` fails with ``EPERM`` (``socketpair`` stays: pipes between a test and
  its workers are not a way out);
- ``clone`` and ``unshare`` with ``CLONE_NEWUSER`` or ``CLONE_NEWNS`` fail with ``EPERM``;
  ``clone3`` (its flags are behind a pointer a filter cannot read) with ``ENOSYS``, so the C
  library falls back to ``clone`` (as Docker's and Anthropic's sandbox filters do);
- ``io_uring_setup`` fails with ``EPERM`` (its rings open sockets without a system call);
- a call of another architecture (32-bit programs on x86_64, x32) fails with ``EPERM``.

Built for x86_64 and aarch64; on any other machine there is no filter and the room is not
built (``None``: the profile fails closed).  Written once to the project's ``.agents/`` (read-only
in every room; Claude Code lets a command redirect input only from a file of the session's
working folders), named by its content and checked on each call; the rewritten command hands it
to bubblewrap as ``3<file``.
"""

from __future__ import annotations

import os
import struct

__all__ = ["filter_bytes", "filter_file"]

# struct seccomp_data: nr (0), arch (4), instruction_pointer (8), args[6] (16, 8 bytes each)
_NR, _ARCH, _ARG0 = 0, 4, 16
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
_AF_UNIX = 1
_NEW_NS = 0x10000000 | 0x00020000  # CLONE_NEWUSER | CLONE_NEWNS
# machine: (AUDIT_ARCH_*, socket, clone, unshare, clone3, io_uring_setup, x32 bit or 0)
_ARCHES = {
    "x86_64": (0xC000003E, 41, 56, 272, 435, 425, 0x40000000),
    "aarch64": (0xC00000B7, 198, 220, 97, 435, 425, 0),
}


def filter_bytes(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (``os.uname().machine`` by default), ``None`` for one it
    does not know."""
    spec = _ARCHES.get(machine or os.uname().machine)
    if spec is None:
        return None
    arch, socket, clone, unshare, clone3, uring, x32 = spec
    # (code, jump-if-true label, jump-if-false label, k); labels are names of later lines
    prog: list[tuple[int, str | None, str | None, int] | str] = [
        (_LD, None, None, _ARCH),
        (_JEQ, None, "deny", arch),
        (_LD, None, None, _NR),
        *([(_JGE, "deny", None, x32)] if x32 else []),
        (_JEQ, "socket", None, socket),
        (_JEQ, "flags", None, clone),
        (_JEQ, "flags", None, unshare),
        (_JEQ, "enosys", None, clone3),
        (_JEQ, "deny", None, uring),
        (_RET, None, None, _ALLOW),
        "socket",
        (_LD, None, None, _ARG0),  # the low 32 bits of the first argument (little endian)
        (_JEQ, "deny", None, _AF_UNIX),
        (_RET, None, None, _ALLOW),
        "flags",
        (_LD, None, None, _ARG0),
        (_JSET, "deny", None, _NEW_NS),
        (_RET, None, None, _ALLOW),
        "enosys",
        (_RET, None, None, _ERRNO | _ENOSYS),
        "deny",
        (_RET, None, None, _ERRNO | _EPERM),
    ]
    labels: dict[str, int] = {}
    lines: list[tuple[int, str | None, str | None, int]] = []
    for item in prog:
        if isinstance(item, str):
            labels[item] = len(lines)
        else:
            lines.append(item)
    out = bytearray()
    for i, (code, jt, jf, k) in enumerate(lines):
        t = labels[jt] - i - 1 if jt else 0
        f = labels[jf] - i - 1 if jf else 0
        out += struct.pack("=HBBI", code, t, f, k)
    return bytes(out)


def filter_file(folder: str | None = None) -> str | None:
    """The filter's file in ``folder`` (the cache folder by default; written once, checked on
    each call), ``None`` on an unknown machine or when it cannot be written."""
    data = filter_bytes()
    if data is None:
        return None
    from zlib import crc32

    from agents_state.hooks.secretscan import cache_dir, write_cache

    name = f"seccomp-{os.uname().machine}-{crc32(data):08x}.bpf"
    path = os.path.join(folder or cache_dir(), name)
    if folder and not os.path.isdir(folder):  # a project's first call: .agents stays out of git
        try:
            os.makedirs(folder, exist_ok=True)
            fd = os.open(f"{folder}/.gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                os.write(fd, b"# agents-state: workflow state is local, never committed\n*\n")
            finally:
                os.close(fd)
        except OSError:
            pass
    try:
        with open(path, "rb") as f:
            if f.read(len(data) + 1) == data:
                return path
    except OSError:
        pass
    return path if write_cache(path, data) else None
