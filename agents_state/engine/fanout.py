"""A fan-out as the host's ``Workflow`` (issue 25): its agents, their prompts and the call (pure).

A fan-out is a step that launches several agents at once: the explore agents of phase 0, the
plan agents of 1.2, a review phase's reviewer and each wave's task agents in 2.1.  The engine
already knows every agent, its type and model; ``workflow_call`` writes them as the ``args``
of ``Workflow({name: "subagents:fanout", args})`` (``workflows/fanout.js`` runs them with
``parallel()``), each prompt as a ``Prompt`` (which brief, and its facts) that
``views.prompts`` words when the step is rendered (issue 35). Every prompt starts with a marker
line naming the fan-out and the agent's key, so the SubagentStop hook knows whose answer it is
(``marker_of``) and records it as it arrives (``note_answer``, in ``state.fanouts``); the call
``next`` prints after a crash, an exit or a new session holds only the agents not yet answered. In
2.1 an agent's answer is its task's handoff, recorded on the task itself; the wave's call holds the
tasks still ready.
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
    "Prompt",
    "fanout_id",
    "marker",
    "marker_of",
    "note_answer",
    "note_launch",
    "recorded",
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


class Prompt:
    """An agent's prompt as data: which brief (``kind``: ``phase_agent``, ``reviewer``,
    ``task_agent`` on the Workflow path, ``agent_task`` on the Agent path) and its facts;
    ``views.prompts`` writes its text when the decision is rendered (issue 35)."""

    __slots__ = ("facts", "kind")

    def __init__(self, kind: str, /, **facts: Any) -> None:
        self.kind, self.facts = kind, facts

    def __repr__(self) -> str:
        return f"Prompt({self.kind!r})"


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


def _spec(
    key: str, label: str, agent_type: str, model: str | None, prompt: Prompt
) -> dict[str, Any]:
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
            prompt = Prompt(
                "task_agent", fanout=fan, t=t, task=state.task, detail=tasks.get(t["id"])
            )
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
                severity = str(facts["severity"])
                prompt = Prompt(
                    "reviewer", fanout=fan, key=key, task=state.task, phase=phase, severity=severity
                )
            else:
                prompt = Prompt(
                    "phase_agent", fanout=fan, key=key, k=k, n=n, task=state.task, phase=phase
                )
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
