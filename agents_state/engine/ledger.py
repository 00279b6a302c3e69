"""The handoff ledger: a plain dict kept in ``state.handoffs`` (read side, pure and light).

``handoff_record`` writes it; ``status`` reads its token counts, so this module imports nothing
of the handoff models (pydantic) and stays on the hot path at no cost.
"""

from __future__ import annotations

from typing import Any

from agents_state.models import State

__all__ = ["LEDGER", "ledger", "phase_records", "tokens_by_phase"]

LEDGER = "handoffs"  # the state field that holds the ledger


def ledger(state: State) -> dict[str, Any]:
    """The ledger as a fresh dict with well-formed ``records`` and ``tokens``."""
    raw = (state.model_extra or {}).get(LEDGER)
    data: dict[str, Any] = dict(raw) if isinstance(raw, dict) else {}
    records = data.get("records")
    data["records"] = (
        [r for r in records if isinstance(r, dict)] if isinstance(records, list) else []
    )
    tokens = data.get("tokens")
    data["tokens"] = (
        {str(k): v for k, v in tokens.items() if isinstance(v, int)}
        if isinstance(tokens, dict)
        else {}
    )
    return data


def tokens_by_phase(state: State) -> dict[str, int]:
    """``tokens_used`` reported by sub-agents, summed per workflow phase (NFR-1)."""
    return dict(ledger(state)["tokens"])


def phase_records(state: State, phase_id: str) -> list[dict[str, Any]]:
    """The sub-agent answers noted for ``phase_id`` (not its tasks') since the phase started."""
    started = state.phase(phase_id).startedAt or ""
    return [
        r
        for r in ledger(state)["records"]
        if r.get("phase") == phase_id and not r.get("task") and str(r.get("at", "")) >= str(started)
    ]
