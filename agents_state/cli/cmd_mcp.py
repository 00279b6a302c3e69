"""mcp: serve the workflow to an MCP host over stdio (issue 36)."""

from __future__ import annotations

import click

__all__ = ["mcp"]


@click.command()
@click.pass_context
def mcp(ctx: click.Context) -> int:
    """Serve the workflow as MCP tools over stdio (needs: pip install 'agents-state[mcp]').

    Seven tools (status, next, compact, dispatch, phase, task, handoff), each answering as its
    command's --json; no tool answers a gate.

    \b
    Example:
      codex mcp add agents-state -- agents-state mcp
    """
    try:
        from agents_state.mcpserver.server import serve
    except ModuleNotFoundError as e:
        if e.name is None or e.name.split(".")[0] not in ("mcp", "mcp_types", "anyio"):
            raise
        from agents_state.errors import NotFoundError

        raise NotFoundError(
            "the MCP server needs the mcp package: pip install 'agents-state[mcp]'"
        ) from None
    from agents_state.verbs.common import open_app

    obj = ctx.find_root().obj or {}
    root, store, sets = obj.get("root"), obj.get("store"), tuple(obj.get("set", ()))
    open_app(root, store, None, sets)  # a mistyped --root fails now, not at the first call
    serve(lambda: open_app(root, store, None, sets))
    return 0
