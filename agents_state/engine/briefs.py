"""A fan-out's briefs by reference (issue 34, item 1; pure).

The main conversation pays for every character of a Workflow call three times: ``next`` prints
it, the model copies it into its call, and the host echoes the arguments back in the result's
notification.  So the call carries each agent's key and one short line, and the agent's whole
brief (the prompt ``engine.fanout`` builds) is a file the engine writes under
``.agents/briefs/<fan-out>/<key>.md``, which the agent reads first.  The handoff schema every
agent answers with is named once (``"schema": "handoff"``; ``workflows/fanout.js`` holds it)
instead of once per agent.  The marker line stays the prompt's first line: the SubagentStop
hook still knows whose answer it is.  The approval (``hooks.workflow_call``) recomputes the same
call, and writes the same briefs, so a call that differs is refused as before.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["BRIEFS", "SCHEMA_NAME", "by_reference", "tasks_by_reference"]

BRIEFS = ".agents/briefs"
SCHEMA_NAME = "handoff"
_READ_IT = "read it first (the Read tool), then do what it says."
_SAFE = r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}"  # a key that is one plain file name


def by_reference(action: dict[str, Any], root: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The action with its Workflow call's prompts replaced by references, and the briefs to
    write (absolute path -> text).  An action without a call, or an agent whose key or fan-out
    id is not a plain file name, is left as it is."""
    from agents_state.engine.fanout import HANDOFF_SCHEMA

    call = action.get("workflow")
    if not isinstance(call, dict) or not isinstance(call.get("args"), dict):
        return action, {}
    args = call["args"]
    fan = str(args.get("fanout", ""))
    if not re.fullmatch(_SAFE, fan):
        return action, {}
    folder = os.path.join(os.path.realpath(root), BRIEFS, fan)
    files: dict[str, str] = {}
    agents: list[Any] = []
    for agent in args.get("agents") or []:
        key = str(agent.get("key", "")) if isinstance(agent, dict) else ""
        prompt = agent.get("prompt") if isinstance(agent, dict) else None
        if not re.fullmatch(_SAFE, key) or not isinstance(prompt, str) or "\n" not in prompt:
            agents.append(agent)
            continue
        head, _, brief = prompt.partition("\n")
        path = os.path.join(folder, f"{key}.md")
        files[path] = brief.rstrip("\n") + "\n"
        short = (
            f"{head}\nYour brief is {path}: read it first (the Read tool), then do what it says."
        )
        spec = {k: v for k, v in agent.items() if k != "schema" or v != HANDOFF_SCHEMA}
        agents.append({**spec, "prompt": short})
    if not files:
        return action, {}
    new_call = {**call, "args": {**args, "schema": SCHEMA_NAME, "agents": agents}}
    return {**action, "workflow": new_call}, files


def tasks_by_reference(action: dict[str, Any], root: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The Agent path (no Workflow call): each task's prompt (``tasks[].prompt``, which the
    model passes to its Agent call verbatim) becomes a brief under
    ``.agents/briefs/<phase>/<task>.md`` and a two-line prompt that names the task (the hooks'
    ``names_task`` reads it from the prompt) and the brief.  A task whose id is not a plain file
    name keeps its prompt."""
    tasks = action.get("tasks")
    fan = str(action.get("phase", ""))
    if action.get("workflow") or not isinstance(tasks, list) or not re.fullmatch(_SAFE, fan):
        return action, {}
    folder = os.path.join(os.path.realpath(root), BRIEFS, fan)
    files: dict[str, str] = {}
    listed: list[Any] = []
    for task in tasks:
        tid = str(task.get("id", "")) if isinstance(task, dict) else ""
        prompt = task.get("prompt") if isinstance(task, dict) else None
        if not re.fullmatch(_SAFE, tid) or not isinstance(prompt, str) or "\n" not in prompt:
            listed.append(task)
            continue
        path = os.path.join(folder, f"{tid}.md")
        files[path] = prompt.rstrip("\n") + "\n"
        listed.append({**task, "prompt": f"Your task: {tid}\nYour brief is {path}: {_READ_IT}"})
    if not files:
        return action, {}
    return {**action, "tasks": listed}, files
