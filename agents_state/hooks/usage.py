"""The hooks' side of usage (issue 24): which transcript, which agent, never a failure.

``subagent-start`` writes the agent's entry with the phase current as it starts;
``subagent-stop`` books the sub-agent's transcript (``agent_transcript_path``) on its entry;
``post-tool-use`` and ``stop`` in the main conversation (no ``agent_id``) book the orchestrator's
transcript (``transcript_path``).  Any problem is one warning line on stderr; the host goes on.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "handle",
    "on_main",
    "on_session",
    "on_subagent_start",
    "on_subagent_stop",
    "on_unstopped",
]


def _warn(what: str, e: BaseException) -> None:
    from agents_state.hooks._base import warn

    message = getattr(e, "message", None) or str(e) or type(e).__name__
    warn(f"{what} not recorded ({message}); the workflow goes on")


def _named_task(message: Any) -> str | None:
    if not isinstance(message, str) or "task_id" not in message:
        return None
    from agents_state.handoff.extract import ExtractError, extract_json

    try:
        data = extract_json(message)
    except ExtractError:
        return None
    task = data.get("task_id")
    return task if isinstance(task, str) else None


def on_subagent_start(root: str, payload: dict[str, Any], state: dict[str, Any]) -> str | None:
    """Write the starting agent's entry in the current phase; that phase (``None``: none)."""
    agent = payload.get("agent_id")
    if not isinstance(agent, str) or not agent:
        return None
    try:
        from agents_state.usage.record import record_start

        session = payload.get("transcript_path")
        return record_start(
            root,
            state,
            agent,
            str(payload.get("agent_type") or ""),
            session if isinstance(session, str) and session.endswith(".jsonl") else None,
        )
    except Exception as e:
        _warn("the phase this sub-agent started in was", e)
        return None


def on_subagent_stop(root: str, payload: dict[str, Any]) -> int | None:
    """Book the agent's new usage; its tokens so far (``None``: nothing booked)."""
    from agents_state.hooks._base import active_state

    path, agent = payload.get("agent_transcript_path"), payload.get("agent_id")
    if not isinstance(path, str) or not path or not isinstance(agent, str) or not agent:
        return None
    try:
        state = active_state(root)
        if state is None:
            return None
        from agents_state.usage.book import total
        from agents_state.usage.record import record_agent

        entry = record_agent(
            root,
            state,
            agent,
            str(payload.get("agent_type") or ""),
            path,
            _named_task(payload.get("last_assistant_message")),
        )
        return total(entry["tokens"]) if entry else None
    except Exception as e:
        _warn("this sub-agent's token usage was", e)
        return None


def on_main(root: str, transcript: str, state: dict[str, Any] | None = None) -> None:
    from agents_state.hooks._base import active_state

    try:
        state = state if state is not None else active_state(root)
        if state is None:
            return
        from agents_state.usage.record import record_main

        record_main(root, state, transcript)
    except Exception as e:
        _warn("the conversation's token usage was", e)


def on_session(root: str, transcript: str, state: dict[str, Any]) -> None:
    try:
        from agents_state.usage.record import record_session

        record_session(root, state, transcript)
    except Exception as e:
        _warn("the conversation's token usage was", e)
    on_unstopped(root, state)


def on_unstopped(root: str, state: dict[str, Any]) -> None:
    """Book the agents whose SubagentStop never came (session start and ``next``, issue 32)."""
    try:
        from agents_state.usage.record import record_unstopped

        record_unstopped(root, state)
    except Exception as e:
        _warn("the usage of agents that never stopped was", e)


def handle(event: str, explicit_root: str | None) -> None:
    """``stop``: the main conversation ended a turn; book what it spent since its last call."""
    from agents_state.hooks._base import find_root, read_payload

    payload = read_payload()
    if payload is None or payload.get("agent_id"):
        return
    transcript = payload.get("transcript_path")
    root = find_root(explicit_root, payload)
    if root is None or not isinstance(transcript, str) or not transcript:
        return
    on_main(root, transcript)
