"""What a commit of the engine takes (issue 33): the change, not what running it left behind.

Every commit the engine makes in a worktree (a task's, the integration worktree's after a phase)
takes the tracked changes and the new files git does not ignore, minus what no change of a task
is: a built-in list of generated files (bytecode, caches, build and coverage output, editor
files), the credential catalogue (``agents_state.credentials``: ``.env*``, keys ...) and the
configured ``FINAL.git.excludePatterns``.  What is left out stays in the worktree, uncommitted,
and is named to the caller.  A project that does not ignore ``__pycache__/`` no longer gets its
bytecode committed (two tasks importing one module then conflicted on it).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from agents_state.gitwork.git import Git

__all__ = [
    "GENERATED_DIRS",
    "GENERATED_FILES",
    "Staged",
    "drop_committed",
    "left_out",
    "stage_clean",
]

# folders whose whole content is generated (a path with one of them as a folder is left out)
GENERATED_DIRS = (
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    "build",
    "dist",
    "htmlcov",
    "coverage",
    ".nyc_output",
    "node_modules",
    ".idea",
    ".vscode",
)
# file names (globs) that are generated, whatever their folder
GENERATED_FILES = (
    "*.pyc",
    "*.pyo",
    "*$py.class",
    ".coverage",
    ".coverage.*",
    "coverage.xml",
    "*.swp",
    "*.swo",
    "*~",
    ".DS_Store",
    "Thumbs.db",
    "*.orig",
)


class Staged(NamedTuple):
    """What a clean commit did: whether it made one, the new files it took and the paths it
    left out (with why)."""

    made: bool
    new: list[str]
    left: list[tuple[str, str]]


def left_out(path: str, excludes: Sequence[str]) -> str | None:
    """Why ``path`` (relative to the worktree, ``/`` separated) is no part of a commit, or None:
    ``generated``, ``credential`` or ``excluded`` (by ``excludePatterns``)."""
    parts = path.split("/")
    if any(fnmatch.fnmatchcase(d, g) for d in parts[:-1] for g in GENERATED_DIRS):
        return "generated"
    if any(fnmatch.fnmatchcase(parts[-1], g) for g in GENERATED_FILES):
        return "generated"
    from agents_state.credentials import credential_entry

    if credential_entry("/" + path, home="") is not None:
        return "credential"
    if excludes and _excluded(path, excludes):
        return "excluded"
    return None


def _excluded(path: str, patterns: Sequence[str]) -> bool:
    import re

    from agents_state.globs import glob_regex

    name = path.rsplit("/", 1)[-1]
    for pattern in patterns:
        p = pattern.strip().lstrip("/")
        if not p:
            continue
        if p.endswith("/"):
            p += "**"
        target = path if "/" in p else name  # a bare name matches in any folder (as gitignore)
        if re.fullmatch(glob_regex(p), target, re.S):
            return True
    return False


def _changes(g: Git) -> list[tuple[str, str]]:
    """(XY status, path) of every change ``git status`` shows (untracked files one by one)."""
    raw = g.run("status", "--porcelain=v1", "-z", "--untracked-files=all").stdout
    fields = raw.split("\0")
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        xy, path = entry[:2], entry[3:]
        out.append((xy, path))
        if xy[0] in "RC" and i < len(fields):  # a staged rename: its source follows
            out.append((xy, fields[i]))
            i += 1
    return out


def _each(g: Git, cmd: tuple[str, ...], paths: list[str]) -> None:
    """``git <cmd> -- <paths>``, the paths literal (no pathspec magic), a thousand at a time."""
    for i in range(0, len(paths), 1000):
        g.run(*cmd, "--", *(f":(literal){p}" for p in paths[i : i + 1000]))


def stage_clean(g: Git, excludes: Sequence[str]) -> Staged:
    """Stage the worktree's changes but the left-out ones (unstaging those an agent staged)."""
    keep: list[str] = []
    new: list[str] = []
    left: list[tuple[str, str]] = []
    staged_out: list[str] = []
    for xy, path in _changes(g):
        why = left_out(path, excludes)
        if why is None:
            keep.append(path)
            if xy == "??" or xy[0] == "A":
                new.append(path)
            continue
        left.append((path, why))
        if xy[0] not in " ?":
            staged_out.append(path)
    if staged_out:
        _each(g, ("reset", "--quiet"), staged_out)
    if keep:
        _each(g, ("add", "-A"), keep)
    return Staged(False, sorted(set(new)), sorted(set(left)))


DROP_MESSAGE = "agents-state: leave out generated, credential and excluded files"


def drop_committed(g: Git, since: str, excludes: Sequence[str]) -> list[str]:
    """Files added since ``since`` that no commit takes but an agent committed itself (``git
    add -A && git commit`` in its worktree): removed from the branch in one more commit, kept
    in the worktree; the paths."""
    raw = g.run("diff", "--name-only", "-z", "--no-renames", "--diff-filter=A", since, "HEAD")
    gone = [p for p in raw.stdout.split("\0") if p and left_out(p, excludes) is not None]
    if gone:
        _each(g, ("rm", "-r", "--cached", "--quiet", "--ignore-unmatch"), gone)
        g.run("commit", "--quiet", "--no-verify", "-m", DROP_MESSAGE)
    return gone
