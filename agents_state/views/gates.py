"""Durable human gates (issue 36) as a person reads them: ``gate list``, ``status``, ``watch``
and ``report`` show the waiting gate, since when, and every past answer."""

from __future__ import annotations

from typing import Any

from agents_state.models import State
from agents_state.safetext import escape
from agents_state.workflow import artifact_path, get_phase

__all__ = ["gate_lines", "gate_summary", "report_section"]


def gate_summary(state: State | None, configured: list[str]) -> dict[str, Any]:
    """``gate list --json``: the configured gates, the one waiting and the answers."""
    waiting = None
    if state is not None and state.gate is not None:
        from agents_state.engine.gatewait import answer_commands

        pid = state.gate.phase
        approve, reject = answer_commands(pid)
        waiting = {
            "phase": pid,
            "phaseName": get_phase(pid).name,
            "since": state.gate.since,
            "artifact": artifact_path(pid),
            "personApproves": approve,
            "personRejects": reject,
        }
    answers = (
        [a.model_dump(mode="json", exclude_none=True) for a in state.gateAnswers]
        if state is not None
        else []
    )
    return {"configured": configured, "waiting": waiting, "answers": answers}


def _answer_line(a: Any) -> str:
    note = f": {escape(a.note)}" if a.note else ""
    return f"    {a.phase} {a.verdict} by {escape(a.by)} at {a.at}{note}"


def gate_lines(state: State) -> list[str]:
    """The status lines: the waiting gate and past answers (none when there are neither)."""
    lines = []
    if state.gate is not None:
        pid = state.gate.phase
        lines.append(
            f"  GATE: waiting for a person since {state.gate.since} after phase {pid} "
            f"{get_phase(pid).name}; look at {artifact_path(pid)}, then run: agents-state gate "
            f"approve {pid} --by NAME (or: gate reject {pid} --by NAME --note TEXT)"
        )
    if state.gateAnswers:
        lines.append("  gate answers:")
        lines.extend(_answer_line(a) for a in state.gateAnswers[-10:])
    return lines


def report_section(state: State) -> list[str]:
    """The report's ``## Gates`` section (markdown), empty without gates."""
    if state.gate is None and not state.gateAnswers:
        return []
    out = ["## Gates"]
    if state.gate is not None:
        out += ["", f"Waiting after phase {state.gate.phase} since {state.gate.since}."]
    if state.gateAnswers:
        out += ["", "| phase | answer | by | at | note |", "|---|---|---|---|---|"]
        for a in state.gateAnswers:
            cells = [a.phase, a.verdict, a.by, a.at, a.note or ""]
            out.append("| " + " | ".join(escape(str(c)).replace("|", "\\|") for c in cells) + " |")
    return out
