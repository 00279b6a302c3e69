"""The tool-call log ``.agents/toolcalls.log``: one line per tool call, outside ``state.json``.

One line per call (``main`` for the orchestrating conversation, else the sub-agent's id),
appended with ``O_APPEND`` so that parallel agents need no lock.  The count of ``main`` lines is
how many tool calls the orchestrator's context holds since the last compaction or new session:
past 50, design 000 recommends compacting.  The PostToolUse hook appends (``hooks/toolcalls``),
``session-start`` and ``compact`` clear it; the store owns the file, as it owns every write.
"""

from __future__ import annotations

import os

from agents_state.store.fsops import open_regular, read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.store.pg import PgStore

__all__ = [
    "COMPACT_AFTER_CALLS",
    "LOG_NAME",
    "count",
    "counts",
    "file_counts",
    "log_bytes",
    "record",
    "reset",
]
LOG_NAME = "toolcalls.log"
COMPACT_AFTER_CALLS = 50
_SHOWN = f".agents/{LOG_NAME}"


def _log(root: str) -> str:
    return os.path.join(root, ".agents", LOG_NAME)


def pg_from_env(root: str) -> PgStore | None:
    """``store.api.pg_from_env``, which the PostToolUse hook (every tool call) loads only when
    ``AGENTS_STATE_STORE`` is set: ``store.api`` loads ``typing`` and ``errors`` ``enum``."""
    if not os.environ.get("AGENTS_STATE_STORE"):
        return None
    from agents_state.store.api import pg_from_env as from_env

    return from_env(root)


def record(root: str, agent: str) -> None:
    pg = pg_from_env(root)
    if pg is not None:  # the PostgreSQL store keeps the counts (issue 17)
        pg.count_call(agent.replace("\n", " ").strip() or "main")
        return
    line = (agent.replace("\n", " ").strip() or "main") + "\n"
    fd = open_regular(_log(root), os.O_WRONLY | os.O_APPEND | os.O_CREAT, _SHOWN)
    try:
        os.write(fd, line.encode("utf-8", "replace"))
    finally:
        os.close(fd)


def counts(root: str) -> dict[str, int]:
    pg = pg_from_env(root)
    if pg is not None:
        calls: dict[str, int] = pg.call_counts()
        return calls
    return file_counts(root)


def file_counts(root: str) -> dict[str, int]:
    """The counts in ``.agents/toolcalls.log`` under ``root``, whatever store is configured
    (``store copy`` reads a folder while the environment may name a database)."""
    from agents_state.errors import AgentsStateError

    out: dict[str, int] = {}
    try:
        text = read_regular(_log(root), _SHOWN).decode("utf-8", "replace")
    except (OSError, AgentsStateError):  # missing, or not a regular file: nothing counted
        return out
    for line in text.splitlines():
        key = line.strip()
        if key:
            out[key] = out.get(key, 0) + 1
    return out


def log_bytes(calls: dict[str, int]) -> bytes:
    """A log that ``file_counts`` reads back as ``calls`` (one line per call)."""
    return "".join(f"{agent}\n" * n for agent, n in sorted(calls.items()) if n > 0).encode()


def count(root: str, agent: str = "main") -> int:
    return counts(root).get(agent, 0)


def reset(root: str) -> None:
    pg = pg_from_env(root)
    if pg is not None:
        pg.reset_calls()
        return
    try:
        os.close(open_regular(_log(root), os.O_WRONLY | os.O_TRUNC, _SHOWN))
    except FileNotFoundError:
        pass
