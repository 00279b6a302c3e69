"""Issue 36: drive ``agents-state mcp`` through the official SDK's client, as a host does: the
installed console script started over stdio in the project's folder."""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import mcp_types as types
from clitools import CLI
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

__all__ = ["Session", "differences", "mask", "serve"]

T = TypeVar("T")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?")


def mask(data: Any, root: Path | None = None, other: Path | None = None) -> Any:
    """``data`` with times masked and ``other``'s folder written as ``root``'s (two projects
    driven in lockstep differ only there)."""
    import json

    text = json.dumps(data, sort_keys=True)
    if root is not None and other is not None:
        text = text.replace(str(other), str(root))
    return _no_spans(json.loads(_TIME.sub("<time>", text)))


def _no_spans(data: Any) -> Any:
    """Elapsed times (``usage.seconds``, per stage too) grow between two runs: masked."""
    if isinstance(data, dict):
        return {k: "<seconds>" if k == "seconds" else _no_spans(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_no_spans(v) for v in data]
    return data


def differences(got: Any, want: Any, at: str = "") -> list[str]:
    """Where two JSON values differ (paths), for a readable failure."""
    if isinstance(got, dict) and isinstance(want, dict):
        out: list[str] = []
        for key in sorted(set(got) | set(want)):
            out += differences(got.get(key, "<absent>"), want.get(key, "<absent>"), f"{at}.{key}")
        return out
    return [] if got == want else [f"{at}: {got!r} != {want!r}"]


class Session:
    """One connected client; ``call`` gives a tool's result as (is_error, structured, text)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, name: str, **args: Any) -> tuple[bool, Any, str]:
        res = await self.client.call_tool(name, args)
        assert len(res.content) == 1
        block = res.content[0]
        assert isinstance(block, types.TextContent)
        return res.is_error, res.structured_content, block.text

    async def ok(self, name: str, **args: Any) -> Any:
        error, body, text = await self.call(name, **args)
        assert not error, text
        return body


def serve(
    root: Path,
    body: Callable[[Session], Awaitable[T]],
    *args: str,
    extra_env: dict[str, str] | None = None,
    errlog: TextIO | None = None,
) -> T:
    """Run ``body`` against ``agents-state mcp ARGS`` started in ``root`` (``extra_env``: more
    variables for the server's process; ``errlog``: a file for its stderr)."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("HOME", "PATH", "COVERAGE"))}
    env.update(extra_env or {})
    params = StdioServerParameters(command=CLI, args=["mcp", *args], cwd=str(root), env=env)

    async def main() -> T:
        server = params if errlog is None else stdio_client(params, errlog=errlog)
        async with Client(server, read_timeout_seconds=120) as client:
            return await body(Session(client))

    return anyio.run(main)
