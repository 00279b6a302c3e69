"""The prompts of a fan-out's agents in words (issue 35: ``engine.fanout`` decides who runs
and names each brief as a ``Prompt``; this writes its text).

Every Workflow agent's prompt starts with its marker line (``engine.fanout.marker``: the
SubagentStop hook knows whose answer it is) and ends with how to answer (the handoff response,
with the ``StructuredOutput`` tool).  A task agent's brief is the same on both paths (the Agent
tool's prompt, or the Workflow's): its task, its files, where and how to start, and how to
record the result (issue 33).
"""

from __future__ import annotations

from typing import Any

from agents_state.engine.fanout import Prompt, marker
from agents_state.workflow import SIZED_PHASE, Phase

__all__ = ["agent_task_prompt", "prompt_text", "rendered", "task_brief"]

_ANSWER = (
    "Answer with the StructuredOutput tool: its input is your handoff response "
    '(task_id "{task_id}", phase "{role}", decision, status, context_summary, findings).'
)


def _phase_prompt(fan: str, key: str, k: int, n: int, task: str, phase: Phase) -> str:
    area = f"area {k} of {n}"
    if phase.id == SIZED_PHASE:
        where = (
            f"Plan {area}: the {k}. area listed in .agents/phases/1.1-brainstorm.md (under its "
            "Areas heading, or its findings.areas, in order); plan only that area, from the "
            "explore findings in .agents/phases/0-explore.md and the brainstorm."
        )
        role = "write"
    else:
        where = (
            f"Explore {area}: list the project's top-level folders and files (not .agents, "
            f".git or other dot folders) in name order and split that list into {n} "
            f"consecutive parts of nearly equal size (the first parts one larger); map part {k} "
            f"only, as far as it bears on the task (with fewer than {n} entries, part {k} is "
            f"entry {k} modulo their number)."
        )
        role = "research"
    return "\n".join(
        (
            marker(fan, key),
            f"Task: {task}",
            f"Phase {phase.id} ({phase.name}): {phase.instructions}",
            where,
            "Do not write under .agents/.",
            _ANSWER.format(task_id=key, role=role),
        )
    )


def _review_prompt(fan: str, key: str, task: str, phase: Phase, severity: str) -> str:
    return "\n".join(
        (
            marker(fan, key),
            f"Task: {task}",
            f"Phase {phase.id} ({phase.name}): {phase.instructions}",
            f"Review the work of phase {phase.reviews} (its artifact in .agents/phases/) and the "
            'change itself. Put each issue in findings.issues as {"severity": '
            '"critical|high|medium|low", "description": "...", "file": "..."}; issues of '
            f"severity {severity} or above send the work back.",
            "Do not write under .agents/.",
            _ANSWER.format(task_id=key, role="validate"),
        )
    )


def _task_prompt(fan: str, t: dict[str, Any], task: str, detail: Any) -> str:
    return "\n".join(
        (
            marker(fan, t["id"]),
            *task_brief(t, task, detail),
            _ANSWER.format(task_id=t["id"], role="write"),
        )
    )


def agent_task_prompt(t: dict[str, Any], task: str, detail: Any) -> str:
    """The prompt of a task agent launched with the Agent tool (Workflow off, or a task
    dispatched again after a crash): the same brief as a fan-out's, so it too starts with
    ``agents-state task start`` and, under isolation, names its worktree (issue 33)."""
    return "\n".join(
        (
            *task_brief(t, task, detail),
            f'End your answer with your handoff response as a JSON block (task_id "{t["id"]}", '
            'phase "write", decision, status, context_summary, findings).',
        )
    )


def task_brief(t: dict[str, Any], task: str, detail: Any) -> list[str]:
    """What a task agent is told on either path: its task, its files, where and how to start,
    and how to record the result."""
    tid = t["id"]
    lines = [
        f"Workflow task: {task}",
        f"Your task: {tid}" + (f": {t['title']}" if t.get("title") else ""),
    ]
    description = getattr(detail, "description", "")
    if description:
        lines.append(f"Description: {description}")
    if t.get("files"):
        lines.append(f"Files: {', '.join(t['files'])}")
    deps = list(getattr(detail, "dependencies", []) or [])
    if deps:
        lines.append(f"Done before it: {', '.join(deps)}")
    if t.get("worktree"):
        lines.append(
            f"First run: agents-state task start {tid} (worktree isolation is on: it makes your "
            f"worktree {t['worktree']} and prints its folder; work only there, with absolute "
            "paths, and cd into it for every shell command)."
        )
    else:
        lines.append(f"First run: agents-state task start {tid}")
    lines.append(
        f"When done, record it: agents-state task done {tid} --summary '<one line>'; if you "
        f"cannot finish it: agents-state task fail {tid} --error TEXT"
    )
    return lines


def prompt_text(p: Prompt) -> str:
    f = p.facts
    if p.kind == "phase_agent":
        return _phase_prompt(f["fanout"], f["key"], f["k"], f["n"], f["task"], f["phase"])
    if p.kind == "reviewer":
        return _review_prompt(f["fanout"], f["key"], f["task"], f["phase"], f["severity"])
    if p.kind == "task_agent":
        return _task_prompt(f["fanout"], f["t"], f["task"], f["detail"])
    return agent_task_prompt(f["t"], f["task"], f["detail"])


def rendered(out: dict[str, Any]) -> dict[str, Any]:
    """A rendered action's prompts as text (in place): the Workflow call's agents and the
    Agent path's tasks."""
    call = out.get("workflow")
    if isinstance(call, dict):
        agents = call["args"]["agents"]
        out["workflow"] = {
            **call,
            "args": {**call["args"], "agents": [_with_text(a) for a in agents]},
        }
    tasks = out.get("tasks")
    if isinstance(tasks, list):
        out["tasks"] = [_with_text(t) if isinstance(t, dict) else t for t in tasks]
    return out


def _with_text(entry: dict[str, Any]) -> dict[str, Any]:
    p = entry.get("prompt")
    return {**entry, "prompt": prompt_text(p)} if isinstance(p, Prompt) else entry
