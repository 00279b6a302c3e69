"""Build a handoff request from the workflow state (pure).

The request carries compacted context only (REQ-5.6): the ``context_summary`` of the latest
recorded PROCEED on another target goes into ``previous_findings``, never raw findings; a pending
QA failure becomes design 002's ``retry_context``; answered clarifications become constraints.
"""

from __future__ import annotations

from typing import Any

from agents_state.handoff.protocol import check_handoff
from agents_state.handoff.record import Target
from agents_state.models import State
from agents_state.workflow import SIZED_PHASE, TASK_PHASE, PhaseKind, get_phase

__all__ = ["EXPECTED_OUTPUT", "build_request", "default_role"]

EXPECTED_OUTPUT = {
    "research": "structured_findings",
    "write": "files_changed",
    "validate": "validation_result",
}

_ROLE_BY_KIND = {
    PhaseKind.AGENTS: "research",
    PhaseKind.INLINE: "write",
    PhaseKind.TASKS: "write",
    PhaseKind.REVIEW: "validate",
    PhaseKind.COMMANDS: "validate",
}


def default_role(phase_id: str) -> str:
    if phase_id == SIZED_PHASE:
        return "research"  # plan agents read and plan; they do not change files
    return _ROLE_BY_KIND[get_phase(phase_id).kind]


def _previous_findings(state: State, target: Target) -> str | None:
    records = state.handoffs.records if state.handoffs else []
    for rec in reversed(records):
        if rec.decision == "PROCEED" and rec.summary and rec.target != str(target):
            return rec.summary
    return None


def _retry(state: State, target: Target) -> dict[str, Any] | None:
    retry = state.handoffs.retry if state.handoffs else None
    if retry is None:
        return None
    if (target.task and retry.task == target.task) or (
        not target.task and retry.phase == target.phase and not retry.task
    ):
        return {"failures": list(retry.failures), "attempt": retry.attempt or 2}
    return None


def _answers(state: State, target: Target) -> list[str]:
    out = []
    for c in state.clarifications:
        if c.answer and (c.task == target.task if target.task else c.phase == target.phase):
            out.append(f"The user answered {' / '.join(c.questions)!r}: {c.answer}")
    return out


def build_request(
    state: State,
    *,
    role: str | None = None,
    task: str | None = None,
    task_id: str | None = None,
    instructions: str | None = None,
    files: tuple[str, ...] = (),
    constraints: tuple[str, ...] = (),
    spec_path: str | None = None,
) -> dict[str, Any]:
    """A validated request (as a JSON-ready dict) for the current phase, or for ``task``."""
    phase_id = TASK_PHASE if task else (state.currentPhase or "0")
    target = Target(phase_id, task)
    spec = get_phase(phase_id)
    role = role or default_role(phase_id)
    t = (state.phase(TASK_PHASE).tasks or {}).get(task) if task else None
    context: dict[str, Any] = {
        "feature": state.task,
        "spec_path": spec_path,
        "relevant_files": [*files, *(t.files if t else [])],
        "constraints": [*constraints, *_answers(state, target)],
        "previous_findings": _previous_findings(state, target),
    }
    retry = _retry(state, target)
    if retry:
        context["retry_context"] = retry
    default_instr = (t.description or t.title) if t else spec.instructions
    request = {
        "task_id": task_id or task or f"{role}-{phase_id}",
        "phase": role,
        "context": context,
        "instructions": instructions or default_instr or spec.name,
        "expected_output": EXPECTED_OUTPUT.get(role),
    }
    check_handoff(request, "request", "request")  # caps, secrets, schema
    return request
