"""``agents-state mcp``: the workflow as a few MCP tools over stdio (issue 36).

``tools`` is the table (names, schemas, and which core function of ``verbs`` each calls); it
imports no MCP code.  ``server`` is the SDK's glue, loaded only by ``agents-state mcp``.
"""

from __future__ import annotations

__all__: list[str] = []
