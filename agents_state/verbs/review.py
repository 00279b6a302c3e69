"""``review run``: a review phase judged by Codex and recorded (issue 37; the use case is
``codexrun.run_codex_review``, this gives it the commands' typed result, issue 35)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents_state.verbs.common import outcome

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.verbs.results import Recorded

__all__ = ["review_run"]


def review_run(app: App, phase_id: str) -> Recorded:
    """Run review phase ``phase_id`` with Codex and record it; ``extra["codex"]`` says what ran
    (and ``usageNotBooked`` when the review is recorded but its tokens are not)."""
    from agents_state.codexrun import run_codex_review
    from agents_state.engine.phases import check_phase_id

    out, ran = run_codex_review(app, check_phase_id(phase_id))
    return outcome(app, out.message, state=out.state, codex=ran)
