"""SubagentStart / SubagentStop: which sub-agent ran, and what it handed back.

Only this plugin's agents count (``agent_type`` ``subagents:<name>``): an empty type is the
``/compact`` summariser, whose summary may quote a handoff, and other plugins' or built-in agents
are not the workflow's.  Those events are ignored whole.

Both append one line to ``.agents/subagents.jsonl`` while a workflow is active.  On start, the
agent's entry in the usage book is written with the phase current now: its tokens are booked
there when it stops, whatever the clock says (issue 24).  On stop, a
handoff response found in ``last_assistant_message`` (JSON, or JSON in prose or a fence) is
recorded, but one agent's answer never completes a phase: a response naming a task of phase 2.1
that its dispatch prompt names (``dispatch_prompt``) completes or fails that task; any other
lands in the handoff ledger only, and the phase completes
when the orchestrator records the merged artifact.  Recording the same response twice changes
nothing.  A handoff that fails validation (over the 500-token cap, a secret, a bad decision)
blocks the stop once, with the problems as the agent's next instruction; Claude Code's
``stop_hook_active`` guard lets it stop on the second try.

An agent of a fan-out run as the host's Workflow (issue 25: its prompt holds the marker line
``[agents-state fanout <id> agent <key>]``) answers through ``StructuredOutput``: its answer is
read from its transcript and kept in the same commit as its handoff (``hooks.fanout_stop``), so
``next`` runs only the agents that have not answered.

Under worktree isolation the stop of the last running agent merges a wave whose tasks are all
done (issue 33: the merge removes the merged worktrees, so it waits until no agent works in one).
"""

from __future__ import annotations

import os
import time

import orjson

from agents_state.hooks._base import (
    active_facts,
    active_state,
    emit,
    find_root,
    is_ours,
    read_payload,
    warn,
)
from agents_state.store.fsops import append_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["LOG_NAME", "handle"]

LOG_NAME = "subagents.jsonl"
_SETTLE = 3.0  # seconds a transcript may lag behind its agent's stop (the host flushes each 1 s)
_GIT_WAIT = 5.0  # seconds the stop waits for the git lock before leaving the merge to next


def _log(root: str, entry: dict[str, Any]) -> None:
    # one whole line, never through a link or into a FIFO, never joined to a torn last line
    if not os.path.isdir(os.path.join(root, ".agents")):
        return  # the PostgreSQL store needs no .agents/ folder: no local log then
    append_line(os.path.join(root, ".agents", LOG_NAME), orjson.dumps(entry), f".agents/{LOG_NAME}")


def _entry(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "event": event.replace("subagent-", ""),
    }
    for key in ("agent_id", "agent_type", "session_id", "agent_transcript_path"):
        if isinstance(payload.get(key), str):
            entry[key] = payload[key]
    return entry


def _handoff_in(message: Any) -> bool:
    if not isinstance(message, str) or "{" not in message:
        return False
    from agents_state.handoff.extract import (
        HANDOFF_KEYS,
        ExtractError,
        JsonLimitError,
        extract_json,
    )

    try:
        data = extract_json(message)
    except JsonLimitError:
        return True  # too deep or too big: refused below, the agent told (never dropped)
    except ExtractError:
        return False
    return bool(
        {"decision", "context_summary", "checks", "check_type"} & data.keys()
        and HANDOFF_KEYS & data.keys()
    )


def _fanout_of(payload: dict[str, Any]) -> tuple[str, str, str] | None:
    """(fan-out id, agent key, prompt) of an agent the engine launched in a fan-out (issue 25)."""
    from agents_state.hooks.dispatch_prompt import dispatch_prompt

    prompt = dispatch_prompt(payload)
    if "[agents-state fanout " not in prompt:
        return None
    from agents_state.engine.fanout import marker_of

    found = marker_of(prompt)
    return (found[0], found[1], prompt) if found else None


def _from_transcript(payload: dict[str, Any]) -> tuple[tuple[str, str, str] | None, Any]:
    """(fan-out, answer) of an agent that stopped with no last message: a workflow agent's
    answer is the input of its last ``StructuredOutput`` call, read from its transcript.  The
    host batches transcript writes (a flush a second), so a file that does not hold the prompt's
    marker and the answer yet is read again until ``_SETTLE`` seconds have passed."""
    from agents_state.hooks.fanout_stop import structured_answer

    path = payload.get("agent_transcript_path")
    end = time.monotonic() + _SETTLE
    while True:
        fan = _fanout_of(payload)
        answer = structured_answer(path) if fan is not None else None
        if answer is not None or not isinstance(path, str) or time.monotonic() >= end:
            return fan, answer
        time.sleep(0.05)


