"""Aggregate the responses of parallel sub-agents (design 001, REQ-4.6).

Design 001's strategy: PROCEED only if every response says PROCEED; issues flattened; checks keyed
by phase (``type``, ``lint``, ``test``, ``security`` for design 000's quality checkers).  Two
refinements, recorded in ``docs/protocol.md``: when no response says STOP but one says CLARIFY, the
result is CLARIFY with every question; a failed check's failures are part of the issues.  Two
responses with the same phase are keyed ``phase:task_id`` so that neither is lost.
"""

from __future__ import annotations

from typing import Any

from agents_state.handoff.constants import CHECK_MODES
from agents_state.handoff.reduce import Handoff, digest

__all__ = ["aggregate"]

_QA = frozenset({"validate", *CHECK_MODES})


def _dedupe(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def aggregate(handoffs: list[Handoff]) -> Handoff:
    """One ``Handoff`` (kind ``aggregate``) standing for all of ``handoffs``."""
    if not handoffs:
        raise ValueError("nothing to aggregate")
    decisions = [h.decision for h in handoffs]
    if all(d == "PROCEED" for d in decisions):
        decision = "PROCEED"
    elif "STOP" in decisions or None in decisions:
        decision = "STOP"
    else:
        decision = "CLARIFY"
    checks: dict[str, Any] = {}
    tokens: dict[str, int] = {}
    for i, h in enumerate(handoffs):
        phase = h.phase or h.kind
        key = phase if phase not in checks else f"{phase}:{h.task_id or i + 1}"
        checks[key] = h.findings
        if h.tokens_used:
            tokens[phase] = tokens.get(phase, 0) + h.tokens_used
    stopped = [h for h in handoffs if h.decision == "STOP"]
    issues = _dedupe([i for h in handoffs for i in (*h.issues, *h.failures)])
    summaries = [f"{h.phase or h.kind}: {h.summary}" for h in handoffs if h.summary]
    all_qa = all((h.phase in _QA) or h.kind in ("validator", "checker") for h in handoffs)
    reason = (
        "; ".join(
            f"{h.phase or h.kind}{' ' + h.task_id if h.task_id else ''} said STOP" for h in stopped
        )
        or None
    )
    data = {
        "decision": decision,
        "checks": checks,
        "issues": list(issues),
        "tokens_used": tokens,
        "responses": len(handoffs),
        "sources": [digest(h) for h in handoffs],
    }
    return Handoff(
        kind="validator" if all_qa else "aggregate",
        data=data,
        task_id=None,
        phase="validate" if all_qa else None,
        decision=decision,
        summary=" | ".join(summaries) or None,
        tokens_used=sum(tokens.values()) or None,
        issues=issues,
        questions=_dedupe([q for h in handoffs for q in h.questions]),
        reason=reason,
        failures=_dedupe([f for h in stopped for f in (h.failures or h.issues)]),
        findings=checks,
    )
