"""SubagentStop of a fan-out's agent (issue 25): its answer, recorded as it arrives.

An agent the engine launched through ``Workflow({name: "subagents:fanout"})`` has a prompt that
starts with ``[agents-state fanout <id> agent <key>]`` (``engine.fanout.marker``).  Given a
``schema``, the host asks it for a ``StructuredOutput`` tool call and its SubagentStop has no
``last_assistant_message``: the answer is the input of the last ``StructuredOutput`` call in its
transcript (``structured_answer``).  ``record`` keeps the answer in ``state.fanouts`` and, when
it is a handoff, records the handoff as the hook does for any agent (a task agent's completes
its own task) -- both in one commit under the store's lock, so an answer is never half kept.  A
phase's answers are also written to ``.agents/phases/fanout-<id>.json`` for the orchestrator to
merge.
"""

from __future__ import annotations

import json

from agents_state.hooks.workflow_root import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agents_state.engine.context import Outcome
    from agents_state.handoff.reduce import Handoff
    from agents_state.models import State

__all__ = ["answers_file", "record", "structured_answer"]

_LIMIT = 32 << 20  # an agent's transcript: its tool results too


def answers_file(fanout: str) -> str:
    return f"fanout-{fanout}.json"


def structured_answer(path: object) -> dict[str, Any] | None:
    """The input of the last ``StructuredOutput`` tool call in an agent transcript that the
    host did not refuse (an input that does not match the schema is written to the transcript,
    then answered with an error result), or None."""
    if not isinstance(path, str) or not path:
        return None
    try:
        raw = read_regular(path, _LIMIT)[:_LIMIT]
    except (OSError, ValueError):
        return None
    calls: list[tuple[str, dict[str, Any]]] = []
    refused: set[str] = set()
    for line in raw.splitlines():
        if b"StructuredOutput" not in line and b"tool_use_id" not in line:
            continue
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError):
            continue
        msg = rec.get("message") if isinstance(rec, dict) else None
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if (
                block.get("type") == "tool_use"
                and block.get("name") == "StructuredOutput"
                and isinstance(block.get("input"), dict)
            ):
                calls.append((str(block.get("id")), block["input"]))
            elif block.get("type") == "tool_result" and block.get("is_error") is True:
                refused.add(str(block.get("tool_use_id")))
    kept = [answer for use, answer in calls if use not in refused]
    return kept[-1] if kept else None


def record(
    root: str,
    fanout: str,
    key: str,
    answer: Any,
    handoff: Handoff | None,
    agent: str | None,
    prompt: str,
) -> Outcome:
    """Keep ``answer`` of agent ``key`` and record ``handoff`` (when there is one) in one
    commit."""
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.engine.fanout import note_answer, recorded
    from agents_state.errors import NotFoundError
    from agents_state.types import format_time, utcnow
    from agents_state.workflow import TASK_PHASE

    app = App.open(root)
    store, policy = app.store, app.policy

    def mutate(state: State | None) -> Outcome:
        if state is None:
            raise NotFoundError("no workflow")
        now = utcnow()
        out = Outcome(state, "", changed=False)
        if handoff is not None:
            from agents_state.handoff.record import record_handoff

            out = record_handoff(
                state,
                handoff,
                now,
                agent=agent,
                policy=policy,
                own_task_only=True,
                sender_prompt=prompt,
            )
        new, at = out.state, format_time(now)
        if not note_answer(new, fanout, key, answer, at):
            return out
        if not out.changed:
            new.revision += 1
            new.updatedAt = at
        event = {"event": "fanout_answer", "fanout": fanout, "key": key}
        rec = {"rev": new.revision, "at": at, **out.record, **event}
        if not fanout.startswith(f"{TASK_PHASE}-w"):
            answers = recorded(new, fanout)
            body = json.dumps(answers, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
            store.write_artifact(answers_file(fanout), body.encode())
        return Outcome(new, out.message, True, rec, dict(out.data))

    return store.commit(mutate)
