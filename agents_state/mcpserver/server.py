"""The MCP SDK's glue: a low-level ``Server`` over stdio whose ``tools/list`` is ``tools.TOOLS``
and whose ``tools/call`` runs ``tools.call``.  Loaded only by ``agents-state mcp``.

A tool's result carries its command's ``--json`` body twice, as the SDK and the protocol ask:
as ``structuredContent`` and serialized (compact) in one text block, for hosts that read only
text.  An error is ``isError`` with the line the command prints (``agents-state: error: ...``)
as its text and the command's ``--json`` error object as its structured content.

Tools run one at a time, in the event loop's thread: the core functions take file locks, and
a lock wait blocks the calls behind it, as it would block the next command in a shell.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
import orjson
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from agents_state.errors import AgentsStateError
from agents_state.mcpserver.tools import call, tool_list

if TYPE_CHECKING:
    from mcp.server import ServerRequestContext

    from agents_state.app import App

__all__ = ["build", "error_result", "serve"]

INSTRUCTIONS = (
    "agents-state: a durable workflow (EXPLORE, PLAN, IMPLEMENT, TEST, FINAL). Call next, do "
    "what it says, record it with phase, task or handoff. A gate waits for a person: never "
    "answer it yourself."
)


class InternalError(AgentsStateError):
    """A bug met while answering a call (exit 1, as the command's crash)."""

    code = "internal"


def error_result(e: AgentsStateError) -> types.CallToolResult:
    """The command's error: its text line, and its ``--json`` error object."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"agents-state: error: {e.message}")],
        structured_content=e.to_json(),
        is_error=True,
    )


def _ok(body: dict[str, Any]) -> types.CallToolResult:
    text = orjson.dumps(body).decode()
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=body
    )


def build(open_app: Callable[[], App]) -> Server[Any]:
    """The server; ``open_app`` opens the project afresh for each call (as a command does)."""
    from agents_state import __version__

    tools = [
        types.Tool(
            name=t["name"],
            description=t["description"],
            input_schema=t["inputSchema"],
            output_schema=t["outputSchema"],
        )
        for t in tool_list()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            return _ok(call(params.name, dict(params.arguments or {}), open_app))
        except AgentsStateError as e:
            return error_result(e)
        except Exception as e:  # a bug: one line for the model, the traceback in the host's log
            import traceback

            traceback.print_exc()  # stderr: the host's log of this server, never the protocol
            name = type(e).__name__  # the text may hold a secret: in the log only
            return error_result(
                InternalError(f"internal error ({name}); the traceback is in the server's log")
            )

    return Server(
        "agents-state",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(open_app: Callable[[], App]) -> None:
    """Serve over stdin and stdout until the host closes stdin."""
    server = build(open_app)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
