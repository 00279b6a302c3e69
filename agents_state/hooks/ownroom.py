"""Where a task agent may write under worktree isolation (issue 22): its own room.

During phase 2.1 a task agent's room is its own task's worktree (``.agents/worktrees/<id>``);
after it (the simplify agent of 2.2), the engine's worktree of the merged work
(``.agents/worktrees/_integration``).  Which task is the agent's is the engine's own record
(issue 32): the task in progress whose ``owner`` is the calling agent's host id
(``agent-<agent_id>``, which the approvals hook adds to the agent's ``task start``;
``taskowner.held_task``).  Never the prompt's text: a task description that quotes another
task's ``agents-state task start`` moved the room when the prompt decided.  An agent that
holds no task (it has not run its ``task start`` yet) has no room: the write is denied (fail
closed).  The worktrees folder is always ``.agents/worktrees``, whatever the state says.

``task_named`` and ``agent_transcript`` read a dispatch prompt and find an agent's transcript:
the handoff path still uses the prompt to tell which task an answer may complete.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "agent_transcript",
    "isolated_state",
    "own_room",
    "room_denial",
    "task_named",
]

_ID = re.compile(r"[A-Za-z0-9_.-]+")
_COMMAND = re.compile(
    r"agents-state(?:\s+--?\S+(?:\s+[^\s-]\S*)?)*\s+task\s+(?:start|claim|done|fail)\s+"
    r"['\"]?([A-Za-z0-9][A-Za-z0-9_.-]*)"
)
_FIELD = re.compile(r"""["']?task_id["']?\s*[:=]\s*["']([A-Za-z0-9][A-Za-z0-9_.-]*)""")
_TASK_PHASE = "2.1"


def isolated_state(root: str) -> dict[str, Any] | None:
    """What the room check reads of the workflow's state (``store.hookview.facts``: the
    current phase, whether phase 2.1 has tasks, who holds which) when worktree isolation is on
    (the state has a ``git`` block), else ``None``; raises ``ValueError`` with a one-line
    reason when it cannot be read.  From the hooks' view when it names the very state file
    (issue 35: a task agent's write then costs the same at 10 tasks and at 10,000), else from
    the state itself."""
    from agents_state.hooks._base import pg_store
    from agents_state.hooks.hookjson import loads, loads_file
    from agents_state.hooks.workflow_root import fresh_view, read_regular
    from agents_state.store.hookview import facts

    path = os.path.join(root, ".agents", "state.json")
    try:
        server = os.environ.get("AGENTS_STATE_STORE", "").startswith(("postgresql:", "postgres:"))
        pg = pg_store(root) if server else None  # the import only for a server store
        if pg is not None:
            raw = pg.read_bytes()
            data = loads(raw) if raw is not None else None
        else:
            view = fresh_view(root)
            if view is not None:
                return view if view.get("git") is True else None
            data = loads_file(read_regular(path, 64 * 1024 * 1024))
    except FileNotFoundError:
        return None
    except Exception as e:  # unreadable file, server down: the caller fails closed
        raise ValueError(f"cannot read the workflow state ({e})") from None
    if not isinstance(data, dict):
        return None
    found = facts(data)
    return found if found["git"] else None


def agent_transcript(payload: dict[str, Any]) -> str | None:
    """The calling agent's own transcript, or ``None`` when the payload cannot name it."""
    given = payload.get("agent_transcript_path")  # SubagentStop carries it
    if isinstance(given, str) and given:
        return given
    main, agent = payload.get("transcript_path"), payload.get("agent_id")
    if not isinstance(main, str) or not main.endswith(".jsonl") or not isinstance(agent, str):
        return None
    if not _ID.fullmatch(agent):
        return None
    folder = os.path.join(main[: -len(".jsonl")], "subagents")
    path = os.path.join(folder, f"agent-{agent}.jsonl")
    if os.path.exists(path):
        return path
    try:  # a workflow's agent: subagents/workflows/<run>/agent-<id>.jsonl
        runs = sorted(os.listdir(os.path.join(folder, "workflows")))
    except OSError:
        return path
    for run in runs:
        found = os.path.join(folder, "workflows", run, f"agent-{agent}.jsonl")
        if os.path.exists(found):
            return found
    return path


def task_named(prompt: str, tasks: dict[str, Any], waves: list[Any]) -> str | None:
    """The task of ``tasks`` the dispatch ``prompt`` sends its agent to do, or ``None``."""
    from agents_state.taskref import names_task

    wave_of = {
        t: n
        for n, w in enumerate(waves)
        if isinstance(w, dict)
        for t in (w.get("tasks") or [])
        if isinstance(t, str)
    }
    for found in (
        {m for m in _COMMAND.findall(prompt) if m in tasks},
        {m for m in _FIELD.findall(prompt) if m in tasks},
        {t for t in tasks if names_task(prompt, t)},
    ):
        if len(found) > 1 and all(t in wave_of for t in found):
            last = max(wave_of[t] for t in found)  # the tasks it depends on come earlier
            found = {t for t in found if wave_of[t] == last}
        if found:
            return found.pop() if len(found) == 1 else None
    return None


def own_room(root: str, state: dict[str, Any], payload: dict[str, Any]) -> tuple[str, str]:
    """(the folder the task agent may write, its name for messages), from ``state``, the facts
    ``isolated_state`` gives; raises ``ValueError`` with a one-line reason when the room cannot
    be told."""
    rel = ".agents/worktrees"  # where the engine puts them (a state's other word is forged)
    base = os.path.realpath(os.path.join(root, rel))
    current = str(state.get("currentPhase") or "")
    if _after_tasks(current):
        return os.path.join(base, "_integration"), f"{rel}/_integration"
    if state.get("tasksLoaded") is not True:
        raise ValueError("phase 2.1 has no tasks loaded yet")
    agent = payload.get("agent_id")
    if not isinstance(agent, str) or not _ID.fullmatch(agent):
        raise ValueError("the hook input names no agent_id")
    from agents_state.hooks.taskowner import held_in

    task = held_in(state, agent)
    if task is None or not _ID.fullmatch(task):
        raise ValueError(
            "it holds no task of phase 2.1: it runs the agents-state task start <id> command "
            "of its prompt first"
        )
    return os.path.join(base, task), f"task {task}'s worktree {rel}/{task}"


def _after_tasks(phase: str) -> bool:
    try:
        return tuple(int(p) for p in phase.split(".")) > (2, 1)
    except ValueError:
        return False


def room_denial(
    root: str, state: dict[str, Any], payload: dict[str, Any], target: str
) -> str | None:
    """The one-line reason a task agent's write to ``target`` (a real path) is denied, or
    ``None`` when it is inside the agent's own room."""
    try:
        room, name = own_room(root, state, payload)
    except ValueError as e:
        return (
            "worktree isolation is on and this task agent's own worktree cannot be told "
            f"({e}), so its writes are denied; finish with decision STOP and say so"
        )
    if target == room or target.startswith(room + os.sep):
        return None
    return (
        f"worktree isolation is on: this agent writes only inside {name} "
        f"({room}); {target} is outside it"
    )
