"""Options shared by the commands, defined once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["app_from", "emit_json", "json_option"]

F = TypeVar("F", bound=Callable[..., Any])

json_option: Callable[[F], F] = click.option(
    "--json", "as_json", is_flag=True, help="Print pure JSON on stdout (errors as JSON on stderr)."
)


def app_from(ctx: click.Context) -> Any:
    from agents_state.app import App

    root = ctx.find_root().obj.get("root") if ctx.find_root().obj else None
    return App.open(root)


def emit_json(data: Any) -> None:
    import sys

    import orjson

    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
