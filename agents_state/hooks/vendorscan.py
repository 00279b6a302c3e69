"""Credential files inside the folders the project's scan leaves out (``secretscan.SKIP_DIRS``:
``.venv``, ``node_modules``, caches), for the room to mask them too (issue 32 item 3: one scan
scope for the guard and the room; docs/decisions.md "One scan scope for the guard and the room").

An exact answer, kept as git keeps its index (``~/.cache/agents-state/vendor-<key>.json``, where
no room can write): every folder of those trees with its modification time (ns), and the
credential files found in each.  A file created, removed or renamed changes its folder's time,
so each call ``stat``s the remembered folders and lists again only the changed ones (a new
subfolder is walked whole, a folder gone is forgotten with everything under it).  Timestamps are
coarse (the kernel's clock lags, some file systems keep seconds), so a folder whose time is not
older than its listing by ``secretscan._SETTLED_NS`` is "racy" and listed again on the next call,
as git treats a file as new as its index.  Files are found by name (the catalogue), so a changed
content needs nothing; a name with more than one link is a credential when it is another name
of a credential file found in the home folder or the project (not every linked file: a pnpm
store links every file of ``node_modules``).  No answer, or one the walk's cap or deadline cuts
short, denies the call (fail closed).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

__all__ = ["vendor_secrets"]


class _Scan:
    """The remembered folders (relative path -> time, credential files) and how to list one."""

    def __init__(self, root: str, home: str, known: Iterable[str], deadline: float) -> None:
        self.root, self.home, self.known, self.deadline = root, home, known, deadline
        self.dirs: dict[str, int] = {}
        self.found: dict[str, list[str]] = {}
        self.racy: set[str] = set()
        self.start = time.time_ns()
        self._maybe: Callable[[str, str], bool] | None = None
        self._inodes: set[tuple[int, int]] | None = None

    def forget(self, rel: str) -> None:
        """Drop ``rel`` and every folder under it."""
        prefix = f"{rel}/"
        for sub in [d for d in self.dirs if d == rel or d.startswith(prefix)]:
            del self.dirs[sub]
            self.found.pop(sub, None)
            self.racy.discard(sub)

    def walk(self, top: str) -> None:
        """Record ``top`` and every folder under it, with the credential files of each."""
        from agents_state.hooks.secretscan import SCAN_CAP
        from agents_state.hooks.walk import walk

        if not self.record(top):
            return

        def record(sub: str) -> bool:
            self.record(f"{top}/{sub}")  # its time before it is listed
            return False

        for sub, entry, _linked in walk(f"{self.root}/{top}", SCAN_CAP, record, self.deadline):
            self.judge(f"{top}/{sub}", entry)

    def relist(self, rel: str) -> None:
        """List one changed folder again: its files judged, a new subfolder walked whole, a
        subfolder gone forgotten."""
        from agents_state.hooks.walk import VCS_DIRS, WalkCapError

        if not self.record(rel):
            self.forget(rel)
            return
        self.found.pop(rel, None)
        try:
            entries = list(os.scandir(f"{self.root}/{rel}"))
        except OSError:
            return
        if time.monotonic() > self.deadline:
            raise WalkCapError(f"{self.root}/{rel}", len(self.dirs), timed_out=True)
        subs = set()
        for entry in entries:
            sub = f"{rel}/{entry.name}"
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                self.judge(sub, entry)
            elif entry.name not in VCS_DIRS:
                subs.add(sub)
                if sub not in self.dirs:
                    self.walk(sub)
        prefix = f"{rel}/"
        for gone in [d for d in self.dirs if d.startswith(prefix) and "/" not in d[len(prefix) :]]:
            if gone not in subs:
                self.forget(gone)

    def record(self, rel: str) -> bool:
        try:
            st = os.stat(f"{self.root}/{rel}")
        except OSError:
            return False
        self.dirs[rel] = st.st_mtime_ns
        if st.st_mtime_ns >= self.start - _settled_ns():
            self.racy.add(rel)  # may change again within its time's grain: listed next call
        else:
            self.racy.discard(rel)
        return True

    def judge(self, rel: str, entry: os.DirEntry[str]) -> None:
        from agents_state.credentials import credential_entry

        if self._maybe is None:
            from agents_state.hooks.secretscan import _prefilter

            self._maybe = _prefilter(self.root, self.home)
        path = f"{self.root}/{rel}"
        hit = bool(self._maybe(rel, entry.name) and credential_entry(path, self.home))
        if not hit:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return
            hit = st.st_nlink > 1 and (st.st_dev, st.st_ino) in self.inodes()
        if hit and os.path.exists(path):
            folder = rel.rsplit("/", 1)[0]
            self.found.setdefault(folder, []).append(os.path.realpath(path))

    def inodes(self) -> set[tuple[int, int]]:
        """The credential files' inodes (those ``known`` and the files directly inside a known
        folder), asked only when a linked file is met."""
        if self._inodes is None:
            self._inodes = set()
            for path in self.known:
                for one in _files(path):
                    try:
                        st = os.stat(one)
                    except OSError:
                        continue
                    self._inodes.add((st.st_dev, st.st_ino))
        return self._inodes


def _settled_ns() -> int:
    from agents_state.hooks.secretscan import _SETTLED_NS

    return _SETTLED_NS


def _files(path: str) -> list[str]:
    if not os.path.isdir(path):
        return [path]
    try:
        return [e.path for e in os.scandir(path) if e.is_file()]
    except OSError:
        return []


def vendor_secrets(root: str, home: str, vendors: list[str], known: Iterable[str]) -> list[str]:
    """The credential files (real paths) inside the folders ``vendors`` (relative to the
    project ``root``) that the project's scan left out; ``known``: the credential files found
    elsewhere (their other names here are credentials too).  Raises ``WalkCapError`` when they
    cannot be walked in time."""
    from agents_state.hooks.walk import WALK_SECONDS

    if not vendors:
        return []
    scan = _Scan(root, home, known, time.monotonic() + WALK_SECONDS)
    cache = _cache_path(root, home)
    old = _load(cache, root, home) if cache else None
    changed = old is None
    if old is not None:
        scan.dirs, scan.found, scan.racy = old
        changed = _update(scan, vendors)
    else:
        for top in vendors:
            scan.walk(top)
    if cache and changed:
        _save(cache, root, home, scan)
    return [f for files in scan.found.values() for f in files]


def _update(scan: _Scan, vendors: list[str]) -> bool:
    """Check every remembered folder's time and list the changed ones again; ``True`` when
    the answer changed."""
    dirs = scan.dirs
    tops = set(vendors)
    stale = [d for d in dirs if not any(d == t or d.startswith(f"{t}/") for t in tops)]
    for rel in stale:
        scan.forget(rel)  # a tree no longer left out by the project's scan (or gone)
    changed: list[str] = sorted(scan.racy)
    root = scan.root
    for rel, mtime in dirs.items():
        try:
            if os.stat(f"{root}/{rel}").st_mtime_ns == mtime:
                continue
        except OSError:
            pass
        changed.append(rel)
    for top in vendors:
        if top not in dirs:
            changed.append(top)
    done: set[str] = set()
    for rel in sorted(set(changed)):  # parents first: a folder gone takes its subfolders along
        if rel in done or (rel not in dirs and rel not in tops):
            continue
        if rel in tops and rel not in dirs:
            scan.walk(rel)
        else:
            scan.relist(rel)
        done.add(rel)
    return bool(stale or changed)


def _cache_path(root: str, home: str) -> str | None:
    from zlib import crc32

    from agents_state.hooks.secretscan import cache_dir

    folder = os.path.realpath(cache_dir())
    if f"{folder}/".startswith(f"{root}/"):
        return None  # the room could write it
    key = crc32(f"{root}\0{home}".encode("utf-8", "surrogateescape"))
    return os.path.join(folder, f"vendor-{key:08x}.json")


def _load(
    cache: str, root: str, home: str
) -> tuple[dict[str, int], dict[str, list[str]], set[str]] | None:
    from agents_state.hooks.hookjson import loads

    try:
        with open(cache, "rb") as f:
            data: Any = loads(f.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("root") != root or data.get("home") != home:
        return None
    names, times, found, racy = (data.get(k) for k in ("dirs", "times", "found", "racy"))
    if not (isinstance(names, list) and isinstance(times, list) and len(names) == len(times)):
        return None
    if not isinstance(found, dict) or not isinstance(racy, list):
        return None
    if not all(isinstance(t, int) for t in times) or not all(isinstance(n, str) for n in names):
        return None
    files = {k: v for k, v in found.items() if isinstance(v, list)}
    if not all(isinstance(f, str) for v in files.values() for f in v):
        return None
    return dict(zip(names, times, strict=True)), files, {r for r in racy if isinstance(r, str)}


def _save(cache: str, root: str, home: str, scan: _Scan) -> None:
    from agents_state.hooks.hookjson import dumps
    from agents_state.hooks.secretscan import write_cache

    data = {
        "root": root,
        "home": home,
        "dirs": list(scan.dirs),
        "times": list(scan.dirs.values()),
        "found": {k: v for k, v in scan.found.items() if v},
        "racy": sorted(scan.racy),
    }
    write_cache(cache, dumps(data))  # if it fails: walked again next time
