"""Chains on the PostgreSQL store (issue 17): each chain's state is a row of
``agents_state.chains``, updated under the workflow's row lock in one transaction.  The request
files a step hands to its agents are still written under the local project root, where the
agent that runs the step reads them (they are that host's working files, not shared state)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents_state.chains.action import CHAINS_DIR, requests_for
from agents_state.chains.ops import ChainStore, _decode, _encode
from agents_state.chains.state import ChainState
from agents_state.errors import NotFoundError

__all__ = ["PgChainStore"]


class PgChainStore(ChainStore):
    def __init__(self, pg: Any) -> None:
        from agents_state.store.files import Store

        self.pg = pg
        self.store = Store(pg.root)  # only for the request files written under the root
        self.dir = self.store.dir / "chains"

    def load(self, chain_id: str) -> ChainState:
        row = self.pg._one(
            "SELECT data FROM agents_state.chains WHERE workflow = %s AND id = %s",
            (self.pg.workflow, chain_id),
        )
        if row is None:
            known = ", ".join(c.id for c in self.all()) or "none"
            raise NotFoundError(f"no chain {chain_id!r} (chains: {known})")
        return _decode(bytes(row[0]), f"{CHAINS_DIR}/{chain_id}.json")

    def all(self) -> list[ChainState]:
        rows = self.pg._all(
            "SELECT id, data FROM agents_state.chains WHERE workflow = %s", (self.pg.workflow,)
        )
        out = [_decode(bytes(r[1]), f"{CHAINS_DIR}/{r[0]}.json") for r in rows]
        return sorted(out, key=lambda c: (c.updatedAt or "", c.revision, c.id))

    def commit(
        self, chain_id: str | None, mutate: Callable[[ChainState | None, list[str]], Any]
    ) -> Any:
        with self.pg.locked() as conn:
            current = self.load(chain_id) if chain_id else None
            ids = [
                r[0]
                for r in self.pg._all(
                    "SELECT id FROM agents_state.chains WHERE workflow = %s", (self.pg.workflow,)
                )
            ]
            out = mutate(current, ids)
            if not out.changed:
                return out
            chain = ChainState.model_validate(out.chain.model_dump())
            requests = requests_for(chain)
            with self.pg.errors("write chain"):
                conn.execute(
                    "INSERT INTO agents_state.chains (workflow, id, data) VALUES "
                    "(%s, %s, %s) ON CONFLICT (workflow, id) DO UPDATE SET "
                    "data = EXCLUDED.data",
                    (self.pg.workflow, chain.id, _encode(chain)),
                )
            if requests:
                from agents_state.store.fsops import make_dir

                self.store.ensure_dirs()
                make_dir(self.dir, CHAINS_DIR)
                self._write_requests(chain, requests)
        return out
