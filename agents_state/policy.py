"""The part of the configuration the state machine obeys, as one plain frozen value.

``engine.apply`` takes a ``Policy`` instead of the whole config so that the core stays pure and
cheap to call; ``config.policy_from(config)`` builds it.  A ``NamedTuple``, not a frozen
dataclass: every command loads it, and a frozen dataclass costs ~1.5 ms to define (it compiles
six methods), a named tuple ~0.3 ms (``docs/performance.md``).
"""

# No ``from __future__ import annotations`` here: ``NamedTuple`` would compile every field's
# annotation text at import (issue 26, start-up).
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

__all__ = ["Policy", "default_policy"]


class Policy(NamedTuple):
    compact_between_stages: bool = True
    compact_between_phases: bool = False
    max_per_phase: int = 3
    max_per_task: int = 2
    backoff_seconds: tuple[int, ...] = (5, 15, 30)
    # review phase id -> rounds; read-only (a default shared by every Policy must never change)
    review_max_retries: Mapping[str, int] = MappingProxyType({})
    lease_seconds: int = 900
    # issue 36: phases after whose recording the workflow waits for a person
    gates: frozenset[str] = frozenset()

    def review_rounds(self, phase_id: str) -> int:
        return self.review_max_retries.get(phase_id, 3)

    def backoff(self, attempt: int) -> int:
        """Seconds to wait before attempt ``attempt + 1`` (attempt counts from 1)."""
        if not self.backoff_seconds:
            return 0
        return self.backoff_seconds[min(attempt, len(self.backoff_seconds)) - 1]


def default_policy() -> Policy:
    """The policy of the built-in configuration, ``config.policy_from(Config())`` (a test keeps
    them equal): a transition in a project with no configuration layer takes it without loading
    the configuration's records (``App.policy``)."""
    from agents_state.workflow import REVIEW_PHASES

    return Policy(review_max_retries=MappingProxyType(dict.fromkeys(REVIEW_PHASES, 3)))
