"""A fan-out as the host's ``Workflow`` (issue 25): its agents, their prompts and the call (pure).

A fan-out is a step that launches several agents at once: the explore agents of phase 0, the
plan agents of 1.2, a review phase's reviewer and each wave's task agents in 2.1.  The engine
already knows every agent's prompt, type and model; ``workflow_call`` writes them as the ``args``
of ``Workflow({name: "subagents:fanout", args})`` (``workflows/fanout.js`` runs them with
``parallel()``).  Every prompt starts with a marker line naming the fan-out and the agent's key,
so the SubagentStop hook knows whose answer it is (``marker_of``) and records it as it arrives
(``note_answer``, in ``state.fanouts``); the call ``next`` prints after a crash, an exit or a
new session holds only the agents not yet answered.  In 2.1 an agent's answer is its task's
handoff, recorded on the task itself; the wave's call holds the tasks still ready.
"""

from __future__ import annotations

import re
from typing import Any

from agents_state.models import Fanout, FanoutAnswer, FanoutLaunch, LaunchSession, State
from agents_state.workflow import SIZED_PHASE, TASK_PHASE, Phase

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.engine.decision import Decision

__all__ = [
    "FANOUTS",
    "FANOUT_WORDS",
    "HANDOFF_SCHEMA",
    "WORKFLOW_NAME",
    "agent_task_prompt",
    "fanout_id",
    "marker",
    "marker_of",
    "note_answer",
    "note_launch",
    "recorded",
    "task_brief",
    "workflow_call",
]

WORKFLOW_NAME = "subagents:fanout"
FANOUTS = "fanouts"  # the state field that holds the answers, by fan-out id and agent key
ARGS_VERSION = 1

_MARKER = r"\[agents-state fanout ([0-9][0-9.]*(?:-w[0-9]+)?) agent ([A-Za-z0-9_.-]+)\]"

# The handoff response (``handoff.models.HandoffResponse``) as the ``StructuredOutput`` tool's
# input schema: the generated schema without titles and defaults (a test holds the two equal),
# written out so that ``next`` loads no pydantic.
_TEXT_OR_NULL: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "null"}]}
HANDOFF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "task_id": {"type": "string", "minLength": 1},
        "phase": {
            "type": "string",
            "enum": ["research", "write", "validate", "build", "type", "lint", "test", "security"],
        },
        "tokens_used": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        "issues": {"type": "array", "items": {"type": "string"}},
        "questions": {"type": "array", "items": {"type": "string"}},
        "reason": _TEXT_OR_NULL,
        "status": {"type": "string", "enum": ["complete", "partial", "blocked"]},
        "decision": {"type": "string", "enum": ["PROCEED", "STOP", "CLARIFY"]},
        "findings": {"type": "object", "additionalProperties": True},
        "context_summary": {"type": "string"},
        "checks": {"anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}]},
        "files_changed": {"type": "array", "items": {}},
        "summary": _TEXT_OR_NULL,
        "notes": _TEXT_OR_NULL,
    },
    "required": ["task_id", "phase", "status", "decision", "context_summary"],
}

_ANSWER = (
    "Answer with the StructuredOutput tool: its input is your handoff response "
    '(task_id "{task_id}", phase "{role}", decision, status, context_summary, findings).'
)


def marker(fanout: str, key: str) -> str:
    return f"[agents-state fanout {fanout} agent {key}]"


def marker_of(prompt: str) -> tuple[str, str] | None:
    """(fan-out id, agent key) of the first marker line in a prompt, or None.  The host wraps a
    workflow agent's prompt (a "[Workflow harness ...]" header, then the prompt with every line
    indented), so the marker is the first line that is a whole marker, not the first line."""
    for line in prompt.split("\n"):
        if "[agents-state fanout " in line:
            found = re.fullmatch(_MARKER, line.strip())
            if found:
                return found.group(1), found.group(2)
    return None


def fanout_id(phase: Phase, wave: int | None = None) -> str:
    return f"{TASK_PHASE}-w{wave}" if phase.id == TASK_PHASE else phase.id


# -- the answers recorded so far -----------------------------------------------------------------


def _entry(state: State, fanout: str) -> tuple[str, Fanout]:
    """(its phase, the entry of ``fanout`` for the current run of its phase): a fresh record
    when none was noted in this run (a review sent the phase back: a new run)."""
    phase = TASK_PHASE if fanout.startswith(f"{TASK_PHASE}-w") else fanout
    started = state.phase(phase).startedAt
    entry = (state.fanouts or {}).get(fanout)
    if entry is None or entry.since != started:
        return phase, Fanout(phase=phase, since=started)
    return phase, entry.model_copy()


def _put(state: State, fanout: str, entry: Fanout) -> None:
    state.fanouts = {**(state.fanouts or {}), fanout: entry}


