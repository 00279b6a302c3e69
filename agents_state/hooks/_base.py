"""What every hook handler needs: the payload, the root, the raw state, and safe output.

Plain dicts and ``os.path`` only: this is imported on every tool call (and what only some
handlers use is imported where they use it).
"""

from __future__ import annotations

import os
import sys

from agents_state.hooks.hookjson import dumps, loads, loads_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "PLUGIN_PREFIX",
    "active_facts",
    "active_state",
    "emit",
    "find_root",
    "is_ours",
    "parse_payload",
    "pg_store",
    "read_payload",
    "warn",
]

PLUGIN_PREFIX = "subagents:"


def is_ours(agent_type: Any) -> bool:
    """A sub-agent of this plugin (``subagents:<name>``); ``""`` is the ``/compact`` summariser."""
    return (
        isinstance(agent_type, str)
        and agent_type.startswith(PLUGIN_PREFIX)
        and len(agent_type) > len(PLUGIN_PREFIX)
    )


def warn(message: str) -> None:
    sys.stderr.write(f"agents-state: warning: {message}\n")


def emit(data: dict[str, Any]) -> None:
    sys.stdout.buffer.write(dumps(data) + b"\n")
    sys.stdout.flush()


def parse_payload() -> tuple[dict[str, Any] | None, bytes, str | None]:
    """The hook's stdin: ``(object, raw, None)``; ``(None, raw, problem)`` when it is not a JSON
    object; ``(None, b"", None)`` after a warning when there is nothing to read."""
    try:
        raw = sys.stdin.buffer.read()
    except (OSError, ValueError) as e:
        warn(f"could not read the hook input ({e}); allowing")
        return None, b"", None
    if not raw.strip():
        warn("empty hook input on stdin (expected Claude Code's hook JSON); allowing")
        return None, b"", None
    try:
        data = loads(raw)
    except ValueError as e:
        return None, raw, f"is not JSON ({e})"
    if not isinstance(data, dict):
        return None, raw, f"is a JSON {type(data).__name__}, not an object"
    return data, raw, None


def read_payload() -> dict[str, Any] | None:
    """The hook's JSON object from stdin, or ``None`` after a warning."""
    data, _raw, problem = parse_payload()
    if problem is not None:
        warn(f"hook input {problem}; allowing")
    return data


def pg_store(root: str) -> Any:
    """The PostgreSQL store when ``AGENTS_STATE_STORE`` names one (issue 17), else ``None``."""
    if not os.environ.get("AGENTS_STATE_STORE"):  # store.api loads typing: not for nothing
        return None
    from agents_state.store.api import pg_from_env

    return pg_from_env(root)


def find_root(explicit: str | None, payload: dict[str, Any]) -> str | None:
    """``--root`` / ``AGENTS_STATE_ROOT``, else the nearest ancestor of the payload's ``cwd``
    (or the process cwd) that has ``.agents/``; ``None`` if there is none.  With a PostgreSQL
    store (no ``.agents/`` needed) the root is that directory or the ``cwd``."""
    chosen = explicit or os.environ.get("AGENTS_STATE_ROOT")
    if os.environ.get("AGENTS_STATE_STORE", "").startswith(("postgresql://", "postgres://")):
        cwd = payload.get("cwd")
        return os.path.abspath(
            os.path.expanduser(chosen or (cwd if isinstance(cwd, str) and cwd else os.getcwd()))
        )
    if chosen:
        chosen = os.path.abspath(os.path.expanduser(chosen))
        return chosen if os.path.isdir(os.path.join(chosen, ".agents")) else None
    from agents_state.regular import ancestors

    cwd = payload.get("cwd")
    start = cwd if isinstance(cwd, str) and cwd else os.getcwd()
    return next((d for d in ancestors(start) if os.path.isdir(os.path.join(d, ".agents"))), None)


def active_facts(root: str) -> dict[str, Any] | None:
    """What the hooks read of an active workflow's state (``store.hookview.facts``: status,
    current phase, start time, isolation, who holds which task), else ``None``.  From the hooks'
    view when it names the very ``state.json`` (issue 35: the same cost at 10 tasks and at
    10,000), else from the state itself (``active_state``)."""
    if not pg_store_named():
        from agents_state.hooks.workflow_root import fresh_view

        view = fresh_view(root)
        if view is not None:
            status = str(view.get("status", "pending")).strip().lower()
            done = status in ("completed", "complete", "done") or view.get("aborted")
            return None if done else view
    state = active_state(root)
    if state is None:
        return None
    from agents_state.store.hookview import facts

    return facts(state)


def pg_store_named() -> bool:
    """``AGENTS_STATE_STORE`` names a PostgreSQL store (the state is a row, not a file)."""
    return os.environ.get("AGENTS_STATE_STORE", "").startswith(("postgresql:", "postgres:"))


def active_state(root: str) -> dict[str, Any] | None:
    """The raw state if a workflow is active (unfinished, not aborted), else ``None``."""
    from agents_state.store.fsops import read_regular

    path = os.path.join(root, ".agents", "state.json")
    try:
        pg = pg_store(root)
        if pg is not None:
            raw = pg.read_bytes()
            if raw is None:
                return None
            data = loads(raw)
        else:
            data = loads_file(read_regular(path, ".agents/state.json"))  # no link, no FIFO
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        warn(f"cannot read {path} ({e}); allowing")
        return None
    except Exception as e:  # the server store: down, refused (one line, never a traceback)
        warn(f"cannot read the workflow ({e}); allowing")
        return None
    if not isinstance(data, dict):
        return None
    status = str(data.get("status", "pending")).strip().lower()
    if status in ("completed", "complete", "done") or data.get("abortedAt"):
        return None
    return data
