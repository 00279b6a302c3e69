"""What the engine's git may trust of what an agent could have written (issue 32, item 2).

Two checks, both before any git call they guard, both raising one line that names the file:

- ``check_git_info``: the state's ``git`` block (the state is a file an agent could forge)
  names the worktrees folder the engine uses (``.agents/worktrees``), an integration branch
  under the engine's prefix (``agents/``) and a commit id as its base; a task id names a folder
  directly in it.  Anything else: ``StateFileError`` (exit 5), nothing checked out.
- ``check_pointer``: a folder of ``.agents/worktrees/`` is a linked worktree the engine made: its
  ``.git`` is a regular file reading ``gitdir: <the repository's git dir>/worktrees/<name>``,
  that record's ``gitdir`` points back at it and its ``commondir`` at the repository's git dir.
  A task agent can write its worktree's ``.git`` file (``gitdir: .g`` with a config of its own
  under ``.g``), so git is never run there on the file's word.

No git runs here: the repository's git dir is found the way git would, by walking up from the
project to the first ``.git`` (a folder, or the user's own linked worktree's file).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from agents_state.errors import InvalidInputError, StateFileError

if TYPE_CHECKING:
    from agents_state.models import GitInfo

__all__ = ["WORKTREES", "check_git_info", "check_name", "check_pointer", "engine_worktree"]

WORKTREES = ".agents/worktrees"
_BRANCH = re.compile(r"agents/[A-Za-z0-9][A-Za-z0-9_-]{0,80}(\.[0-9]{1,6})?")
_BASE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_NAME = re.compile(r"_integration|[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_STATE = ".agents/state.json"
_FIX = "the engine never writes this: restore the state from a backup or start the workflow again"


def check_git_info(git: GitInfo) -> None:
    """Refuse a ``git`` block that points the engine anywhere but its own places."""
    if git.worktrees != WORKTREES:
        raise StateFileError(
            _STATE, "git.worktrees", f"is {git.worktrees!r}, not {WORKTREES!r}; {_FIX}"
        )
    if not _BRANCH.fullmatch(git.branch) or ".." in git.branch:
        raise StateFileError(
            _STATE, "git.branch", f"{git.branch!r} is not a branch under agents/; {_FIX}"
        )
    if not _BASE.fullmatch(git.base):
        raise StateFileError(_STATE, "git.base", f"{git.base!r} is not a commit id; {_FIX}")


def check_name(name: str) -> None:
    """A worktree's name is one folder of ``.agents/worktrees`` (a task id, or the engine's)."""
    if not _NAME.fullmatch(name) or name in (".", ".."):
        raise StateFileError(_STATE, "task id", f"{name!r} names no folder of {WORKTREES}")


def engine_worktree(path: Path) -> bool:
    """Whether ``path`` is a folder of a project's ``.agents/worktrees`` (the engine's)."""
    return path.parent.name == "worktrees" and path.parent.parent.name == ".agents"


def _repo_git_dir(project: Path) -> Path | None:
    """The git dir of the repository holding ``project``: the first ``.git`` above it (a
    folder; or the file of the user's own linked worktree, read to its common dir)."""
    for folder in (project, *project.parents):
        dot = folder / ".git"
        try:
            mode = os.lstat(dot).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            return Path(os.path.realpath(dot))
        try:
            record = folder / dot.read_text(encoding="utf-8").strip().removeprefix("gitdir: ")
            common = (record / "commondir").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return Path(os.path.realpath(record / common))
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _record_of(common: Path, dot: Path) -> Path | None:
    """git's record of the worktree whose ``.git`` is ``dot``: the folder of
    ``<common>/worktrees`` whose ``gitdir`` names it (what ``git worktree add`` wrote)."""
    try:
        names = sorted(os.listdir(common / "worktrees"))
    except OSError:
        return None
    want = os.path.realpath(dot)
    for name in names:
        back = _read(common / "worktrees" / name / "gitdir").strip()
        if back and os.path.realpath(back) == want:
            return common / "worktrees" / name
    return None


def check_pointer(path: Path) -> None:
    """Refuse a worktree of ``.agents/worktrees`` whose ``.git`` file (or git's record of it)
    is not what ``git worktree add`` wrote for it."""
    dot = path / ".git"
    common = _repo_git_dir(path.parent.parent.parent)
    record = _record_of(common, dot) if common is not None else None
    if common is None or record is None:
        raise InvalidInputError(
            str(dot),
            "",
            "git has no record of this worktree; the engine runs no git here (run: "
            "agents-state doctor)",
        )
    expected = f"gitdir: {record}"

    def refuse(what: str) -> InvalidInputError:
        return InvalidInputError(
            str(dot),
            "",
            f"{what}, not {expected!r} as the engine made it; restore that line (an agent "
            "must never edit this file) and run the command again",
        )

    try:
        st = os.lstat(dot)
    except OSError:
        raise refuse("is missing") from None
    if not stat.S_ISREG(st.st_mode):
        raise refuse("is not a regular file")
    line = _read(dot).strip()
    given = line[len("gitdir: ") :] if line.startswith("gitdir: ") else ""
    if not given or os.path.realpath(path / given) != os.path.realpath(record):
        raise refuse(f"reads {line[:120]!r}")
    shared = _read(record / "commondir").strip()
    if not shared or Path(os.path.realpath(record / shared)) != common:
        raise InvalidInputError(
            str(record / "commondir"),
            "",
            f"reads {shared[:120]!r}, which does not lead to {common}; restore it to '../..' "
            "(an agent must never edit git's records) and run the command again",
        )
