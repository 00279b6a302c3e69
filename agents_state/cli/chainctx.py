"""The chains of the command's project (the file store's or the PostgreSQL store's), and the
clock the chain commands read."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import click

from agents_state.cli.options import app_from

if TYPE_CHECKING:
    from agents_state.chains.ops import ChainStore

__all__ = ["chain_store", "now"]


def chain_store(ctx: click.Context) -> ChainStore:
    from agents_state.chains.ops import ChainStore

    app = app_from(ctx)
    if app.store_url is not None:  # the PostgreSQL store (issue 17)
        from agents_state.chains.pg import PgChainStore

        return PgChainStore(app.server_store)
    return ChainStore(app.file_store)


def now() -> datetime:
    from agents_state.app import utcnow

    return utcnow()
