"""What a waiting gate says (issue 36, pure and light: ``next`` and ``status`` load it, never
the transition code of ``engine.humangate``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents_state.models import GateAnswer, State
from agents_state.workflow import artifact_path, get_phase

if TYPE_CHECKING:
    from agents_state.engine.decision import Decision

__all__ = ["answer_commands", "gate_decision", "last_answer", "person_line"]


def answer_commands(phase_id: str) -> tuple[str, str]:
    """The person's two commands at the gate after ``phase_id``."""
    return (
        f"agents-state gate approve {phase_id} --by NAME",
        f'agents-state gate reject {phase_id} --by NAME --note "WHY"',
    )


def person_line(phase_id: str) -> str:
    """One story for every refusal and next action: the person answers, never the model."""
    approve, reject = answer_commands(phase_id)
    return (
        f"only a person answers it, in their own shell: {approve} (or: {reject}); "
        "do not run it yourself: tell the user and end your turn"
    )


def gate_decision(state: State) -> Decision:
    """The next action while a gate waits: ``ask_user`` of the kind ``gate``, with no command
    for the model to run (the commands are the person's)."""
    from agents_state.engine.decision import Decision

    assert state.gate is not None
    pid = state.gate.phase
    approve, reject = answer_commands(pid)
    gate = {
        "phase": pid,
        "since": state.gate.since,
        "artifact": artifact_path(pid),
        "personApproves": approve,
        "personRejects": reject,
    }
    facts = {**gate, "name": get_phase(pid).name}
    return Decision("ask_user", get_phase(pid), ("gate", facts), None, ask="gate", gate=gate)


def last_answer(state: State, phase_id: str) -> GateAnswer | None:
    """The latest answer given at the gate after ``phase_id``."""
    return next((a for a in reversed(state.gateAnswers) if a.phase == phase_id), None)
