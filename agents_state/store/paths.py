"""Names and paths that can never escape ``.agents/``."""

from __future__ import annotations

import os
import re

from agents_state.errors import InvalidInputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "AGENTS_DIR",
    "BACKUP_FILE",
    "MAX_STATE_BYTES",
    "check_inside",
    "find_root_dir",
    "safe_name",
]

AGENTS_DIR = ".agents"
BACKUP_FILE = f"{AGENTS_DIR}/state.json.bak"
MAX_STATE_BYTES = 64 * 1024 * 1024  # the largest state read or written
_NAME_RE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"  # compiled on first use (re's cache)


def safe_name(name: str, what: str, field: str = "name") -> str:
    """A single path component: no separators, no '..', no control characters.  Every name
    read from outside (an argument, a database row) passes here before it names a path."""
    if not re.match(_NAME_RE, name) or ".." in name:
        shown = name.encode("unicode_escape").decode("ascii")
        raise InvalidInputError(
            what,
            field,
            f"{shown!r} is not allowed; use letters, digits, "
            "'.', '_' and '-' only (no '/', '..' or absolute paths)",
        )
    return name


def check_inside(root: Path | str, path: Path | str, shown: str) -> None:
    """Refuse a path (or a symlink on the way) that resolves outside the root.  Plain strings
    (``os.path``): the hot commands never load ``pathlib`` (docs/performance.md)."""
    try:
        resolved = os.path.realpath(path)
        base = os.path.realpath(root)
        _no_loop(resolved)
    except OSError as e:
        raise InvalidInputError(shown, "", f"cannot be resolved: {e.strerror}") from None
    if os.path.commonpath([resolved, base]) != base:
        raise InvalidInputError(
            shown,
            "",
            f"resolves outside the project ({resolved}); "
            "a symbolic link out of the tree is refused",
        )


def _no_loop(resolved: str) -> None:
    """``realpath`` leaves a symbolic link loop unresolved and says nothing: ``stat`` tells."""
    import errno

    try:
        os.stat(resolved)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise


def find_root_dir(explicit: str | None, cwd: str | None = None) -> str:
    """``--root`` / ``AGENTS_STATE_ROOT``, else the nearest ancestor with ``.agents/``, else the
    working directory; a plain string (the hot commands never load ``pathlib``)."""
    from agents_state.regular import ancestors

    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    here = os.path.abspath(cwd or os.getcwd())
    return next((d for d in ancestors(here) if os.path.isdir(os.path.join(d, AGENTS_DIR))), here)
