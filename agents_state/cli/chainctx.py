"""The chains of the command's project (the file store's or the PostgreSQL store's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.cli.options import app_from

if TYPE_CHECKING:
    from agents_state.chains.ops import ChainStore

__all__ = ["chain_store"]


def chain_store(ctx: click.Context) -> ChainStore:
    from agents_state.verbs.chains import chain_store as store_of

    return store_of(app_from(ctx))
