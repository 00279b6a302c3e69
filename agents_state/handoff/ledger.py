"""Moved to ``agents_state.engine.ledger`` (issue 26: the engine's next action counts the answers
noted, and the engine imports nothing above it); kept so that old imports keep working."""

from __future__ import annotations

from agents_state.engine.ledger import LEDGER, ledger, phase_records, tokens_by_phase

__all__ = ["LEDGER", "ledger", "phase_records", "tokens_by_phase"]
