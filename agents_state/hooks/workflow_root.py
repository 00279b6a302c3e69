"""Which workflow a tool call belongs to, for the PreToolUse check -- found so that it cannot be
dodged: the payload's ``cwd`` is one place to look, not the only one.

Looked at, in order: ``--root`` / ``AGENTS_STATE_ROOT`` (only that); else the nearest ancestors
of the payload ``cwd``, of ``CLAUDE_PROJECT_DIR`` and of the hook's own working directory that
hold ``.agents/state.json`` or an active chain in ``.agents/chains/``.  A ``.agents/`` folder
with neither (a nested empty one) does not hide the workflow above it.  The first workflow that
is active, or that cannot be read, decides.
"""

from __future__ import annotations

import os
import stat

from agents_state.hooks.hookjson import loads, loads_file
from agents_state.regular import CLOEXEC, NONBLOCK, ancestors, read_upto

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "NotRegularError",
    "Workflow",
    "find_workflow",
    "fresh_view",
    "read_regular",
    "read_workflow",
]

_MAX_STATE = 64 * 1024 * 1024
_DONE = ("completed", "complete", "done")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")


def _is_chain_id(stem: str) -> bool:
    """``[a-z]+-[0-9]+`` (chains.ops: ``.agents/chains/<name>-<n>.json``), without ``re``."""
    name, dash, number = stem.partition("-")
    return bool(dash and name and number) and _LOWER.issuperset(name) and _DIGITS.issuperset(number)


class Workflow:
    """The workflow a hook found: its root, whether it is active, and why its state could not be
    read (``problem``).  A plain class: ``dataclasses`` costs the hook about 7 ms to import."""

    __slots__ = ("active", "problem", "root")

    def __init__(self, root: str, active: bool, problem: str | None = None) -> None:
        self.root, self.active, self.problem = root, active, problem


class NotRegularError(OSError):
    pass


