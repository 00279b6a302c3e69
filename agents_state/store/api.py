"""The store interface and the factory that picks a store (issue 17).

Two implementations: the embedded file store (``store.Store``, the default: ``.agents/`` under the
project root) and the PostgreSQL store (``store_pg.PgStore``), chosen by ``--store URL`` or the
``AGENTS_STATE_STORE`` environment variable.  Without either nothing changes, and nothing here
imports psycopg: the server store is imported only for a ``postgresql://`` URL.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from agents_state.errors import UsageError
from agents_state.store.urlmask import mask_url

if TYPE_CHECKING:
    from pathlib import Path

    from agents_state.engine.phases import Outcome
    from agents_state.models import State
    from agents_state.store.commits import CommitLog
    from agents_state.store.files import Store
    from agents_state.store.pg import PgStore

    # both stores are checked against the protocol by mypy (issue 26): a method missing or of
    # another signature in either fails the type check, not a run on a server
    def _files_store(store: Store) -> WorkflowStore:
        return store

    def _server_store(store: PgStore) -> WorkflowStore:
        return store


__all__ = [
    "ENV_VAR",
    "WorkflowStore",
    "describe",
    "mask_url",
    "open_store",
    "pg_from_env",
    "store_url",
]

ENV_VAR = "AGENTS_STATE_STORE"
PG_SCHEMES = ("postgresql://", "postgres://")


@runtime_checkable
class WorkflowStore(Protocol):
    """What the engine's shell needs from a store.

    ``commit`` runs ``mutate`` on a freshly re-read state under the store's lock and makes its
    result durable (state, event, artifacts written by ``write_artifact`` during ``mutate``) as
    one unit before it returns; ``load`` never sees a torn state.

    Not here, because only the file store has it to do: the upkeep of its folder (moving a
    damaged or migrated file aside, deleting debris) for ``doctor --repair`` and ``migrate``,
    in ``store.upkeep``.  The PostgreSQL store commits whole or not at all; ``doctor`` on it
    (``doctor/pg.py``) diagnoses only, and ``migrate`` refuses it."""

    @property
    def root(self) -> Path: ...

    def load(self) -> State | None: ...

    def read_bytes(self) -> bytes | None: ...

    def commit(self, mutate: Callable[[State | None], Outcome]) -> Outcome: ...

    def write_artifact(self, name: str, data: bytes) -> str: ...

    def read_artifact(self, name: str) -> bytes | None: ...

    def events(self) -> list[dict[str, Any]]: ...

    def present(self) -> bool: ...


def store_url(explicit: str | None) -> str | None:
    """``--store URL``, else ``AGENTS_STATE_STORE``, else None (the file store)."""
    url = explicit if explicit else os.environ.get(ENV_VAR)
    if not url or url in ("file", "files"):
        return None
    if url.startswith(PG_SCHEMES):
        return url
    if url.startswith("file://"):
        return None
    raise UsageError(
        f"--store {mask_url(url)!r}: unknown store; use postgresql://USER@HOST:PORT/"
        "DB?workflow=NAME (or leave it out for the files under .agents/)"
    )


def open_store(root: Path, url: str | None, commits: CommitLog | None = None) -> WorkflowStore:
    """The store for ``root`` and ``url`` (None: the file store); its commits are noted in
    ``commits`` (the command's log, ``store.commits``)."""
    if url is None:
        from agents_state.store.files import Store

        return Store(root, commits=commits)
    from agents_state.store.pg import PgStore

    return PgStore(url, root, commits=commits)


def pg_from_env(root: str | Path) -> PgStore | None:
    """The PostgreSQL store when ``AGENTS_STATE_STORE`` names one (issue 17), else ``None``:
    for the hooks and the tool-call log, which take no ``--store`` option."""
    url = os.environ.get(ENV_VAR, "")
    if not url.startswith(PG_SCHEMES):
        return None
    from pathlib import Path

    from agents_state.store.pg import PgStore

    return PgStore(url, Path(root))


def describe(url: str | None, root: Path) -> str:
    """One line for ``config show``: which store is in use (password masked)."""
    if url is None:
        return f"files under {os.path.join(root, '.agents')}"
    from agents_state.store.pg_url import parse_url

    target = parse_url(url)
    return f"postgresql {target.shown} (workflow {target.workflow!r})"
