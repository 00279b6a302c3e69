"""pydantic models of the sub-agent handoff protocol (designs 000, 001, 002, 003).

A request goes from the orchestrator to a sub-agent; a response comes back.  Besides the generic
response of designs 001 / 003 there are the mode-specific output shapes of design 000 (and the
code-agent shapes of design 002): researcher, writer, validator (two variants), checker, and the
analyzer and git-content shapes.  Unknown fields are refused so that a model's typo
(``decison``) is reported instead of silently ignored; values drift in case and spelling
(``proceed``, ``Complete``, ``"15000"``), so those are normalised on read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from agents_state.handoff.constants import CHECK_MODES

__all__ = [
    "CHECK_MODES",
    "PHASES",
    "CheckResult",
    "CheckerOutput",
    "CodeAnalyzerOutput",
    "FileChange",
    "GitContentOutput",
    "HandoffRequest",
    "HandoffResponse",
    "RequestContext",
    "ResearchFindings",
    "ResearcherOutput",
    "RetryContext",
    "SpecAnalyzerOutput",
    "TestsWritten",
    "ValidatorOutput",
    "WriterOutput",
]

PHASES: tuple[str, ...] = ("research", "write", "validate", *CHECK_MODES)

_PHASE_ALIASES = {
    "researcher": "research",
    "researching": "research",
    "explore": "research",
    "writer": "write",
    "writing": "write",
    "implement": "write",
    "implementation": "write",
    "validator": "validate",
    "validation": "validate",
    "qa": "validate",
    "check": "validate",
    "types": "type",
    "typecheck": "type",
    "tests": "test",
    "testing": "test",
}
_STATUS_ALIASES = {"completed": "complete", "done": "complete", "success": "complete"}


def _norm(aliases: dict[str, str], upper: bool = False) -> Any:
    def norm(v: Any) -> Any:
        if not isinstance(v, str):
            return v
        s = v.strip().upper() if upper else v.strip().lower()
        return aliases.get(s, s)

    return BeforeValidator(norm)


def _to_list(v: Any) -> Any:
    # a single string where a list is expected: a model wrote `"issues": "lint failed"`
    if v is None:
        return []
    if isinstance(v, str):
        return [v] if v.strip() else []
    return v


NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Phase = Annotated[
    Literal["research", "write", "validate", "build", "type", "lint", "test", "security"],
    _norm(_PHASE_ALIASES),
]
Decision = Annotated[Literal["PROCEED", "STOP", "CLARIFY"], _norm({}, upper=True)]
ResponseStatus = Annotated[Literal["complete", "partial", "blocked"], _norm(_STATUS_ALIASES)]
StrList = Annotated[list[str], BeforeValidator(_to_list)]
AnyList = Annotated[list[Any], BeforeValidator(_to_list)]
Count = Annotated[int, Field(ge=0)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


# -- request ----------------------------------------------------------------------------------


class RetryContext(_Strict):
    """Design 002: what failed in QA, given to the writer on a retry."""

    failures: StrList = Field(default_factory=list)
    attempt: Annotated[int, Field(ge=1)] = 2


class RequestContext(_Strict):
    feature: NonEmpty | None = None
    spec_path: str | None = None
    relevant_files: StrList = Field(default_factory=list)
    hints: StrList = Field(default_factory=list)  # design 002's name for relevant_files
    constraints: StrList = Field(default_factory=list)
    previous_findings: str | None = None
    research_summary: str | None = None  # design 002 writer: the researcher's summary
    retry_context: RetryContext | None = None
    files_changed: StrList = Field(default_factory=list)  # design 002 QA
    implementation_summary: str | None = None
    expected_behavior: str | None = None


class HandoffRequest(_Strict):
    """Orchestrator -> sub-agent (designs 001 / 003, and design 002's per-agent inputs)."""

    task_id: NonEmpty
    phase: Phase
    context: RequestContext
    instructions: NonEmpty
    expected_output: (
        Annotated[Literal["structured_findings", "files_changed", "validation_result"], _norm({})]
        | None
    ) = None


# -- responses --------------------------------------------------------------------------------


class _Reply(_Strict):
    """Fields any response shape may carry besides its own."""

    task_id: NonEmpty | None = None
    phase: Phase | None = None
    tokens_used: Count | None = None
    issues: StrList = Field(default_factory=list)
    questions: StrList = Field(default_factory=list)  # CLARIFY (designs 001, 002)
    reason: str | None = None  # STOP (design 001)


class HandoffResponse(_Reply):
    """Sub-agent -> orchestrator, the generic shape of designs 001 / 003."""

    task_id: NonEmpty
    phase: Phase
    status: ResponseStatus
    decision: Decision
    findings: dict[str, Any] = Field(default_factory=dict)
    context_summary: str
    checks: dict[str, Any] | None = None
    files_changed: AnyList = Field(default_factory=list)
    summary: str | None = None
    notes: str | None = None


class ResearchFindings(BaseModel):
    model_config = ConfigDict(extra="allow")

    existing_implementations: AnyList = Field(default_factory=list)
    conflicts: AnyList = Field(default_factory=list)
    patterns_found: AnyList = Field(default_factory=list)
    recommendations: AnyList = Field(default_factory=list)
    consolidation_opportunities: AnyList = Field(default_factory=list)


class ResearcherOutput(_Reply):
    """domain-researcher / code-researcher (designs 000, 001, 002)."""

    status: ResponseStatus | None = None
    decision: Decision
    findings: ResearchFindings
    context_summary: str


class FileChange(_Strict):
    path: NonEmpty
    action: Annotated[Literal["created", "modified", "deleted"], _norm({})] = "modified"


class TestsWritten(_Strict):
    path: NonEmpty
    count: Count | None = None


def _path_item(v: Any) -> Any:
    # a file is given as a bare path (designs 000 / 001) or as {"path", "action"} (design 002)
    if isinstance(v, list):
        return [{"path": x} if isinstance(x, str) else x for x in v]
    return _to_list(v)


class WriterOutput(_Reply):
    """domain-writer / code-writer (designs 000, 001, 002)."""

    status: Annotated[
        Literal["complete", "partial", "blocked", "failed"], _norm(_STATUS_ALIASES)
    ] = "complete"  # design 000's data flow returns only files_changed and the summary
    decision: Decision | None = None
    files_changed: Annotated[list[FileChange], BeforeValidator(_path_item)]
    tests_written: Annotated[list[TestsWritten], BeforeValidator(_path_item)] = Field(
        default_factory=list
    )
    tests_added: Annotated[list[TestsWritten], BeforeValidator(_path_item)] = Field(
        default_factory=list
    )
    context_summary: str | None = None
    notes: str | None = None


class CheckResult(BaseModel):
    """One check of a validator (designs 001 / 002): ``{"passed": false, "errors": [...]}``."""

    model_config = ConfigDict(extra="allow")

    passed: bool
    errors: AnyList = Field(default_factory=list)
    failed: AnyList = Field(default_factory=list)
    issues: AnyList = Field(default_factory=list)
    coverage: Annotated[float, Field(ge=0, le=100)] | None = None


PassFail = Annotated[Literal["pass", "fail"], _norm({"passed": "pass", "failed": "fail"})]


def _checks(v: Any) -> Any:
    # design 000 writes a check as "pass" / "fail"; designs 001 / 002 as {"passed": bool, ...}
    if not isinstance(v, dict):
        return v
    out: dict[str, Any] = {}
    for name, check in v.items():
        word = check.strip().lower() if isinstance(check, str) else None
        if word in ("pass", "passed"):
            out[name] = {"passed": True}
        elif word in ("fail", "failed"):
            out[name] = {"passed": False}
        else:
            out[name] = check
    return out


def _validator_status(v: Any) -> Any:
    if not isinstance(v, str):
        return v
    s = v.strip()
    upper = {"PASSED": "PASS", "FAILED": "FAIL"}.get(s.upper(), s.upper())
    if upper in ("PASS", "FAIL"):
        return upper
    return _STATUS_ALIASES.get(s.lower(), s.lower())


class ValidatorOutput(_Reply):
    """quality-validator / code-qa: ``decision`` + structured checks (001 / 002) or
    ``status: PASS|FAIL`` + ``"pass"|"fail"`` checks (design 000)."""

    status: (
        Annotated[
            Literal["PASS", "FAIL", "complete", "partial", "blocked"],
            BeforeValidator(_validator_status),
        ]
        | None
    ) = None
    decision: Annotated[Literal["PROCEED", "STOP"], _norm({}, upper=True)] | None = None
    checks: Annotated[dict[str, CheckResult], BeforeValidator(_checks)]
    errors: AnyList = Field(default_factory=list)
    context_summary: str | None = None
    summary: str | None = None


class CheckerOutput(_Reply):
    """quality-checker, one instance per check mode, run in parallel (design 000)."""

    check_type: Annotated[
        Literal["build", "type", "lint", "test", "security"], _norm(_PHASE_ALIASES)
    ]
    status: PassFail
    output: str = ""
    duration_ms: Count | None = None
    decision: Decision | None = None
    context_summary: str | None = None


class SpecAnalyzerOutput(_Reply):
    mode: Annotated[Literal["analyze", "review", "format", "reconcile"], _norm({})]
    findings: dict[str, Any] = Field(default_factory=dict)
    recommendations: AnyList = Field(default_factory=list)
    context_summary: str
    decision: Decision | None = None


class CodeAnalyzerOutput(_Reply):
    mode: Annotated[Literal["workflow", "debug", "refactor", "fix"], _norm({})]
    analysis: dict[str, Any] = Field(default_factory=dict)
    recommendations: AnyList = Field(default_factory=list)
    context_summary: str
    decision: Decision | None = None


class GitContentOutput(_Reply):
    content_type: Annotated[Literal["commit", "pr", "general"], _norm({})]
    title: NonEmpty
    body: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    decision: Decision | None = None