def read_regular(path: str, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a regular file, never blocking on a FIFO or a device
    (raises ``FileNotFoundError``, ``NotRegularError`` or another ``OSError``)."""
    fd = os.open(path, os.O_RDONLY | NONBLOCK | CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularError(f"{path} is not a regular file")
        return read_upto(fd, limit)
    finally:
        os.close(fd)


def read_workflow(root: str) -> Workflow | None:
    """The workflow under ``root`` -- its state, else an active chain -- or ``None`` when there
    is neither (issue 23: a folder with only chains runs sub-agents too)."""
    found = _read_state(root)
    if found is not None and found.active:
        return found
    return _active_chain(root) or found


def _active_chain(root: str) -> Workflow | None:
    """A chain in ``.agents/chains/`` that is neither completed nor aborted, or one that cannot
    be read (which fails closed); ``None`` when there is none."""
    folder = os.path.join(root, ".agents", "chains")
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        return Workflow(root, True, f"cannot list {folder} ({e.strerror or e})")
    for name in names:
        if not (name.endswith(".json") and _is_chain_id(name[:-5])):
            continue
        path = os.path.join(folder, name)
        try:
            data = loads_file(read_regular(path, _MAX_STATE))
        except FileNotFoundError:
            continue
        except ValueError as e:
            return Workflow(root, True, f"{path} is not valid JSON ({e})")
        except OSError as e:
            return Workflow(root, True, f"cannot read {path} ({e.strerror or e})")
        if not isinstance(data, dict):
            return Workflow(root, True, f"{path} holds a JSON {type(data).__name__}")
        if str(data.get("status", "")).strip().lower() not in ("completed", "aborted"):
            return Workflow(root, True)
    return None


def fresh_view(root: str) -> dict[str, Any] | None:
    """The hooks' view (``store.hookview``) of the workflow at ``root`` when it names the very
    ``state.json`` there; ``None`` (read the state itself) when it is missing, unreadable or
    stale."""
    try:
        raw = read_regular(os.path.join(root, ".agents", "hook-view.json"), 65536)
        st = os.stat(os.path.join(root, ".agents", "state.json"))
        view = loads_file(raw)
    except (OSError, ValueError):
        return None
    if not isinstance(view, dict) or view.get("state") != [
        st.st_dev,
        st.st_ino,
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
    ]:
        return None
    return view


def _from_view(root: str) -> Workflow | None:
    """The workflow from the hooks' view when it is fresh, else ``None``."""
    view = fresh_view(root)
    if view is None:
        return None
    status = str(view.get("status", "pending")).strip().lower()
    return Workflow(root, not (status in _DONE or view.get("aborted")))


def _read_state(root: str) -> Workflow | None:
    path = os.path.join(root, ".agents", "state.json")
    found = _from_view(root)
    if found is not None:
        return found
    try:
        raw = read_regular(path, _MAX_STATE)
    except FileNotFoundError:
        return None
    except NotRegularError:
        return Workflow(root, True, f"{path} is not a regular file")
    except OSError as e:
        return Workflow(root, True, f"cannot read {path} ({e.strerror or e})")
    if len(raw) > _MAX_STATE:
        return Workflow(root, True, f"{path} is larger than 64 MiB")
    try:
        data = loads_file(raw)
    except ValueError as e:
        return Workflow(root, True, f"{path} is not valid JSON ({e})")
    if not isinstance(data, dict):
        return Workflow(root, True, f"{path} holds a JSON {type(data).__name__}, not an object")
    status = str(data.get("status", "pending")).strip().lower()
    return Workflow(root, not (status in _DONE or data.get("abortedAt")))


def _nearest(start: str) -> Workflow | None:
    for here in ancestors(start):
        if os.path.lexists(os.path.join(here, ".agents")):
            found = read_workflow(here)
            if found is not None:
                return found
    return None


def _server_workflow(url: str, root: str) -> Workflow | None:
    """The workflow in the PostgreSQL store (issue 17); a server that cannot be read makes the
    workflow undecidable, which denies sub-agents' calls (fail closed), like an unreadable file."""
    try:
        from pathlib import Path

        from agents_state.store.pg import PgStore

        raw = PgStore(url, Path(root)).read_bytes()
        if raw is None:
            return None
        data = loads(raw)
    except Exception as e:
        reason = getattr(e, "message", None) or f"{type(e).__name__}: {e}"
        return Workflow(root, True, f"cannot read the workflow from the server ({reason})")
    if not isinstance(data, dict):
        return Workflow(root, True, "the server's workflow state is not a JSON object")
    status = str(data.get("status", "pending")).strip().lower()
    found = Workflow(root, not (status in _DONE or data.get("abortedAt")))
    return found if found.active else None


def find_workflow(explicit: str | None, payload_cwd: object) -> Workflow | None:
    """The workflow whose profiles apply, or ``None`` when no workflow is active."""
    chosen = explicit or os.environ.get("AGENTS_STATE_ROOT")
    url = os.environ.get("AGENTS_STATE_STORE", "")
    if url.startswith(("postgresql://", "postgres://")):  # the workflow is on the server
        where = chosen or (
            payload_cwd if isinstance(payload_cwd, str) and payload_cwd else os.getcwd()
        )
        return _server_workflow(url, os.path.abspath(os.path.expanduser(where)))
    if chosen:
        found = read_workflow(os.path.abspath(os.path.expanduser(chosen)))
        return found if found is not None and found.active else None
    starts: list[str] = []
    if isinstance(payload_cwd, str) and payload_cwd:
        starts.append(payload_cwd)
    project = os.environ.get("CLAUDE_PROJECT_DIR")
    if project:
        starts.append(project)
    try:
        starts.append(os.getcwd())
    except OSError:
        pass
    for start in dict.fromkeys(starts):
        found = _nearest(start)
        if found is not None and found.active:
            return found
    return None
