"""The use cases: one function per command, shared by the CLI and the MCP server (issues 35, 36).

Each function here is what one command does once its arguments are parsed: it takes an ``App``
and plain values, runs the command's whole saga (the git steps under the git lock, the state
under the state lock, the merge note, the message) and returns a small typed result
(``verbs.results``) whose ``body()`` is the command's ``--json`` body.  The CLI (``cli/``) renders
the result as text or prints ``body()``; the MCP server (``mcpserver/``) returns ``body()`` as a
tool's result.  So there is one implementation, and the CLI stays the contract.
"""

from __future__ import annotations

__all__: list[str] = []
