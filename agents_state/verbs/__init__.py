"""The commands' core, shared by the CLI and the MCP server (issue 36).

Each function here is what one command does once its arguments are parsed: it takes an ``App``
and plain values, runs the command's steps and returns the command's ``--json`` body as a dict.
The CLI (``cli/``) renders that body as text or JSON; the MCP server (``mcpserver/``) returns it
as a tool's result.  So there is one implementation, and the CLI stays the contract.
"""

from __future__ import annotations

__all__: list[str] = []
