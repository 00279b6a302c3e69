"""The handoff ledger, ``state.handoffs`` (``models.HandoffLedger``; read side, pure and light).

``handoff_record`` writes it; ``status`` reads its token counts, so this module imports nothing
of the handoff models (pydantic) and stays on the hot path at no cost.
"""

from __future__ import annotations

from agents_state.models import HandoffLedger, HandoffNote, State

__all__ = ["LEDGER", "ledger", "phase_records", "tokens_by_phase"]

LEDGER = "handoffs"  # the state field that holds the ledger


def ledger(state: State) -> HandoffLedger:
    """A fresh copy of the ledger (its lists and dicts new: change it, then set it on the
    state), an empty one before the first response is recorded."""
    led = state.handoffs
    if led is None:
        return HandoffLedger()
    fresh = led.model_copy()
    fresh.records, fresh.tokens = list(led.records), dict(led.tokens)
    return fresh


def tokens_by_phase(state: State) -> dict[str, int]:
    """``tokens_used`` reported by sub-agents, summed per workflow phase (NFR-1)."""
    return dict(state.handoffs.tokens) if state.handoffs else {}


def phase_records(state: State, phase_id: str) -> list[HandoffNote]:
    """The sub-agent answers noted for ``phase_id`` (not its tasks') since the phase started."""
    started = state.phase(phase_id).startedAt or ""
    records = state.handoffs.records if state.handoffs else []
    return [r for r in records if r.phase == phase_id and not r.task and r.at >= started]
