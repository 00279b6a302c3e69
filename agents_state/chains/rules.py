"""Design rules of the chains' steps (designs 000 / 002), as data: the code writer's summary cap
and the validator's security check (issue 27).  Pure; read by the requests and by
``chains.answers``."""

from __future__ import annotations

from agents_state.chains.state import ChainState, StepRun

__all__ = ["SECURITY_CHECK", "VALIDATOR", "WRITER_SUMMARY_TOKENS", "capped_writer"]

# design 002's code-writer: "context_summary: Changes made for QA (max 300 tokens)"
WRITER_SUMMARY_TOKENS = 300
# designs 000 / 002: the validator (code-qa) also runs a security check, reported as
# checks.security; a validator's answer without it is refused at `chain record`
VALIDATOR = "quality-validator"
SECURITY_CHECK = (
    "Besides type check, lint, tests and build, run the security check on the changed files: "
    "debug output left in (console.log, print), hardcoded secrets, TODO/FIXME; report it as "
    'checks.security {"passed": ..., "issues": [...]}.'
)


def capped_writer(chain: ChainState, step: StepRun) -> bool:
    """Design 002: the code chain's writer hands the validator at most 300 tokens."""
    return chain.name == "code" and step.role == "write"
