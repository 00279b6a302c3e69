"""hook <event>: Claude Code hook handlers (stdin JSON in, JSON out; always exit 0).

``agents-state hook <event>`` normally skips Click entirely (see ``__main__``); this command is
the path taken with global options such as ``--root``.
"""

from __future__ import annotations

import click

__all__ = ["hook"]


@click.command()
@click.argument("event", metavar="EVENT")
@click.pass_context
def hook(ctx: click.Context, event: str) -> int:
    """Handle a Claude Code hook EVENT: pre-tool-use, post-tool-use, subagent-start,
    subagent-stop, session-start.  Reads the hook JSON on stdin; never fails the session.

    \b
    Example:
      echo '{"tool_name":"Write","agent_type":"subagents:explore"}' | agents-state hook pre-tool-use
    """
    from agents_state.hooks import run_hook

    obj = ctx.find_root().obj
    return run_hook(event, obj.get("root") if obj else None)
