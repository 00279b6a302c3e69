"""Credential files inside the folders the project's scan leaves out (``secretscan.SKIP_DIRS``:
``.venv``, ``node_modules``, caches), for the room to mask them too (issue 32 item 3: one scan
scope for the guard and the room; docs/decisions.md "One scan scope for the guard and the room").

An exact answer, kept as git keeps its index (``~/.cache/agents-state/vendor-<key>.bin``, where
no room can write): every folder of those trees with its modification time (ns), and the
credential files found.  A file created, removed or renamed changes its folder's time, so each
call ``stat``s the remembered folders and lists again only the changed ones (a new subfolder is
listed too, a folder gone is forgotten with everything under it).  Timestamps are coarse (the
kernel's clock lags, some file systems keep seconds), so a folder whose time is not older than
its listing by ``scancache._SETTLED_NS`` is "racy" and listed again on the next call, as git
treats a file as new as its index.  Files are found by name (the catalogue), so a changed
content needs nothing; a file is also found when it is another name (a hard link) of a
credential file found in the home folder or the project (not every linked file: a pnpm store
links every file of ``node_modules``).

A walk cut short by the deadline denies the call (fail closed) but keeps what it listed: the
folders not yet listed are remembered as racy, so the next call goes on from there.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = ["vendor_secrets"]


class _Scan:
    """The remembered folders (relative path -> time), the credential files found in each,
    the racy ones, and how to list a folder."""

    def __init__(self, root: str, home: str, known: Iterable[str]) -> None:
        self.root, self.home, self.known = root, home, known
        self.dirs: dict[str, int] = {}
        self.found: dict[str, list[str]] = {}
        self.racy: set[str] = set()
        self.start = time.time_ns()
        self.listed: set[tuple[int, int]] = set()  # folders listed in this call (links)
        self.count = 0
        self._maybe: Callable[[str, str], bool] | None = None
        self._inodes: set[int] | None = None
        self._kids: dict[str, set[str]] | None = None
        self.known_files: set[tuple[int, int]] = set()

    def kids(self) -> dict[str, set[str]]:
        """Each remembered folder's remembered subfolders, worked out when first needed (a
        call that lists nothing never pays for it)."""
        if self._kids is None:
            self._kids = {}
            for d in self.dirs:
                self._kids.setdefault(_parent(d), set()).add(d)
        return self._kids

    def forget(self, rel: str) -> None:
        """Drop ``rel`` and every folder under it."""
        kids = self.kids()
        kids.get(_parent(rel), set()).discard(rel)
        stack = [rel]
        while stack:
            sub = stack.pop()
            self.dirs.pop(sub, None)
            self.found.pop(sub, None)
            self.racy.discard(sub)
            stack += kids.pop(sub, ())

    def list_all(self, queue: list[str], deadline: float) -> None:
        """List every folder of ``queue`` (each already recorded), and every new subfolder
        met.  Past ``deadline`` the folders left are remembered as racy (listed next call)
        and ``WalkCapError`` is raised; past ``SCAN_CAP`` entries too."""
        from agents_state.hooks.scancache import SCAN_CAP
        from agents_state.hooks.walk import WalkCapError

        while queue:
            rel = queue.pop()
            if rel in self.dirs:
                queue += self.list_one(rel)
            if self.count > SCAN_CAP:
                raise WalkCapError(f"{self.root}/{rel}", SCAN_CAP)
            if queue and time.monotonic() > deadline:  # after one folder: every call moves on
                self.racy.update(queue)
                raise WalkCapError(f"{self.root}/{queue[-1]}", self.count, timed_out=True)

    def list_one(self, rel: str) -> list[str]:
        """List one recorded folder: its files judged, a new subfolder recorded (and given
        back, to be listed), a subfolder gone forgotten."""
        from agents_state.hooks.walk import VCS_DIRS

        self.found.pop(rel, None)
        try:
            st = os.stat(f"{self.root}/{rel}")
            if (st.st_dev, st.st_ino) in self.listed:
                return []  # another name of a folder listed in this call
            self.listed.add((st.st_dev, st.st_ino))
            entries = list(os.scandir(f"{self.root}/{rel}"))
        except OSError:
            self.forget(rel)
            return []
        self.count += len(entries)
        new, subs = [], set()
        for entry in entries:
            sub = f"{rel}/{entry.name}"
            try:
                is_dir = entry.is_dir()  # follows a link, as the project's walk does
            except OSError:
                is_dir = False
            if not is_dir:
                self.judge(sub, entry)
            elif entry.name not in VCS_DIRS:
                subs.add(sub)
                if sub not in self.dirs and self.record(sub):
                    new.append(sub)
        for gone in self.kids().get(rel, set()) - subs:
            self.forget(gone)
        return new

    def record(self, rel: str) -> bool:
        """Remember ``rel``'s time, taken before it is listed."""
        try:
            mtime = os.stat(f"{self.root}/{rel}").st_mtime_ns
        except OSError:
            self.forget(rel)
            return False
        if rel not in self.dirs:
            self.kids().setdefault(_parent(rel), set()).add(rel)
        self.dirs[rel] = mtime
        if mtime >= self.start - _settled_ns():
            self.racy.add(rel)  # may change again within its time's grain: listed next call
        else:
            self.racy.discard(rel)
        return True

    def judge(self, rel: str, entry: os.DirEntry[str]) -> None:
        from agents_state.credentials import credential_entry

        if self._maybe is None:
            from agents_state.hooks.scancache import _prefilter

            self._maybe = _prefilter(self.root, self.home)
        path = f"{self.root}/{rel}"
        hit = bool(self._maybe(rel, entry.name) and credential_entry(path, self.home))
        if not hit and entry.inode() in self.inodes():  # the listing's inode: no stat
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                return
            hit = (st.st_dev, st.st_ino) in self.known_files
        if hit and os.path.exists(path):
            folder = rel.rsplit("/", 1)[0]
            self.found.setdefault(folder, []).append(os.path.realpath(path))

    def inodes(self) -> set[int]:
        """The credential files' inode numbers (those ``known`` and the files directly inside
        a known folder), worked out on the first file judged."""
        if self._inodes is None:
            for path in self.known:
                for one in _files(path):
                    try:
                        st = os.stat(one)
                    except OSError:
                        continue
                    self.known_files.add((st.st_dev, st.st_ino))
            self._inodes = {ino for _, ino in self.known_files}
        return self._inodes


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _settled_ns() -> int:
    from agents_state.hooks.scancache import _SETTLED_NS

    return _SETTLED_NS


