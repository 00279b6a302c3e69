"""Where the credential files are, for the sandbox to mask them (``hooks.sandbox``, issue 23).

The project is walked (dependency and cache folders left out) and each file whose name could be
in the catalogue is asked about (``credentials.credential_entry``); the home folder contributes
its catalogue paths and its names, one level into its hidden folders and ``~/.config/*``, and
``$CLAUDE_CONFIG_DIR``'s (the host's login lives there when it is set).  Hard links in the
project to a credential file are found by a second walk, only when such a file has more than
one link.

A project's answer is remembered (``~/.cache/agents-state/scan-*.json``) with the modification
time of every folder walked: a file created, removed or renamed changes its folder's time, so
the next call checks those times (one ``stat`` per folder) instead of listing every file.  A
folder changed within the last two seconds is not trusted to have a settled time, and the
answer is then not remembered; nor is it when the cache would lie where the room can write.
The folders left out are named in that answer, and ``vendorscan`` finds the credential files
inside them (one scan scope for the guard and the room, issue 32).
"""

from __future__ import annotations

import os
import time

from agents_state.hooks.scancache import _SETTLED_NS, SCAN_CAP, _prefilter, cache_dir, write_cache
from agents_state.hooks.walk import walk

__all__ = ["SCAN_CAP", "SKIP_DIRS", "cache_dir", "find_secrets", "write_cache"]

# folders the scan of the project does not enter: other people's code, caches, builds
SKIP_DIRS = frozenset(
    {
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".cache",
    }
)
HOME_CAP = 5_000  # names looked at in the home folder on each call
# hidden folders of the home folder that hold caches, packages and toolchains, not tokens
HOME_SKIP = frozenset(
    {".cache", ".local", ".npm", ".cargo", ".rustup", ".nvm", ".pyenv", ".git", ".vscode",
     ".vscode-server", ".m2", ".gradle", ".pnpm-store", ".yarn", ".bun", ".deno", ".conda"}
)  # fmt: skip


def find_secrets(root: str, home: str) -> list[str]:
    """Every credential file or folder of the catalogue in the project and the home directory,
    and the project's hard links to them (real paths).  Raises ``WalkCapError`` past
    ``SCAN_CAP``."""
    from agents_state.credentials import credential_entry, home_entries  # not for a writer's room
    from agents_state.hooks.walk import WALK_SECONDS

    deadline = time.monotonic() + WALK_SECONDS  # the project's scan and the skipped folders'
    found: dict[str, None] = {}
    for rel in home_entries():
        path = os.path.join(home, rel)
        if os.path.exists(path):
            found[os.path.realpath(path)] = None
    for path in _home_names(home):
        if credential_entry(path, home) and os.path.exists(path):
            found[os.path.realpath(path)] = None
    from agents_state.hooks.vendorscan import vendor_secrets

    cache = _cache_path(root, home)
    remembered = _remembered(cache, root, home) if cache else None
    if remembered is None:
        remembered = _scan(root, home, cache)
    files, vendors = remembered
    found.update(dict.fromkeys(files))
    found.update(dict.fromkeys(vendor_secrets(root, home, vendors, list(found), deadline)))
    return list(found)


def _home_names(home: str) -> list[str]:
    """The home folder's names, and one level into its hidden folders and ``~/.config/*``
    (tools keep their tokens there) and ``$CLAUDE_CONFIG_DIR``; caches and toolchains left out,
    ``HOME_CAP`` names at most."""
    out: list[str] = []
    config = os.environ.get("CLAUDE_CONFIG_DIR")  # the host's own folder, where it moved
    folders = [home, *([config] if config and os.path.isabs(config) else [])]
    seen = 0
    while folders and seen < HOME_CAP:
        folder = folders.pop(0)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        seen += len(names)
        for name in names:
            path = os.path.join(folder, name)
            out.append(path)
            nested = (folder == home and name.startswith(".")) or folder == f"{home}/.config"
            if nested and name not in HOME_SKIP and os.path.isdir(path):
                folders.append(path)
    return out


def _cache_path(root: str, home: str) -> str | None:
    from zlib import crc32  # hashlib costs 2-3 ms to import; the file names its root anyway

    folder = os.path.realpath(cache_dir())
    if f"{folder}/".startswith(f"{root}/"):
        return None  # the room could write it
    key = crc32(f"{root}\0{home}".encode("utf-8", "surrogateescape"))
    return os.path.join(folder, f"scan-{key:08x}.json")


