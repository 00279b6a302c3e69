"""The part of the configuration the state machine obeys, as one plain frozen value.

``engine.apply`` takes a ``Policy`` instead of the whole config so that the core stays pure and
cheap to call; ``config.policy_from(config)`` builds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Policy"]


@dataclass(frozen=True)
class Policy:
    compact_between_stages: bool = True
    compact_between_phases: bool = False
    max_per_phase: int = 3
    max_per_task: int = 2
    backoff_seconds: tuple[int, ...] = (5, 15, 30)
    review_max_retries: dict[str, int] = field(default_factory=dict)  # review phase id -> rounds
    lease_seconds: int = 900

    def review_rounds(self, phase_id: str) -> int:
        return self.review_max_retries.get(phase_id, 3)

    def backoff(self, attempt: int) -> int:
        """Seconds to wait before attempt ``attempt + 1`` (attempt counts from 1)."""
        if not self.backoff_seconds:
            return 0
        return self.backoff_seconds[min(attempt, len(self.backoff_seconds)) - 1]
