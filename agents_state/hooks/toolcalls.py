"""PostToolUse: count tool calls in ``.agents/toolcalls.log`` (``store/toolcalls``).

The hook only decides what to record; the store appends the line.  ``session-start`` clears the
log on startup, clear and compact.
"""

from __future__ import annotations

import os

from agents_state.hooks._base import find_root, pg_store, read_payload
from agents_state.store.toolcalls import (
    COMPACT_AFTER_CALLS,
    LOG_NAME,
    count,
    counts,
    record,
    reset,
)

__all__ = ["COMPACT_AFTER_CALLS", "LOG_NAME", "count", "counts", "handle", "record", "reset"]


def handle(event: str, explicit_root: str | None) -> None:
    payload = read_payload()
    if payload is None:
        return
    root = find_root(explicit_root, payload)
    if root is None:
        return
    if pg_store(root) is not None:
        from agents_state.hooks._base import active_state

        if active_state(root) is None:
            return
    elif not os.path.exists(os.path.join(root, ".agents", "state.json")):
        return
    agent = payload.get("agent_id")
    record(root, agent if isinstance(agent, str) and agent else "main")
    transcript = payload.get("transcript_path")
    if not agent and isinstance(transcript, str) and transcript:
        from agents_state.contextsize import remember_transcript

        try:
            remember_transcript(root, transcript)  # for the 70% compaction advice (issue 15)
        except OSError:
            pass
        from agents_state.hooks.usage import on_main

        on_main(root, transcript)  # the orchestrator's tokens, by phase (issue 24)
