"""PreToolUse approval of the plugin's own Workflow call (issue 25).

The host asks before a ``Workflow`` call (and refuses it under ``claude -p``).  The call the
engine prints for a fan-out is one of its own steps: ``Workflow({name: "subagents:fanout",
args})`` with ``args`` (an object, or the same as a JSON string) equal to what ``agents-state
next`` prints now, or to that call with fewer of its agents.  That call is allowed without a
prompt; a ``subagents:fanout`` call with any other input is denied with the reason (its
prompts, models or agent types are not the engine's); any other workflow gets no answer (the
host's own rules and prompt apply).  The engine's call is computed with the native path forced
on: the hook's environment is not the Bash tool's, and the call's arguments do not depend on
the path.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["judge"]

_KEYS = frozenset({"name", "args"})


def _args(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value


def _within(args: Any, expected: dict[str, Any]) -> bool:
    """``args`` is the engine's call, or the same with fewer (not none) of its agents."""
    if args == expected:
        return True
    if not isinstance(args, dict) or set(args) != set(expected):
        return False
    if any(args[k] != expected[k] for k in expected if k != "agents"):
        return False
    agents = args.get("agents")
    if not isinstance(agents, list) or not agents:
        return False
    keys = [a.get("key") if isinstance(a, dict) else None for a in agents]
    return len(set(keys)) == len(keys) and all(a in expected["agents"] for a in agents)


def judge(tool_input: Any, project: str, session: object = None) -> tuple[bool, str] | None:
    """(allowed, reason) for a Workflow call in ``project``; None to leave it to the host
    (another workflow, or the engine's call launched once already by this session)."""
    from agents_state.engine.fanout import WORKFLOW_NAME

    if not isinstance(tool_input, dict) or tool_input.get("name") != WORKFLOW_NAME:
        return None
    from agents_state.app import App
    from agents_state.errors import AgentsStateError

    try:
        app = App.open(project)
        state = app.state()
        action = (  # the briefs the call references written, should next not have
            app.next_action(state, native=True, advice=False, briefs=True)
            if state is not None
            else {}
        )
    except AgentsStateError as e:
        return False, f"agents-state: the workflow cannot be read ({e.message}); denied."
    call = action.get("workflow")
    if not isinstance(call, dict):
        return False, (
            "agents-state: the workflow's next step is not a fan-out, so no "
            f"{WORKFLOW_NAME} call is due; run agents-state next and do what it says."
        )
    if set(tool_input) - _KEYS or not _within(_args(tool_input.get("args")), call["args"]):
        return False, (
            f"agents-state: this {WORKFLOW_NAME} call is not the one the engine printed (its "
            "agents, prompts, models or schema differ); run agents-state next and make its call "
            "exactly as printed."
        )
    fan = call["args"]["fanout"]
    keys = [str(a.get("key")) for a in _args(tool_input.get("args"))["agents"]]
    try:
        again = _launch(app, fan, session if isinstance(session, str) else "", keys)
    except AgentsStateError as e:
        return False, f"agents-state: the workflow cannot be recorded ({e.message}); denied."
    if again:
        return None  # launched once already in this run and session: the person decides
    return True, f"subagents plugin: fan-out {fan} of the agents-state engine, as next printed it"


def _launch(app: Any, fan: str, session: str, keys: list[str]) -> list[str]:
    """Record the launch of ``keys`` in the state, in one commit; the keys this session had
    launched already in this run of the phase (issue 32)."""
    from agents_state.engine.context import Outcome
    from agents_state.engine.fanout import note_launch
    from agents_state.errors import NotFoundError
    from agents_state.types import format_time, utcnow

    again: list[str] = []

    def mutate(state: Any) -> Outcome:
        if state is None:
            raise NotFoundError("no workflow")
        at = format_time(utcnow())
        again[:] = note_launch(state, fan, session, keys, at)
        if again:
            return Outcome(state, "", changed=False)
        state.revision += 1
        state.updatedAt = at
        record = {"rev": state.revision, "at": at, "event": "fanout_launch", "fanout": fan}
        return Outcome(state, "", True, {**record, "keys": keys})

    app.store.commit(mutate)
    return again
