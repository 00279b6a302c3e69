"""Durable human gates (issue 36, pure): a person approves chosen phases before the next starts.

Configured as ``"gates": ["1.3", "4.2"]``.  When a gated phase is recorded (its status becomes
``completed``; a phase skipped by config or by a person is not recorded), ``advance`` stops at it
instead of moving on: ``state.gate`` names the phase and since when, ``currentPhase`` stays on
it.  While a gate waits, the workflow accepts only the person's answer and the moves that start
nothing (stop, abort, compact): every other event is refused with a line naming the command the
person runs.  ``gate approve`` moves on (``advance`` past the gate); ``gate reject`` sends the
workflow back to the phase, whose next action carries the note.  Every answer is appended to
``state.gateAnswers`` (who, when, note) and logged as a ``gate`` event.

An answer is applied once: the same answer again (same phase, verdict, person and note as the
phase's last answer) once the gate no longer waits is a no-op; any other answer to a phase that
does not wait is refused, the state untouched.
"""

from __future__ import annotations

from agents_state.engine import events as ev
from agents_state.engine.advance import advance
from agents_state.engine.context import Ctx, Outcome, check_phase_id
from agents_state.engine.flow import HANDLERS
from agents_state.engine.gatewait import last_answer, person_line
from agents_state.engine.table import phase_target
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import GateAnswer, State
from agents_state.workflow import get_phase

__all__ = ["ALLOWED_AT_GATE", "VERDICTS", "check_not_waiting"]

# what a waiting gate accepts besides the answer: moves that start nothing
ALLOWED_AT_GATE = frozenset({"gate", "stop", "abort", "compact"})
VERDICTS = {"approved": "approve", "rejected": "reject"}  # the record's word -> the command


def check_not_waiting(state: State, event: ev.Event) -> None:
    """Refuse ``event`` while a gate waits, unless it starts nothing (``ALLOWED_AT_GATE``) or is
    the gated phase's own record repeated with the same artifact (a no-op)."""
    wait = state.gate
    if wait is None or event.name in ALLOWED_AT_GATE:
        return
    if isinstance(event, ev.PhaseComplete) and event.phase == wait.phase and event.same_artifact:
        return
    raise TransitionNotAllowedError(
        "workflow",
        f"waiting at the gate after phase {wait.phase} (since {wait.since})",
        event.name.replace("_", " "),
        hint=person_line(wait.phase),
    )


@HANDLERS.on(ev.GateAnswer)
def _gate_answer(c: Ctx, e: ev.GateAnswer) -> Outcome:
    state, ts = c.state, c.ts
    check_phase_id(e.phase)
    wait = state.gate
    if wait is None or wait.phase != e.phase:
        last = last_answer(state, e.phase)
        if last is not None and (last.verdict, last.by, last.note) == (e.verdict, e.by, e.note):
            return Outcome(
                state,
                f"gate {e.phase} was already {last.verdict} by {last.by} at {last.at}; "
                "nothing changed",
                changed=False,
            )
        where = f"the gate after phase {wait.phase} waits" if wait else "no gate waits"
        raise TransitionNotAllowedError(
            f"gate {e.phase}", "not waiting", VERDICTS[e.verdict], hint=where
        )
    answer = GateAnswer(phase=e.phase, verdict=e.verdict, by=e.by, at=ts, note=e.note)
    state.gateAnswers.append(answer)
    state.gate = None
    name = get_phase(e.phase).name
    if e.verdict == "approved":
        return advance(c, e.phase, f"gate {e.phase} {name} approved by {e.by}", gate_passed=True)
    phase = state.phase(e.phase)
    phase.status = phase_target(f"phase {e.phase}", phase.status, "gate_reject")
    phase.completedAt = None
    state.currentPhase, state.currentStage = e.phase, get_phase(e.phase).stage
    return Outcome(
        state,
        f"gate {e.phase} {name} rejected by {e.by}: phase {e.phase} runs again with the note; "
        "see: agents-state next",
    )
