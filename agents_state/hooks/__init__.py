"""Handlers for Claude Code hook events: ``agents-state hook <event>``.

They run beside every tool call of every sub-agent, so they are built for speed and for never
breaking a session: ``__main__`` calls ``run_hook`` without importing Click, the pre-tool-use path
imports neither pydantic nor pathlib, every handler returns 0, and any surprise (bad stdin, a
corrupt file, a bug) becomes an allow plus one warning line on stderr, never a traceback -- except
that pre-tool-use fails closed for a sub-agent of an active or unreadable workflow: it denies
with one line (``hooks.profile_check``).

| event            | does                                                                |
|------------------|---------------------------------------------------------------------|
| pre-tool-use     | deny a sub-agent's call beyond its profile, or reaching credentials |
| permission       | allow the engine's own steps without a prompt (``permission.py``),  |
|                  | the fan-out's Workflow call included (``workflow_call.py``)         |
| post-tool-use    | count tool calls (``.agents/toolcalls.log``) for compaction advice  |
| post-tool-use-failure | count it the same way; keep a host refusal (``.agents/refusals.json``) |
| permission-request | keep the request: headless, the host refuses it (issue 27)        |
| subagent-start   | log which sub-agent started (``.agents/subagents.jsonl``)           |
| subagent-stop    | log it; record a handoff response found in its last message (or a   |
|                  | fan-out agent's StructuredOutput answer, ``fanout_stop.py``)        |
| session-start    | inject the workflow context after startup / resume / clear / compact|
|                  | (once per session start: ``.agents/session-start.json``)            |
| stop             | book the main conversation's token usage (``usage/``, issue 24)     |
"""

from __future__ import annotations

import sys

__all__ = ["EVENTS", "HOOK_BUDGETS", "run_hook", "tool_calls"]

EVENTS: dict[str, str] = {
    "pre-tool-use": "agents_state.hooks.pre_tool_use",
    "permission": "agents_state.hooks.permission",
    "post-tool-use": "agents_state.hooks.toolcalls",
    "post-tool-use-failure": "agents_state.hooks.toolcalls",
    "permission-request": "agents_state.hooks.toolcalls",
    "subagent-start": "agents_state.hooks.subagent",
    "subagent-stop": "agents_state.hooks.subagent",
    "session-start": "agents_state.hooks.session_start",
    "stop": "agents_state.hooks.usage",
}


# Seconds a hook may spend waiting for the store (its lock, a server), below the host's timeout
# for it in hooks/hooks.json (10 s for tool calls and Stop, 15 s for sub-agents) with room for
# the start-up and libpq's whole-second connect timeout: an answer after the host gave up is
# lost (issue 23).
HOOK_BUDGETS: dict[str, float] = {
    "pre-tool-use": 7.0,
    "permission": 7.0,
    "post-tool-use": 7.0,
    "post-tool-use-failure": 7.0,
    "permission-request": 7.0,
    "subagent-start": 11.0,
    "subagent-stop": 11.0,
    "session-start": 60.0,
    "stop": 7.0,
}


def run_hook(event: str, root: str | None = None) -> int:
    """Handle one hook event within its budget; always returns 0 and never raises."""
    from agents_state import deadline

    name = event.strip().lower().replace("_", "-")
    deadline.start(HOOK_BUDGETS.get(name, min(HOOK_BUDGETS.values())))
    try:
        return _run(event, name, root)
    finally:
        deadline.stop()


def _run(event: str, name: str, root: str | None) -> int:
    try:
        module_name = EVENTS.get(name)
        if module_name is None:
            sys.stderr.write(
                f"agents-state: warning: unknown hook event '{event}'; known: "
                f"{', '.join(EVENTS)} (allowing)\n"
            )
            return 0
        module = __import__(module_name, fromlist=["handle"])  # importlib costs 0.5 ms more
        module.handle(name, root)
    except BaseException as e:  # a hook must never break the session, whatever happens
        if isinstance(e, KeyboardInterrupt):
            return 0
        try:
            import os

            from agents_state.handoff.secrets import SECRET_PATTERNS
            from agents_state.store.redact import redact  # a store URL's password never shown

            store = (os.environ.get("AGENTS_STATE_STORE", ""),)
            shapes = (p for _kind, p in SECRET_PATTERNS)
            said = redact(f"{type(e).__name__}: {e}", store, shapes)
            sys.stderr.write(f"agents-state: warning: hook {event} failed ({said}); allowing\n")
        except Exception:
            pass
    return 0


def tool_calls(root: object, agent: str = "main") -> int:
    """Tool calls counted since the last compaction or new session, for ``agent``
    (``main`` = the orchestrating conversation)."""
    from agents_state.store.toolcalls import count

    return count(str(root), agent)
