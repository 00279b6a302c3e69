"""What every engine module shares: the handler context, the outcome and the done statuses.

The engine's modules import one way: ``ready`` -> ``context`` -> ``table`` -> ``advance`` ->
``gate`` / ``tasks`` -> ``flow`` -> ``phases`` (which holds ``apply``).  Nothing here imports an
engine module but ``ready``, so no module needs a lazy import of another's private names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agents_state.engine.ready import DONE
from agents_state.errors import NotFoundError
from agents_state.models import State
from agents_state.policy import Policy
from agents_state.workflow import PHASE_IDS

__all__ = ["DONE", "Ctx", "Outcome", "check_phase_id"]


@dataclass(frozen=True)
class Ctx:
    """One transition's working copy of the state, its time stamp, policy and clock reading."""

    state: State
    ts: str
    policy: Policy
    now: datetime


@dataclass(frozen=True)
class Outcome:
    """The result of one event: the new state, what to log, and what to tell the caller."""

    state: State
    message: str
    changed: bool = True
    record: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)


def check_phase_id(phase_id: str) -> str:
    if phase_id not in PHASE_IDS:
        raise NotFoundError(f"unknown phase '{phase_id}'; phases are {', '.join(PHASE_IDS)}")
    return phase_id
