"""The submodules of a checkout, whose ``.git`` a room must not write (issue 32).

A submodule's ``.git`` (a pointer file, or an old-style folder) lies inside the working tree, so
a room that writes the project could point it at a git folder of its own; the user's next ``git
status`` in the project looks into each submodule and runs what that folder's ``config`` says
(``core.fsmonitor``), outside any room.  The submodules are the gitlinks of the checkout's index
(not ``.gitmodules``, which the room can edit): read with git, hardened, and remembered in the
cache folder by the index's identity (the index is read-only in every room, so it changes only
outside).
"""

from __future__ import annotations

import os

__all__ = ["submodule_dirs"]


def _index(top: str) -> str | None:
    dot = f"{top}/.git"
    if os.path.isdir(dot):
        return f"{dot}/index"
    try:
        with open(dot, encoding="utf-8") as f:
            line = f.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir: "):
        return None
    return os.path.join(os.path.realpath(os.path.join(top, line[8:])), "index")


def submodule_dirs(top: str) -> list[str]:
    """The folders of ``top``'s submodules (real paths under it), ``[]`` when it has none or
    is not a git checkout."""
    index = _index(top)
    try:
        st = os.stat(index) if index else None
    except OSError:
        st = None
    if st is None:
        return []
    from zlib import crc32

    from agents_state.hooks.hookjson import dumps, loads
    from agents_state.hooks.secretscan import cache_dir, write_cache

    key = f"{index} {st.st_ino} {st.st_mtime_ns} {st.st_size}"
    cache = os.path.join(cache_dir(), f"gitlinks-{crc32(key.encode('utf-8', 'replace')):08x}")
    try:
        with open(cache, "rb") as f:
            data = loads(f.read())
        if isinstance(data, dict) and data.get("key") == key:
            return [f"{top}/{p}" for p in data.get("paths", []) if isinstance(p, str)]
    except (OSError, ValueError):
        pass
    import subprocess  # only when the index changed

    try:
        proc = subprocess.run(
            [
                "git",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.untrackedCache=false",
                "-C",
                top,
                "ls-files",
                "--stage",
                "-z",
            ],
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    paths = [
        line.split(b"\t", 1)[1].decode("utf-8", "surrogateescape")
        for line in proc.stdout.split(b"\0")
        if line.startswith(b"160000 ") and b"\t" in line
    ]
    if proc.returncode == 0:
        write_cache(cache, dumps({"key": key, "paths": paths}))
    return [f"{top}/{p}" for p in paths]
