"""Start a chain, build its handoff requests and its next action (pure).

Every request is built from the chain state alone: the feature, the user's answers, and the
``context_summary`` of the step before (never its raw findings, REQ-5.6).  The next action has
the shape of the workflow's (``nextaction``): kind, agents {count, type, subagentType, model,
modelId}, read, write, command, instructions; plus the chain id, the step and its requests.
"""

from __future__ import annotations

import re
import shlex
from datetime import datetime
from typing import Any

from agents_state.chains.catalogue import TEMPLATES, ChainDef, Step
from agents_state.chains.rules import (
    SECURITY_CHECK,
    VALIDATOR,
    WRITER_SUMMARY_TOKENS,
    capped_writer,
)
from agents_state.chains.state import MAX_WRITER_RETRIES, ChainState, StepRun, step_runs
from agents_state.config import resolve_model
from agents_state.engine.scoring import Sizing
from agents_state.types import format_time

__all__ = [
    "CHAINS_DIR",
    "chain_action",
    "new_chain",
    "requests_for",
    "slot_paths",
]

CHAINS_DIR = ".agents/chains"
EXPECTED = {
    "research": "structured_findings",
    "write": "files_changed",
    "validate": "validation_result",
}
_ANSWER_WITH = (
    " Answer with the handoff JSON only: decision PROCEED, STOP (with a reason) or "
    "CLARIFY (with questions), and a context_summary of at most 500 tokens."
)


def new_chain(
    defn: ChainDef,
    chain_id: str,
    feature: str,
    steps: tuple[Step, ...],
    *,
    now: datetime,
    sizing: Sizing | None,
    inputs: dict[str, object],
    shape: str,
    only: str | None,
    submode: str | None,
    models: dict[str, str],
    files: tuple[str, ...] = (),
    constraints: tuple[str, ...] = (),
    spec_path: str | None = None,
    prior_summary: str | None = None,
    workflow: dict[str, Any] | None = None,
) -> ChainState:
    ts = format_time(now)
    runs = step_runs(steps, models)
    runs[0].status, runs[0].runs = "running", 1
    sized = {"count": sum(r.count for r in runs), "shape": shape, "inputs": inputs}
    if sizing is not None:
        sized.update(designed=sizing.count, level=sizing.level, reasons=list(sizing.reasons))
    chain = ChainState(
        id=chain_id,
        name=defn.name,
        pattern=defn.pattern,
        feature=feature,
        only=only,
        submode=submode,
        sizing=sized,
        steps=runs,
        files=list(files),
        constraints=list(constraints),
        specPath=spec_path,
        priorSummary=prior_summary,
        workflow=workflow,
        models=models,
        createdAt=ts,
        updatedAt=ts,
    )
    chain.history.append({"rev": 1, "at": ts, "event": "start", "step": runs[0].id})
    return chain


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def slot_paths(chain: ChainState, step: StepRun) -> list[tuple[str | None, str, str]]:
    """(instance, request path, response path) of each sub-agent of the step's current run."""
    base = f"{CHAINS_DIR}/{chain.id}/{step.id}-{step.runs}"
    if not step.instances:
        return [(None, f"{base}.request.json", f"{base}.response.json")]
    return [
        (i, f"{base}-{_slug(i)}.request.json", f"{base}-{_slug(i)}.response.json")
        for i in step.instances
    ]


def _previous_summary(chain: ChainState) -> str | None:
    for s in reversed(chain.steps[: chain.current]):
        if s.status == "completed" and s.summary:
            return s.summary
    return chain.priorSummary


def _research_summary(chain: ChainState) -> str | None:
    i = chain.index_of("research")
    if i is None or i >= chain.current or chain.steps[i].status != "completed":
        return None
    return chain.steps[i].summary


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _instructions(chain: ChainState, step: StepRun, instance: str | None) -> str:
    t = TEMPLATES[step.agent]
    mode = step.mode or (instance if instance in t.modes else None)
    parts = [f"You are {t.name}" + (f" in mode {mode}" if mode else "") + f": {_lower(t.does)}."]
    if instance and instance not in t.modes:
        parts.append(f"Your part: {instance} (split by module boundaries; touch only it).")
    if step.role == "write":
        parts.append(
            "Work from context.previous_findings only (the research summary), "
            "tests first; list every file you change."
        )
    if step.id == "triage":
        parts.append(
            "Put complexity (simple, medium or complex) and your estimate of files, "
            "tasks, modules and effort (small, medium, large) in analysis: they pick "
            "the branch and the number of sub-agents."
        )
    if step.role == "validate" and chain.index_of("write") is not None:
        parts.append(
            "Check the files in context.files_changed; STOP with the failures if any check fails."
        )
    if step.agent == VALIDATOR:
        parts.append(SECURITY_CHECK)
    if chain.retry and step.role == "write":
        parts.append(
            f"Attempt {chain.retry['attempt']}: fix the failures in context.retry_context first."
        )
    if chain.simplified:
        parts = [
            f"Simplified retry after a timeout: {_lower(t.does)}; do the minimum, in few "
            "tool calls, and answer even with partial results (status partial)."
        ]
    answer = _ANSWER_WITH
    if capped_writer(chain, step):
        answer = answer.replace("at most 500 tokens", f"at most {WRITER_SUMMARY_TOKENS} tokens")
    return " ".join(parts) + answer


def _constraints(chain: ChainState) -> list[str]:
    answers = [
        f"The user answered {' / '.join(a.get('questions') or [])!r}: {a['answer']}"
        for a in chain.answers
    ]
    return answers if chain.simplified else [*chain.constraints, *answers]


