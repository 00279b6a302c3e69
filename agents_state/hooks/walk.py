"""A bounded walk of a directory tree, and the paths git ignores there.

The guards walk to find every file a Grep, a Glob or a shell glob could reach.  The walk follows
symbolic links to directories (ripgrep does not, but a link is a way in, so the guard looks) and
visits each directory once; past ``cap`` entries it raises ``WalkCapError`` so that the caller
can deny instead of guessing.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["VCS_DIRS", "WALK_CAP", "WalkCapError", "git_ignored", "walk"]

WALK_CAP = 100_000  # files and folders one check may visit (docs/reliability.md)
WALK_SECONDS = 5.0  # and the time it may take: the hook's timeout is 10 s, and a hook that
# times out does not block the call
VCS_DIRS = frozenset({".git", ".svn", ".hg", ".bzr", ".jj"})  # Claude Code's Grep skips these


class WalkCapError(Exception):
    def __init__(self, top: str, cap: int, timed_out: bool = False) -> None:
        self.top, self.cap, self.timed_out = top, cap, timed_out
        super().__init__(f"more than {cap:,} files and folders under {top}")


def walk(
    top: str,
    cap: int = WALK_CAP,
    prune: Callable[[str], bool] | None = None,
    deadline: float | None = None,
) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    """Yield ``(path relative to top, entry, reached through a symbolic link)`` for every
    non-directory under ``top``.

    ``prune(rel)`` is asked for each directory; VCS folders are always skipped.  Past ``cap``
    entries, or past ``deadline`` (``time.monotonic()``), it raises ``WalkCapError``."""
    seen: set[tuple[int, int]] = set()
    try:
        st = os.stat(top)
        seen.add((st.st_dev, st.st_ino))
    except OSError:
        return
    stack: list[tuple[str, str, bool]] = [(top, "", False)]
    count = 0
    if deadline is None:
        deadline = time.monotonic() + WALK_SECONDS
    while stack:
        path, rel, linked = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            count += 1
            if count > cap:
                raise WalkCapError(top, cap)
            if count % 1000 == 0 and time.monotonic() > deadline:
                raise WalkCapError(top, count, timed_out=True)
            sub = f"{rel}{entry.name}"
            if _is_dir(entry):
                if entry.name in VCS_DIRS or (prune is not None and prune(sub)):
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    continue
                key = (st.st_dev, st.st_ino)
                if key not in seen:
                    seen.add(key)
                    stack.append((entry.path, sub + "/", linked or entry.is_symlink()))
            else:
                yield sub, entry, linked


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows a symbolic link
    except OSError:
        return False


def git_ignored(top: str) -> set[str] | None:
    """Paths under ``top`` (relative, folders with a trailing ``/``) that git ignores, or
    ``None`` when ``top`` is not in a git work tree or git cannot tell."""
    import subprocess  # only for a Grep without a glob

    try:
        proc = subprocess.run(
            [
                "git",
                "-c",
                "core.fsmonitor=false",
                "-C",
                top,
                "ls-files",
                "--others",
                "--ignored",
                "--exclude-standard",
                "--directory",
                "-z",
            ],
            capture_output=True,
            timeout=5,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return {p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p}