def recorded(state: State, fanout: str) -> dict[str, Any]:
    """The answers recorded for ``fanout`` since its phase (last) started, by agent key: each
    ``{"at", "answer"}`` as in ``.agents/phases/fanout-<id>.json``."""
    entry = (state.fanouts or {}).get(fanout)
    if entry is None:
        return {}
    started = state.phase(entry.phase).startedAt if entry.phase else None
    if entry.since != started:
        return {}  # a former run of the phase (a review sent it back): not this one's answers
    return {k: {"at": a.at, "answer": a.answer} for k, a in entry.answers.items()}


def note_answer(state: State, fanout: str, key: str, answer: Any, at: str) -> bool:
    """Record agent ``key``'s answer to ``fanout`` in ``state`` (under the store's lock; the
    records read are not changed, new ones are set); False when the same answer is there."""
    _, entry = _entry(state, fanout)
    was = entry.answers.get(key)
    if was is not None and was.answer == answer:
        return False
    entry.answers = {**entry.answers, key: FanoutAnswer(at=at, answer=answer)}
    _put(state, fanout, entry)
    return True


def note_launch(state: State, fanout: str, session: str, keys: list[str], at: str) -> list[str]:
    """Record that the session ``session`` launched ``keys`` of ``fanout`` in this run of its
    phase (under the store's lock); the keys it had launched already (issue 32: a printed
    fan-out is approved once; a new session, after a kill, prints it anew)."""
    from agents_state.workflow import PHASE_IDS

    phase, entry = _entry(state, fanout)
    # the run: a phase sent back keeps its first startedAt; a send-back or a failure starts one
    rounds = sum(state.phase(p).reviewRounds for p in PHASE_IDS)
    run = f"{state.phase(phase).startedAt or ''}|{state.phase(phase).attempts}|{rounds}"
    launched = entry.launched
    sessions = dict(launched.sessions) if launched is not None and launched.run == run else {}
    mine = sessions.get(session)
    known = list(mine.keys) if mine is not None else []
    before = [k for k in known if k in keys]
    if before:
        return before
    sessions[session] = LaunchSession(at=at, keys=sorted({*known, *keys}))
    entry.launched = FanoutLaunch(run=run, sessions=sessions)
    _put(state, fanout, entry)
    return []


# -- the call ------------------------------------------------------------------------------------


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


def _spec(key: str, label: str, agent_type: str, model: str | None, prompt: str) -> dict[str, Any]:
    return {
        "key": key,
        "label": label,
        "agentType": agent_type,
        "model": model or "inherit",
        "prompt": prompt,
        "schema": HANDOFF_SCHEMA,
    }


def _who(agents: dict[str, Any]) -> tuple[str, str] | None:
    """(sub-agent type, Agent model) of a step's agents; None for a Codex model (a review
    ``agents-state review run`` does: that step keeps today's path)."""
    if agents.get("agentModel") is not None and agents.get("subagentType"):
        return str(agents["subagentType"]), str(agents["agentModel"])
    return None


FANOUT_WORDS = ("phase_agents", "review", "wave")  # the steps that are fan-outs


def workflow_call(state: State, d: Decision) -> dict[str, Any] | None:
    """``{"name", "args"}`` of the Workflow call for a fan-out step, with the agents not yet
    answered; ``None`` when the step is not a fan-out or every agent has answered."""
    key_words, facts = d.words
    phase, agents, extra, kind = d.phase, d.agents, d.extra, d.kind
    if agents is None or phase is None or key_words not in FANOUT_WORDS:
        return None
    specs: list[dict[str, Any]] = []
    if key_words == "wave":
        fan = fanout_id(phase, extra.get("wave"))
        tasks = state.phase(TASK_PHASE).tasks or {}
        for t in extra.get("tasks") or []:
            prompt = _task_prompt(fan, t, state.task, tasks.get(t["id"]))
            label = f"{t['id']} {t.get('title') or ''}".strip()[:80]
            model = t.get("agentModel")
            specs.append(_spec(t["id"], label, "subagents:task-agent", model, prompt))
    else:
        who = _who(agents)
        if who is None:
            return None
        fan = fanout_id(phase)
        n = int(agents.get("count") or 1)
        letter = "R" if kind == "review" else ("P" if phase.id == SIZED_PHASE else "E")
        done = recorded(state, fan)
        for k in range(1, n + 1):
            key = f"{letter}{k}"
            if key in done:
                continue
            if kind == "review":
                prompt = _review_prompt(fan, key, state.task, phase, str(facts["severity"]))
            else:
                prompt = _phase_prompt(fan, key, k, n, state.task, phase)
            specs.append(_spec(key, f"{phase.id} {key}", who[0], who[1], prompt))
    if not specs:
        return None
    args = {
        "v": ARGS_VERSION,
        "workflow": state.startedAt or "",
        "phase": phase.id,
        "fanout": fan,
        "agents": specs,
    }
    return {"name": WORKFLOW_NAME, "args": args}
