"""The sub-agent handoff protocol: validate a request or response and reduce it to one shape.

``parse_handoff(text, source)`` takes what a sub-agent replied (JSON, or JSON in prose or a code
fence), works out which shape it is (or takes ``kind``), validates it, and returns a ``Handoff``:
the decision, summary, issues, questions and failures the workflow needs, whatever the shape.
Every problem is collected and reported at once, each with its field path
(``context.relevant_files.2: must be a string``).  Beyond the schema: the 500-token cap on summaries
(``tokens.estimate_tokens``), no secrets (``secrets.find_secrets``), and the cross-field rules of
the decisions (CLARIFY needs questions, STOP needs a reason, PROCEED cannot come with a failed
check or a blocked status).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from agents_state.errors import InvalidInputError
from agents_state.handoff import models as hm
from agents_state.handoff.errors import Problem, pydantic_problems
from agents_state.handoff.extract import ExtractError, extract_json
from agents_state.handoff.reduce import Handoff, reduce_model
from agents_state.handoff.secrets import find_secrets
from agents_state.handoff.tokens import SUMMARY_TOKEN_LIMIT, estimate_tokens

__all__ = [
    "KINDS",
    "Handoff",
    "HandoffInvalidError",
    "Problem",
    "check_handoff",
    "detect_kind",
    "parse_handoff",
]

KINDS: dict[str, type[BaseModel]] = {
    "request": hm.HandoffRequest,
    "response": hm.HandoffResponse,
    "researcher": hm.ResearcherOutput,
    "writer": hm.WriterOutput,
    "validator": hm.ValidatorOutput,
    "checker": hm.CheckerOutput,
    "spec-analyzer": hm.SpecAnalyzerOutput,
    "code-analyzer": hm.CodeAnalyzerOutput,
    "git-content": hm.GitContentOutput,
}

# the fields that carry a compacted summary, each capped at SUMMARY_TOKEN_LIMIT
_SUMMARY_PATHS: tuple[tuple[str, ...], ...] = (
    ("context_summary",),
    ("summary",),
    ("context", "previous_findings"),
    ("context", "research_summary"),
    ("context", "implementation_summary"),
)


class HandoffInvalidError(InvalidInputError):
    """A handoff with one or more problems; the message names every one with its path."""

    code = "invalid_handoff"

    def __init__(self, file: str, problems: list[Problem]) -> None:
        self.problems = problems
        if len(problems) == 1:
            super().__init__(file, problems[0].path, problems[0].message)
        else:
            listed = "; ".join(str(p) for p in problems)
            super().__init__(file, "", f"{len(problems)} problems: {listed}")

    def to_json(self) -> dict[str, object]:
        data = super().to_json()
        err = data["error"]
        assert isinstance(err, dict)
        err["problems"] = [{"path": p.path, "message": p.message} for p in self.problems]
        return data


def detect_kind(data: dict[str, Any]) -> str:
    """Which shape ``data`` is, from the fields that only that shape has."""
    keys = data.keys()
    if "decision" not in keys and ("instructions" in keys or "context" in keys):
        return "request"
    for key, kind in (
        ("check_type", "checker"),
        ("content_type", "git-content"),
        ("analysis", "code-analyzer"),
        ("mode", "spec-analyzer"),
        ("checks", "validator"),
    ):
        if key in keys:
            return kind
    if isinstance(data.get("status"), str) and data["status"].strip().upper() in (
        "PASS",
        "FAIL",
        "PASSED",
        "FAILED",
    ):
        return "validator"
    if "files_changed" in keys and "findings" not in keys and "context_summary" not in keys:
        return "writer"
    if "files_changed" in keys and "decision" not in keys:
        return "writer"
    if len({"task_id", "phase", "status"} & keys) >= 2 or "findings" not in keys:
        return "response"
    return "researcher"


def parse_handoff(text: str, source: str, kind: str = "auto") -> Handoff:
    """Extract, validate and reduce; raises ``HandoffInvalidError`` listing every problem."""
    try:
        data = extract_json(text)
    except ExtractError as e:
        raise HandoffInvalidError(source, [Problem("", str(e))]) from None
    return check_handoff(data, source, kind)


def check_handoff(data: dict[str, Any], source: str, kind: str = "auto") -> Handoff:
    if kind == "auto":
        kind = detect_kind(data)
    if kind not in KINDS:
        raise HandoffInvalidError(
            source, [Problem("", f"unknown handoff kind {kind!r}; one of {', '.join(KINDS)}")]
        )
    problems: list[Problem] = []
    model: BaseModel | None = None
    try:
        model = KINDS[kind].model_validate(data)
    except ValidationError as e:
        problems.extend(pydantic_problems(e))
    problems.extend(_cap_problems(data))
    problems.extend(
        Problem(
            path,
            f"looks like {what}; handoffs must not carry secrets: remove "
            "it and name where the secret lives instead (an env var)",
        )
        for path, what in find_secrets(data)
    )
    if model is not None:
        problems.extend(_rule_problems(kind, model))
    if problems:
        raise HandoffInvalidError(source, problems)
    assert model is not None
    return reduce_model(kind, data, model)


def _cap_problems(data: dict[str, Any]) -> list[Problem]:
    out = []
    for path in _SUMMARY_PATHS:
        value: Any = data
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str):
            size = estimate_tokens(value)
            if size > SUMMARY_TOKEN_LIMIT:
                out.append(
                    Problem(
                        ".".join(path),
                        (
                            f"{size} tokens (estimated), over the {SUMMARY_TOKEN_LIMIT}-token "
                            "cap: keep "
                            "file paths, patterns, conflicts and the reason for the decision; drop "
                            "queries, file contents and intermediate reasoning"
                        ),
                    )
                )
    return out


def _rule_problems(kind: str, m: BaseModel) -> list[Problem]:
    out: list[Problem] = []
    if isinstance(m, hm.HandoffRequest):
        if m.phase in ("research", "write") and m.context.feature is None:
            out.append(Problem("context.feature", f"required for a {m.phase} request"))
        return out
    decision = getattr(m, "decision", None)
    status = getattr(m, "status", None)
    if isinstance(m, hm.HandoffResponse | hm.ResearcherOutput) and not m.context_summary.strip():
        out.append(
            Problem(
                "context_summary", "must not be empty: summarise the findings for the next phase"
            )
        )
    if isinstance(m, hm.ValidatorOutput):
        out.extend(_validator_rules(m))
    elif isinstance(m, hm.CheckerOutput) and decision == "PROCEED" and m.status == "fail":
        out.append(Problem("decision", "PROCEED contradicts status fail; use STOP"))
    if decision == "CLARIFY" and not m.questions:  # type: ignore[attr-defined]
        out.append(
            Problem("questions", "decision CLARIFY needs at least one question for the user")
        )
    reason, issues = getattr(m, "reason", None), getattr(m, "issues", None)
    if decision == "STOP" and not (reason or issues or kind in ("validator", "checker")):
        out.append(Problem("reason", "decision STOP needs a reason: set reason or list issues"))
    if decision == "PROCEED" and status in ("blocked", "failed", "partial"):
        out.append(Problem("decision", f"PROCEED contradicts status {status}; use STOP or CLARIFY"))
    return out


def _validator_rules(m: hm.ValidatorOutput) -> list[Problem]:
    out = []
    failed = [name for name, c in m.checks.items() if not c.passed]
    if m.decision is None and m.status not in ("PASS", "FAIL"):
        out.append(Problem("decision", "required field missing (or give status PASS or FAIL)"))
    passing = m.decision == "PROCEED" or m.status == "PASS"
    if passing:
        out.extend(Problem(f"checks.{name}", f"failed, but {_said(m)}") for name in failed)
    if m.decision == "PROCEED" and m.status == "FAIL":
        out.append(Problem("decision", "PROCEED contradicts status FAIL"))
    if m.decision == "STOP" and m.status == "PASS":
        out.append(Problem("decision", "STOP contradicts status PASS"))
    return out


def _said(m: hm.ValidatorOutput) -> str:
    return "decision is PROCEED" if m.decision == "PROCEED" else "status is PASS"
