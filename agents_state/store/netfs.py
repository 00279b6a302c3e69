"""Network file systems: kernel locks there may be local to one machine; warn once, clearly.

On NFS, CIFS/SMB or FUSE the lock that agents-state takes (``flock`` through filelock) may not
be seen by processes on other machines, and rename and fsync may not be atomic or durable as on
a local disk.  The type is read from ``/proc/self/mountinfo`` (the longest mount point that
contains the folder); elsewhere (macOS, Windows) nothing is checked.  The first commit in a
folder records the type in ``.agents/.fstype`` so that the warning is shown once per folder;
``agents-state doctor`` reports it every time.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MARKER", "fs_type", "is_network", "warn_once", "warning"]

MARKER = ".fstype"
MOUNTINFO = "/proc/self/mountinfo"  # the tests point it elsewhere (tests/seams.py)
_NETWORK = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "ncpfs",
        "9p",
        "afs",
        "coda",
        "ceph",
        "glusterfs",
        "lustre",
        "gpfs",
        "beegfs",
        "davfs",
        "ocfs2",
        "gfs2",
        "fuse",
        "sshfs",
    }
)
# FUSE types that are local and lock correctly (rootless containers run on fuse-overlayfs)
_LOCAL_FUSE = frozenset({"fuse.fuse-overlayfs", "fuseblk"})


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash in octal
    for code, ch in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, ch)
    return field


def fs_type(path: Path | str, mountinfo: str | None = None) -> str | None:
    """The file-system type of the mount that holds ``path``, or None when unknown."""
    source = mountinfo or MOUNTINFO
    try:
        with open(source, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    target = os.path.realpath(path)
    best, best_type = "", None
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or not tail:
            continue
        point = _unescape(fields[4])
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, best_type = point, tail[0]
    return best_type


def is_network(fstype: str | None) -> bool:
    if not fstype or fstype in _LOCAL_FUSE:
        return False
    return fstype in _NETWORK or fstype.startswith("fuse.")


def warning(agents_dir: Path | str, fstype: str | None) -> str | None:
    if not is_network(fstype):
        return None
    return (
        f"{agents_dir} is on a network file system ({fstype}): its locks may not be seen "
        "by processes on other machines, so run every agent that updates this workflow on "
        "one machine (see docs/reliability.md)"
    )


def warn_once(agents_dir: Path | str) -> None:
    """Print the warning on the first commit in this folder; later commits only stat a file."""
    marker = os.path.join(agents_dir, MARKER)
    if os.path.lexists(marker):  # whatever is there, even a link: never written through
        return
    fstype = fs_type(agents_dir)
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, f"{fstype or 'unknown'}\n".encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # a read-only marker only means the warning shows again
    message = warning(agents_dir, fstype)
    if message:
        sys.stderr.write(f"agents-state: warning: {message}\n")
