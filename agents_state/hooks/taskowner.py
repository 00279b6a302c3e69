"""Which agent holds which task, as the hooks see it: the engine's own record (issue 32).

A plugin sub-agent's ``agents-state task claim|start|done|fail`` is approved only with
``--agent agent-<agent_id>`` added (the host's id of the calling agent, from the PreToolUse
payload; the command is rewritten through ``updatedInput``), so the engine records that id as
the task's ``owner`` when the agent claims or starts it, and checks it when the agent reports.
Before approving, the hook reads the state itself:

- ``task done|fail X`` from a sub-agent: approved only when X is in progress and held by it;
  otherwise denied with the reason (a sibling's task, a task nobody started, a finished one).
- ``task start X``: denied when another agent holds X.
- the main conversation's ``task done|fail X``: not approved (Claude Code asks the user) while a
  sub-agent holds X; ``--force`` (a person's completion of an unstarted task) is never on the
  approvals list at all (``engine_steps``).

``held_in`` is the same record for the own-room rule (``ownroom``): the task an agent may
write for is the one it holds, never what a prompt or a description says.  Both read who holds
what from the hooks' view (``store.hookview.facts``, issue 35) when it names the very state
file; only a denial's reason (what the task is, if nobody holds it) reads the state itself.
Standard library only: this runs inside the approvals hook.
"""

from __future__ import annotations

import re
import shlex

from agents_state.taskref import OWNER_PREFIX, owner_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["OWNER_PREFIX", "held_in", "held_task", "judge", "owner_of"]

_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_VALUED = frozenset({"--summary", "--result", "--agent", "--attempt", "--error", "--root"})
_TASK_PHASE = "2.1"
_DENY = "agents-state: "


def _tasks(state: dict[str, Any] | None) -> dict[str, Any]:
    if not isinstance(state, dict):
        return {}
    stages = state.get("stages")
    impl = stages.get("IMPLEMENT") if isinstance(stages, dict) else None
    phases = impl.get("phases") if isinstance(impl, dict) else None
    phase = phases.get(_TASK_PHASE) if isinstance(phases, dict) else None
    tasks = phase.get("tasks") if isinstance(phase, dict) else None
    return tasks if isinstance(tasks, dict) else {}


def held_task(state: dict[str, Any] | None, agent_id: str) -> str | None:
    """The task of phase 2.1 the sub-agent ``agent_id`` holds (in progress, its owner), or
    ``None``."""
    me = owner_of(agent_id)
    held = [
        tid
        for tid, t in _tasks(state).items()
        if isinstance(t, dict) and t.get("status") == "in_progress" and t.get("owner") == me
    ]
    return held[0] if len(held) == 1 else None


def held_in(facts: dict[str, Any] | None, agent_id: str) -> str | None:
    """``held_task`` from the facts of ``store.hookview`` (``held``: owner -> task ids)."""
    held = facts.get("held") if isinstance(facts, dict) else None
    mine = held.get(owner_of(agent_id)) if isinstance(held, dict) else None
    return mine[0] if isinstance(mine, list) and len(mine) == 1 else None


def _holder(facts: dict[str, Any] | None, task_id: str) -> str | None:
    """Who holds ``task_id`` (in progress, an owner named), per the facts; ``None``: nobody."""
    held = facts.get("held") if isinstance(facts, dict) else None
    for owner, tasks in held.items() if isinstance(held, dict) else ():
        if isinstance(tasks, list) and task_id in tasks:
            return str(owner)
    return None


def _facts(project: str) -> dict[str, Any] | None:
    """``store.hookview.facts`` of the active workflow at ``project`` (``None``: none active)."""
    from agents_state.hooks._base import active_facts

    return active_facts(project)


def _read(words: list[str]) -> tuple[str, str | None, str | None] | None:
    """(verb, task id, --agent value) of ``agents-state [opts] task VERB ...``."""
    i, verb = 1, None
    task_id: str | None = None
    agent: str | None = None
    while i < len(words):
        word = words[i]
        i += 1
        name, eq, value = word.partition("=")
        if name in _VALUED:
            if not eq:
                value, i = (words[i] if i < len(words) else ""), i + 1
            if name == "--agent":
                agent = value
            continue
        if word.startswith("-"):
            if word == "--":
                return None  # nothing can be added after it
            continue
        if word == "task" and verb is None:
            verb = ""
        elif verb == "":
            verb = word
        elif task_id is None:
            task_id = word
    return (verb, task_id, agent) if verb else None


def _state(project: str) -> dict[str, Any] | None:
    from agents_state.hooks._base import active_state

    return active_state(project)


def judge(payload: dict[str, Any], project: str, reason: str) -> tuple[str, str, str | None] | None:
    """The approvals hook's answer to an approved ``agents-state task ...`` command:
    ("allow", reason, the command to run instead or None), ("deny", reason, None), or None
    (no approval: Claude Code asks)."""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return None
    try:
        found = _read(shlex.split(command))
    except ValueError:
        return None
    if found is None:
        return None
    verb, task_id, given = found
    agent_id = payload.get("agent_id")
    if not payload.get("agent_type"):  # the main conversation
        if verb in ("done", "fail") and task_id:
            holder = _holder(_facts(project), task_id)
            if holder is not None and holder.startswith(OWNER_PREFIX):
                return None  # a sub-agent holds it: the user decides
        return "allow", reason, None
    if not isinstance(agent_id, str) or not _ID.fullmatch(agent_id):
        return "deny", f"{_DENY}the hook input names no agent_id, so task {verb} is denied", None
    me = owner_of(agent_id)
    if given is not None and given != me:
        return (
            "deny",
            f"{_DENY}a sub-agent's task commands carry its own id; run it again without "
            f"--agent {given}",
            None,
        )
    if verb in ("done", "fail", "start") and task_id:
        holder = _holder(_facts(project), task_id)
        if verb == "start":
            why = None if holder is None or holder == me else _held_by_another(task_id)
        elif holder == me:
            why = None
        else:  # the reason names what the task is: read the state itself (a denial, rare)
            why = _not_yours(_state(project), task_id, me, agent_id, verb)
        if why:
            return "deny", why, None
    rewritten = command if given is not None else f"{command} --agent {me}"
    return "allow", reason, rewritten


def _held_by_another(task_id: str) -> str:
    return f"{_DENY}task {task_id} is held by another agent; stop and report blocked"


def _not_yours(
    state: dict[str, Any] | None, task_id: str, me: str, agent_id: str, verb: str
) -> str | None:
    """Why the sub-agent may not run ``task VERB task_id``, or None."""
    task = _tasks(state).get(task_id)
    if not isinstance(task, dict):
        return None  # unknown task: the engine says so itself
    status, owner = task.get("status"), task.get("owner")
    if verb == "start":
        return _held_by_another(task_id) if status == "in_progress" and owner != me else None
    if status == "in_progress" and owner == me:
        return None
    mine = held_task(state, agent_id)
    if status == "pending":
        what = "nobody started it (an agent runs agents-state task start first)"
    elif status == "in_progress":
        what = "another agent holds it"
    else:
        what = f"it is {status}"
    return (
        f"{_DENY}task {verb} {task_id} is only for the agent that holds {task_id}, and {what}; "
        + (f"this agent holds task {mine}" if mine else "this agent holds no task")
        + ": report only your own task, and say the rest in your handoff"
    )
