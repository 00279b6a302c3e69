"""The remembered answer of ``vendorscan``, in a file read on every contained call of a guarded
profile: a JSON header line (the project, the home folder, the trees, the credential files
found by folder, the racy folders, the byte length of the names), then every folder's path
relative to the project, ``\\0``-separated, then their times as 64-bit integers.  Tens of
thousands of folders load in a few C calls (no JSON list of pairs to walk and check).  It lives
in ``scancache.cache_dir()``, never under the project (where a room could write it).
"""

from __future__ import annotations

import os
from array import array

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class _Answer(Protocol):  # vendorscan._Scan, without importing it back
        dirs: dict[str, int]
        found: dict[str, list[str]]
        racy: set[str]


__all__ = ["cache_path", "load", "save"]


def cache_path(root: str, home: str, kind: str) -> str | None:
    """The file of ``root``'s answer, or ``None`` when it would lie where the room writes."""
    from zlib import crc32

    from agents_state.hooks.scancache import cache_dir

    folder = os.path.realpath(cache_dir())
    if f"{folder}/".startswith(f"{root}/"):
        return None  # the room could write it
    key = crc32(f"{root}\0{home}".encode("utf-8", "surrogateescape"))
    return os.path.join(folder, f"{kind}-{key:08x}.bin")


def load(
    path: str, root: str, home: str
) -> tuple[list[str], dict[str, int], dict[str, list[str]], set[str]] | None:
    """``(trees, folder -> time, folder -> credential files, racy folders)``, or ``None``
    for a missing, damaged or foreign file (then everything is listed again)."""
    from agents_state.hooks.hookjson import loads

    try:
        with open(path, "rb") as f:
            data = f.read()
        end = data.index(b"\n")
        head = loads(data[:end])
    except (OSError, ValueError):
        return None
    if not isinstance(head, dict) or head.get("root") != root or head.get("home") != home:
        return None
    trees, found, racy, size = (head.get(k) for k in ("trees", "found", "racy", "size"))
    if not (isinstance(trees, list) and isinstance(found, dict) and isinstance(racy, list)):
        return None
    if not isinstance(size, int) or not all(isinstance(t, str) for t in trees):
        return None
    if not all(isinstance(v, list) and all(isinstance(f, str) for f in v) for v in found.values()):
        return None
    blob, rest = data[end + 1 : end + 1 + size], data[end + 1 + size :]
    times = array("q")
    try:
        times.frombytes(rest)
    except ValueError:
        return None
    names = blob.decode("utf-8", "surrogateescape").split("\0") if blob else []
    if len(blob) != size or len(names) != len(times):
        return None
    return (
        trees,
        dict(zip(names, times, strict=True)),
        found,
        {r for r in racy if isinstance(r, str)},
    )


def save(path: str, root: str, home: str, trees: list[str], scan: _Answer) -> None:
    """Write the answer whole (``scancache.write_cache``); if that fails, the next call lists
    everything again."""
    from agents_state.hooks.hookjson import dumps
    from agents_state.hooks.scancache import write_cache

    blob = "\0".join(scan.dirs).encode("utf-8", "surrogateescape")
    head = {
        "root": root,
        "home": home,
        "trees": trees,
        "found": {k: v for k, v in scan.found.items() if v},
        "racy": sorted(scan.racy),
        "size": len(blob),
    }
    times = array("q", scan.dirs.values())
    write_cache(path, dumps(head).replace(b"\n", b" ") + b"\n" + blob + times.tobytes())