def _files(path: str) -> list[str]:
    if not os.path.isdir(path):
        return [path]
    try:
        return [e.path for e in os.scandir(path) if e.is_file()]
    except OSError:
        return []


def vendor_secrets(
    root: str, home: str, vendors: list[str], known: Iterable[str], deadline: float
) -> list[str]:
    """The credential files (real paths) inside the folders ``vendors`` (relative to the
    project ``root``) that the project's scan left out; ``known``: the credential files found
    elsewhere (their other names here are credentials too).  Raises ``WalkCapError`` when they
    cannot be listed by ``deadline`` (``time.monotonic()``, the call's, shared with the
    project's scan: the hook's own timeout is twice the walk's)."""
    from agents_state.hooks.vendorcache import cache_path, load, save
    from agents_state.hooks.walk import WalkCapError

    if not vendors:
        return []
    scan = _Scan(root, home, known)
    cache = cache_path(root, home, "vendor")
    old = load(cache, root, home) if cache else None
    trees: list[str] = []
    if old is not None:
        trees, scan.dirs, scan.found, scan.racy = old
    queue = _changed(scan, trees, vendors)
    changed = bool(queue) or trees != vendors or old is None
    try:
        scan.list_all(queue, deadline)
    except WalkCapError:
        if cache:
            save(cache, root, home, vendors, scan)  # what was listed, for the next call
        raise
    if cache and changed:
        save(cache, root, home, vendors, scan)
    return [f for files in scan.found.values() for f in files]


def _changed(scan: _Scan, trees: list[str], vendors: list[str]) -> list[str]:
    """The folders to list: every remembered folder whose time changed or that is racy (each
    recorded again), and the trees not remembered; a tree no longer left out is forgotten."""
    for top in set(trees) - set(vendors):
        scan.forget(top)
    root, dirs = scan.root, scan.dirs
    changed = set(scan.racy)
    for rel, mtime in dirs.items():
        try:
            if os.stat(f"{root}/{rel}").st_mtime_ns == mtime:
                continue
        except OSError:
            pass
        changed.add(rel)
    changed.update(top for top in vendors if top not in dirs)
    # deepest last: a folder popped first is the shallowest, so one gone takes its subfolders
    queue = sorted(changed, key=lambda r: (-r.count("/"), r))
    return [rel for rel in queue if scan.record(rel)]