def _remembered(cache: str, root: str, home: str) -> tuple[list[str], list[str]] | None:
    from agents_state.hooks.hookjson import loads

    try:
        with open(cache, "rb") as f:
            data = loads(f.read())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("root") != root or data.get("home") != home:
        return None
    dirs, files, vendors = data.get("dirs"), data.get("found"), data.get("vendors")
    if not isinstance(dirs, list) or not isinstance(files, list) or not isinstance(vendors, list):
        return None
    for entry in dirs:
        try:
            rel, mtime = entry
            if os.stat(f"{root}/{rel}" if rel else root).st_mtime_ns != mtime:
                return None
        except (OSError, TypeError, ValueError):
            return None
    if not all(isinstance(v, str) for v in vendors):
        return None
    return [f for f in files if isinstance(f, str)], vendors


def _scan(root: str, home: str, cache: str | None) -> tuple[list[str], list[str]]:
    """The project's credential files, and the folders left out (``SKIP_DIRS``)."""
    from agents_state.credentials import credential_entry

    start = time.time_ns()
    dirs: list[tuple[str, int]] = []
    vendors: list[str] = []

    def prune(rel: str) -> bool:
        if rel.rsplit("/", 1)[-1] in SKIP_DIRS:
            vendors.append(rel)  # walked by vendorscan
            return True
        try:
            dirs.append((rel, os.stat(f"{root}/{rel}").st_mtime_ns))  # before it is listed
        except OSError:
            pass
        return False

    try:
        dirs.append(("", os.stat(root).st_mtime_ns))
    except OSError:
        return [], []
    found: dict[str, None] = {}
    linked: set[tuple[int, int]] = set()
    outside: dict[tuple[int, int], str] = {}
    maybe = _prefilter(root, home)
    names: dict[tuple[int, int], list[str]] = {}  # files with more than one name
    for rel, entry, _linked in walk(root, SCAN_CAP, prune=prune):
        path = f"{root}/{rel}"
        try:
            if entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                if st.st_nlink > 1:
                    names.setdefault((st.st_dev, st.st_ino), []).append(path)
                    if len(names[st.st_dev, st.st_ino]) < st.st_nlink:
                        outside[st.st_dev, st.st_ino] = path
                    else:
                        outside.pop((st.st_dev, st.st_ino), None)
        except OSError:
            pass
        if maybe(rel, entry.name) and credential_entry(path, home):
            if not os.path.exists(path):
                continue  # a dangling link: nothing to read
            real = os.path.realpath(path)
            found[real] = None
            try:
                st = os.stat(real)
            except OSError:
                continue
            if st.st_nlink > 1:
                linked.add((st.st_dev, st.st_ino))
    # a file with a name outside the project (or in a folder not walked): its other name may be
    # a credential of the home folder (issue 32), so every name here reads empty
    for key in outside:
        found.update(dict.fromkeys(names[key]))
    if linked:  # other names of a credential file: a second walk, only when there are some
        inodes = {ino for _, ino in linked}
        for rel, entry, _linked in walk(root, SCAN_CAP, prune=_skipped):
            try:
                if entry.inode() not in inodes:
                    continue
                st = os.stat(f"{root}/{rel}")
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in linked:
                found[os.path.realpath(f"{root}/{rel}")] = None
    vendors.sort()
    if cache and all(m < start - _SETTLED_NS for _, m in dirs):
        _remember(cache, root, home, dirs, list(found), vendors)
    return list(found), vendors


def _remember(
    cache: str,
    root: str,
    home: str,
    dirs: list[tuple[str, int]],
    found: list[str],
    vendors: list[str],
) -> None:
    from agents_state.hooks.hookjson import dumps

    data = dumps(
        {
            "root": root,
            "home": home,
            "dirs": [list(d) for d in dirs],
            "found": found,
            "vendors": vendors,
        }
    )
    write_cache(cache, data)  # if it fails: scanned again next time


def _skipped(rel: str) -> bool:
    return rel.rsplit("/", 1)[-1] in SKIP_DIRS