def _on_stop(root: str, payload: dict[str, Any], entry: dict[str, Any]) -> None:
    message = payload.get("last_assistant_message")
    answer: Any = message
    if isinstance(message, str) and message.strip():
        fan = _fanout_of(payload)
    else:
        fan, answer = _from_transcript(payload)
    if fan is not None:
        entry["fanout"], entry["key"] = fan[0], fan[1]
        if not isinstance(message, str) or not message.strip():
            if answer is None:
                entry["answer"] = "none"
                return  # nothing to keep: the fan-out's call runs this agent again
            message = orjson.dumps(answer).decode()
            payload["last_assistant_message"] = message  # the usage booking reads its task_id
    if not _handoff_in(message):
        if fan is not None and isinstance(answer, str):
            _record_fanout(root, payload, entry, fan, answer, None)
        elif fan is not None:  # a StructuredOutput call the host refused: not an answer
            entry["answer"] = "not a handoff"
        return
    from agents_state.handoff.protocol import HandoffInvalidError, parse_handoff

    assert isinstance(message, str)
    try:
        h = parse_handoff(message, "handoff")
    except HandoffInvalidError as e:
        entry["handoff"] = "invalid"
        if not payload.get("stop_hook_active"):
            emit(
                {
                    "decision": "block",
                    "reason": (
                        f"agents-state: your handoff response is not valid: {e.message}. Fix these "
                        "fields and answer again with the corrected handoff JSON only."
                    ),
                }
            )
        return
    if h.is_request:
        return
    entry["handoff"] = h.decision
    if fan is not None:
        _record_fanout(root, payload, entry, fan, answer, h)
        return
    from agents_state.errors import AgentsStateError
    from agents_state.handoff.ops import record
    from agents_state.hooks.dispatch_prompt import dispatch_prompt

    agent = payload.get("agent_id")
    try:
        from agents_state.app import App

        app = App.open(root)
        who = agent if isinstance(agent, str) else None
        out = record(
            app.store,
            app.policy,
            h,
            agent=who,
            own_task_only=True,
            sender_prompt=dispatch_prompt(payload),  # its own task: the one it was sent for
        )
    except AgentsStateError as e:
        warn(f"handoff from {entry.get('agent_type', 'a sub-agent')} not recorded: {e.message}")
        entry["recorded"] = False
        return
    _recorded(entry, out)


def _recorded(entry: dict[str, Any], out: Any) -> None:
    entry["recorded"] = bool(out.changed)
    target = (out.record.get("handoff") or {}).get("target")
    if isinstance(target, str):
        entry["target"] = target


def _record_fanout(
    root: str,
    payload: dict[str, Any],
    entry: dict[str, Any],
    fan: tuple[str, str, str],
    answer: Any,
    h: Any,
) -> None:
    """Issue 25: the answer of a fan-out's agent, and its handoff, in one commit."""
    from agents_state.errors import AgentsStateError
    from agents_state.hooks.fanout_stop import record

    agent = payload.get("agent_id")
    try:
        out = record(
            root, fan[0], fan[1], answer, h, agent if isinstance(agent, str) else None, fan[2]
        )
    except AgentsStateError as e:
        if h is not None:  # the handoff has no place (no current phase ...): keep the answer
            warn(f"handoff from fan-out {fan[0]} agent {fan[1]} not recorded: {e.message}")
            _record_fanout(root, payload, entry, fan, answer, None)
            return
        warn(f"answer of fan-out {fan[0]} agent {fan[1]} not recorded: {e.message}")
        entry["recorded"] = False
        return
    _recorded(entry, out)


def handle(event: str, explicit_root: str | None) -> None:
    payload = read_payload()
    if payload is None:
        return
    if not is_ours(payload.get("agent_type")):
        return
    root = find_root(explicit_root, payload)
    if root is None:
        return
    # a start reads the current phase and start time: the hooks' view (issue 35); a stop
    # records the agent's answer and usage, which read the whole state
    state = active_facts(root) if event == "subagent-start" else active_state(root)
    if state is None:
        return
    entry = _entry(event, payload)
    try:
        if event == "subagent-stop":
            _on_stop(root, payload, entry)
        else:  # the phase it works in, which its tokens are booked to (issue 24)
            from agents_state.hooks.usage import on_subagent_start

            phase = on_subagent_start(root, payload, state)
            if phase is not None:
                entry["phase"] = phase
    finally:
        if event == "subagent-stop":  # tokens and time of this agent (issue 24)
            from agents_state.hooks.usage import on_subagent_stop

            tokens = on_subagent_stop(root, payload)
            if tokens is not None:
                entry["tokens"] = tokens  # all its responses so far, from its transcript
        _log(root, entry)
    if event == "subagent-stop" and state.get("git"):
        _merge_wave(root, payload.get("agent_id"))


def _merge_wave(root: str, agent: Any) -> None:
    """Issue 33: a wave whose tasks are done merges once its agents have stopped (this one is
    the last); a busy git lock or a failure leaves it to ``next``."""
    try:
        from agents_state.app import App
        from agents_state.gitwork.steps import merge_after_stop

        merge_after_stop(App.open(root), agent if isinstance(agent, str) else None, _GIT_WAIT)
    except Exception as e:  # a hook never fails the host: one line, and next merges
        why = getattr(e, "message", None) or str(e) or type(e).__name__
        warn(f"the wave's merge waits for agents-state next: {why}")
