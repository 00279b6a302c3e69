"""Which answers ``chain record`` takes for the chain's current step (pure; issue 27).

Another step's answer (a request, another role's shape, phase or task id, an earlier run's) is
refused in one line naming the file, as are a code writer's summary over its cap and a
validator's answer without the security check.
"""

from __future__ import annotations

from agents_state.chains.action import _slug, slot_paths
from agents_state.chains.rules import VALIDATOR, WRITER_SUMMARY_TOKENS, capped_writer
from agents_state.chains.state import ChainState, StepRun
from agents_state.errors import InvalidInputError
from agents_state.handoff.constants import CHECK_MODES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agents_state.handoff.reduce import Handoff

__all__ = ["check_answers"]

# the handoff shapes that only one step role produces (the others, e.g. the generic response,
# say who they answer by their task_id and phase)
_ROLE_OF_KIND = {
    "researcher": "research",
    "writer": "write",
    "validator": "validate",
    "checker": "validate",
}


def check_answers(chain: ChainState, answers: list[tuple[str, Handoff]]) -> None:
    """Issue 27: every (file, handoff) answers the chain's current step, or one line refuses it
    (exit 5): a request, another step's shape, phase or task id (an earlier run's included)."""
    step = chain.step
    if step is None or chain.status != "running":
        return
    ids = [
        f"{chain.id}-{step.id}-{step.runs}" + (f"-{_slug(i)}" if i else "")
        for i, _req, _resp in slot_paths(chain, step)
    ]
    here = f"the current step of {chain.id} is {step.id} ({step.role}, task_id {' or '.join(ids)})"
    for shown, h in answers:
        if h.is_request:
            raise InvalidInputError(shown, "", f"is a handoff request, not an answer; {here}")
        role = _ROLE_OF_KIND.get(h.kind, step.role)
        if role != step.role:
            raise InvalidInputError(shown, "", f"is a {h.kind}'s answer ({role}); {here}")
        # only what the file says: a shape's implied phase (researcher -> research) is no claim
        said = h.phase if "phase" in h.data else None
        if said is not None and ("validate" if said in CHECK_MODES else said) != step.role:
            raise InvalidInputError(shown, "phase", f"{said!r} answers another step; {here}")
        if "task_id" in h.data and h.task_id not in ids:
            raise InvalidInputError(
                shown, "task_id", f"{h.task_id!r} answers another step or run; {here}"
            )
        _check_design_rules(chain, step, shown, h)


def _check_design_rules(chain: ChainState, step: StepRun, shown: str, h: Handoff) -> None:
    """The code writer's 300-token summary and the validator's security check (issue 27)."""
    size = h.summary_tokens
    if capped_writer(chain, step) and size > WRITER_SUMMARY_TOKENS:
        raise InvalidInputError(
            shown,
            "context_summary",
            f"{size} tokens (estimated), over the code writer's {WRITER_SUMMARY_TOKENS}-token "
            "cap: keep the files changed and what the validator must check",
        )
    checks = h.data.get("checks")
    validator = step.agent == VALIDATOR and h.kind == "validator" and isinstance(checks, dict)
    if validator and not any(str(k).lower() == "security" for k in checks or {}):
        raise InvalidInputError(
            shown,
            "checks.security",
            "missing: the validator runs the security check too (debug output, hardcoded "
            "secrets, TODO/FIXME in the changed files)",
        )