def requests_for(chain: ChainState) -> list[dict[str, Any]]:
    """The validated handoff requests of the current step, one per sub-agent."""
    step = chain.step
    if step is None or chain.status != "running":
        return []
    files = list(chain.files)[:3] if chain.simplified else list(chain.files)
    out = []
    for instance, _req, _resp in slot_paths(chain, step):
        context: dict[str, Any] = {
            "feature": chain.feature,
            "spec_path": chain.specPath,
            "relevant_files": files,
            "constraints": _constraints(chain),
            "previous_findings": _previous_summary(chain),
        }
        writer = chain.index_of("write")
        if step.role == "validate" and writer is not None and writer < chain.current:
            context["files_changed"] = chain.steps[writer].files
        research = _research_summary(chain)
        if step.role == "write" and research is not None:
            # design 002: the writer works from the researcher's summary, also when an analyzer
            # ran between them (the 4-agent code chain; issue 27)
            context["previous_findings"] = context["research_summary"] = research
        if step.id == "write" and chain.retry:
            context["retry_context"] = dict(chain.retry)
        suffix = f"-{_slug(instance)}" if instance else ""
        request = {
            "task_id": f"{chain.id}-{step.id}-{step.runs}{suffix}",
            "phase": step.role,
            "context": context,
            "instructions": _instructions(chain, step, instance),
            "expected_output": EXPECTED[step.role],
        }
        from agents_state.handoff.protocol import check_handoff  # the boundary: pydantic

        check_handoff(request, f"{chain.id} {step.id} request", "request")
        out.append(request)
    return out


# -- the next action ---------------------------------------------------------------------------


def _action(
    kind: str,
    chain: ChainState,
    *,
    instructions: str,
    command: str | None,
    read: list[str] | None = None,
    write: str | None = None,
    agents: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    step = chain.step
    return {
        "kind": kind,
        "stage": None,
        "phase": None,
        "phaseName": f"chain {chain.id}" + (f" / {step.id}" if step else ""),
        "agents": agents,
        "read": read or [],
        "write": write,
        "command": command,
        "instructions": instructions,
        "chain": chain.id,
        "step": step.id if step else None,
        **extra,
    }


def chain_action(chain: ChainState) -> dict[str, Any]:
    cid = shlex.quote(chain.id)
    if chain.status == "completed":
        final = next((s.summary for s in reversed(chain.steps) if s.summary), None)
        where = ""
        if chain.workflow:
            target = chain.workflow.get("task") or f"phase {chain.workflow.get('phase')}"
            where = f" Recorded on the workflow ({target}); continue it with: agents-state next."
        return _action(
            "done",
            chain,
            command="agents-state next" if chain.workflow else None,
            instructions=f"Chain {chain.id} completed: {final or chain.feature}. "
            f"Report it to the user in two lines.{where}",
        )
    if chain.status == "aborted":
        return _action(
            "done",
            chain,
            command=None,
            instructions=f"Chain {chain.id} was aborted; its files are kept in .agents/chains/.",
        )
    if chain.status == "waiting":
        assert chain.clarify is not None
        return _action(
            "ask_user",
            chain,
            questions=list(chain.clarify["questions"]),
            command='agents-state resume --answer "<the user\'s answer>"',
            instructions="Ask the user these questions and record the answer (or: "
            f"agents-state chain answer {cid} --answer-file -).",
        )
    if chain.status == "blocked":
        what = "escalated to the user" if chain.escalated else "blocked"
        return _action(
            "blocked",
            chain,
            reason=chain.blockedReason,
            command=f"agents-state chain retry {cid}",
            instructions=f"Chain {chain.id} {what}: {chain.blockedReason}. Show the "
            "user the reason and the options: fix it and run the command, or "
            f"abort with: agents-state chain abort {cid}.",
        )
    return _dispatch_action(chain, cid)


def _dispatch_action(chain: ChainState, cid: str) -> dict[str, Any]:
    step = chain.step
    assert step is not None
    slots = slot_paths(chain, step)
    t = TEMPLATES[step.agent]
    agents = {
        "count": step.count,
        "type": step.agent,
        "subagentType": f"subagents:{t.name}",
        "model": step.model,
        "modelId": resolve_model(step.model),
    }
    responses = " ".join(resp for _i, _req, resp in slots)
    n = len(slots)
    how = "one sub-agent" if n == 1 else f"{n} sub-agents in parallel, one per request"
    retry = (
        f" Writer retry {chain.writerRetries} of {MAX_WRITER_RETRIES}."
        if chain.retry and step.id == "write"
        else ""
    )
    simple = " Simplified handoff after a timeout." if chain.simplified else ""
    extra: dict[str, Any] = {}
    if n > 1:
        extra["instances"] = [
            {"instance": i, "request": req, "response": resp} for i, req, resp in slots
        ]
    return _action(
        "dispatch_agents",
        chain,
        agents=agents,
        read=[req for _i, req, _resp in slots],
        write=responses,
        command=f"agents-state chain record {cid} {responses}",
        instructions=f"Chain {chain.id} ({chain.name}), step {step.id}: launch {how} "
        f"(Agent tool, subagent_type {agents['subagentType']}, model {step.model}), passing "
        f"the request file's JSON as the prompt. Save each reply to its response file, then "
        f"run the command. If a sub-agent does not answer in time: agents-state chain timeout "
        f"{cid}.{retry}{simple}",
        **extra,
    )
