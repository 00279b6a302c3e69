"""Handoff validation: every design shape validates; bad handoffs get exact, path-naming errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agents_state.handoff.protocol import (
    HandoffInvalidError,
    check_handoff,
    detect_kind,
    parse_handoff,
)
from agents_state.handoff.tokens import estimate_tokens

from .examples import RESEARCH_SUMMARY, VALID


@pytest.mark.parametrize("name", list(VALID))
def test_design_examples_validate(name: str) -> None:
    kind, data = VALID[name]
    assert detect_kind(data) == kind
    h = check_handoff(data, name)
    assert h.kind == kind
    if kind != "request":
        assert h.decision in ("PROCEED", "STOP", "CLARIFY")


def test_implied_decisions_and_failures() -> None:
    qa = check_handoff(VALID["002 qa STOP"][1], "qa")
    assert (qa.decision, qa.phase, qa.failures) == (
        "STOP",
        "validate",
        ("tests: loginUser should return token",),
    )
    assert check_handoff(VALID["000 quality-validator"][1], "v").decision == "PROCEED"
    assert check_handoff(VALID["000 domain-writer data flow"][1], "w").decision == "PROCEED"
    checker = check_handoff(VALID["000 quality-checker"][1], "c")
    assert (checker.phase, checker.decision) == ("type", "PROCEED")


def test_prose_and_fence_are_accepted() -> None:
    body = json.dumps(VALID["001 response"][1], indent=2)
    for text in (
        body,
        f"Here is my handoff:\n```json\n{body}\n```\nDone.",
        f"Research complete.\n\n{body}\n\nLet me know.",
        f"```\n{body}\n```",
    ):
        assert parse_handoff(text, "reply.md").summary == RESEARCH_SUMMARY


def test_last_fenced_handoff_wins() -> None:
    first = json.dumps({"example": 1})
    body = json.dumps(VALID["001 response"][1])
    h = parse_handoff(f"```json\n{first}\n```\nfinal:\n```json\n{body}\n```", "r")
    assert h.task_id == "code-research-1"


def _resp(**over: Any) -> dict[str, Any]:
    data = dict(VALID["001 response"][1])
    data.update(over)
    return {k: v for k, v in data.items() if v is not _DROP}


_DROP = object()
_REQ = VALID["001 request"][1]
_LONG = "word " * 501
_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"

BAD: list[tuple[str, Any, str | None]] = [
    (
        "decision",
        _resp(decision="GO"),
        "f: decision: must be one of PROCEED, STOP, CLARIFY (got 'GO')",
    ),
    ("missing decision", _resp(decision=_DROP), "f: decision: required field missing"),
    ("missing task_id", _resp(task_id=_DROP), "f: task_id: required field missing"),
    ("empty task_id", _resp(task_id="  "), "f: task_id: must not be empty"),
    (
        "phase",
        _resp(phase="deploy"),
        "f: phase: must be one of research, write, validate, build, type, lint, test, security "
        "(got 'deploy')",
    ),
    (
        "status",
        _resp(status="finished"),
        "f: status: must be one of complete, partial, blocked (got 'finished')",
    ),
    (
        "summary type",
        _resp(context_summary=42),
        "f: context_summary: must be a string (got a number)",
    ),
    (
        "summary empty",
        _resp(context_summary=" "),
        "f: context_summary: must not be empty: summarise the findings for the next phase",
    ),
    (
        "summary cap",
        _resp(context_summary=_LONG),
        "f: context_summary: 501 tokens (estimated), over the 500-token cap: keep file paths, "
        "patterns, conflicts and the reason for the decision; drop queries, file contents and "
        "intermediate reasoning",
    ),
    ("tokens negative", _resp(tokens_used=-5), "f: tokens_used: must be >= 0 (got -5)"),
    (
        "tokens text",
        _resp(tokens_used="many"),
        "f: tokens_used: must be a whole number (got a string)",
    ),
    ("issues item", _resp(issues=["ok", 3]), "f: issues.1: must be a string (got a number)"),
    ("findings type", _resp(findings=[1]), "f: findings: must be an object (got a list)"),
    ("typo", _resp(decison="PROCEED"), "f: decison: unknown field (did you mean decision?)"),
    (
        "clarify",
        _resp(decision="CLARIFY"),
        "f: questions: decision CLARIFY needs at least one question for the user",
    ),
    (
        "stop",
        _resp(decision="STOP"),
        "f: reason: decision STOP needs a reason: set reason or list issues",
    ),
    (
        "proceed blocked",
        _resp(status="blocked"),
        "f: decision: PROCEED contradicts status blocked; use STOP or CLARIFY",
    ),
    (
        "secret key",
        _resp(issues=["found", _KEY]),
        "f: issues.1: looks like a private key block; handoffs must not carry secrets: remove it "
        "and name where the secret lives instead (an env var)",
    ),
    (
        "aws key",
        _resp(findings={"env": {"key": "AKIAIOSFODNN7EXAMPLE"}}),
        "f: findings.env.key: looks like an AWS access key id; handoffs must not carry secrets: "
        "remove it and name where the secret lives instead (an env var)",
    ),
    (
        "bearer",
        {**_REQ, "instructions": "call with Bearer eyJhbGciOiJIUzI1NiJ9abc123def456"},
        "f: instructions: looks like a bearer token; handoffs must not carry secrets: remove it "
        "and name where the secret lives instead (an env var)",
    ),
    ("request files", {**_REQ, "context": {**_REQ["context"], "relevant_files": "a.ts"}}, None),
    (
        "request file item",
        {**_REQ, "context": {**_REQ["context"], "relevant_files": ["a", 2]}},
        "f: context.relevant_files.1: must be a string (got a number)",
    ),
    (
        "request no feature",
        {**_REQ, "context": {"relevant_files": []}},
        "f: context.feature: required for a research request",
    ),
    (
        "request context type",
        {**_REQ, "context": "auth"},
        "f: context: must be an object (got a string)",
    ),
    (
        "request expected_output",
        {**_REQ, "expected_output": "code"},
        "f: expected_output: must be one of structured_findings, files_changed, validation_result "
        "(got 'code')",
    ),
    (
        "request previous_findings cap",
        {**_REQ, "context": {**_REQ["context"], "previous_findings": _LONG}},
        "f: context.previous_findings: 501 tokens (estimated), over the 500-token cap: keep file "
        "paths, patterns, conflicts and the reason for the decision; drop queries, file contents "
        "and intermediate reasoning",
    ),
    (
        "request unknown context field",
        {**_REQ, "context": {**_REQ["context"], "relevant_file": ["a"]}},
        "f: context.relevant_file: unknown field (did you mean relevant_files?)",
    ),
    (  # issue 27: "status" is a field of responses, not of a request: never its own suggestion
        "request field from elsewhere",
        {**_REQ, "status": "complete"},
        "f: status: unknown field",
    ),
    (
        "request context near miss of a field allowed there only",
        {**_REQ, "context": {**_REQ["context"], "summary": "x"}},
        "f: context.summary: unknown field",
    ),
    (
        "request context near miss",
        {**_REQ, "context": {**_REQ["context"], "research_sumary": "x"}},
        "f: context.research_sumary: unknown field (did you mean research_summary?)",
    ),
    (
        "retry attempt",
        {
            **VALID["002 writer retry input"][1],
            "context": {"feature": "x", "retry_context": {"failures": [], "attempt": 0}},
        },
        "f: context.retry_context.attempt: must be >= 1 (got 0)",
    ),
    (
        "validator proceed with failure",
        {"decision": "PROCEED", "checks": {"tests": {"passed": False}}},
        "f: checks.tests: failed, but decision is PROCEED",
    ),
    (
        "validator pass with failure",
        {"status": "PASS", "checks": {"lint": "fail"}},
        "f: checks.lint: failed, but status is PASS",
    ),
    (
        "validator no verdict",
        {"checks": {"lint": "pass"}},
        "f: decision: required field missing (or give status PASS or FAIL)",
    ),
    (
        "validator clarify",
        {"decision": "CLARIFY", "checks": {"lint": "pass"}},
        "f: decision: must be one of PROCEED, STOP (got 'CLARIFY')",
    ),
    (
        "validator check",
        {"decision": "PROCEED", "checks": {"lint": "maybe"}},
        "f: checks.lint: must be an object (got a string)",
    ),
    (
        "coverage",
        {"decision": "PROCEED", "checks": {"tests": {"passed": True, "coverage": 120}}},
        "f: checks.tests.coverage: must be <= 100 (got 120)",
    ),
    (
        "checker type",
        {"check_type": "format", "status": "pass"},
        "f: check_type: must be one of build, type, lint, test, security (got 'format')",
    ),
    (
        "checker proceed fail",
        {"check_type": "lint", "status": "fail", "decision": "PROCEED"},
        "f: decision: PROCEED contradicts status fail; use STOP",
    ),
    (
        "writer files",
        {"status": "complete", "files_changed": [{"action": "created"}]},
        "f: files_changed.0.path: required field missing",
    ),
    (
        "writer action",
        {"status": "complete", "files_changed": [{"path": "a", "action": "x"}]},
        "f: files_changed.0.action: must be one of created, modified, deleted (got 'x')",
    ),
    ("git title", {"content_type": "commit", "title": ""}, "f: title: must not be empty"),
]


@pytest.mark.parametrize(("name", "data", "expected"), BAD, ids=[b[0] for b in BAD])
def test_bad_handoffs_get_exact_errors(name: str, data: Any, expected: str | None) -> None:
    if expected is None:  # a lenient read: a single string where a list is expected
        check_handoff(data, "f")
        return
    with pytest.raises(HandoffInvalidError) as exc:
        check_handoff(data, "f")
    assert exc.value.message == expected


def test_at_least_25_bad_handoffs() -> None:
    assert sum(1 for b in BAD if b[2] is not None) >= 25


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(HandoffInvalidError) as exc:
        check_handoff({"task_id": "", "phase": "x", "decision": "GO"}, "r.json")
    assert exc.value.message == (
        "r.json: 5 problems: task_id: must not be empty; phase: must be one of research, write, "
        "validate, build, type, lint, test, security (got 'x'); status: required field missing; "
        "decision: must be one of PROCEED, STOP, CLARIFY (got 'GO'); context_summary: required "
        "field missing"
    )
    assert [p.path for p in exc.value.problems] == [
        "task_id",
        "phase",
        "status",
        "decision",
        "context_summary",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "f: empty input: expected a handoff JSON object"),
        (
            "all good, nothing to report",
            "f: no JSON object found: answer with the handoff JSON, "
            "alone or in a ```json code fence",
        ),
        (
            '{"decision": "PROCEED",',
            "f: invalid JSON at line 1, column 24: Expecting property name "
            "enclosed in double quotes",
        ),
        ("[1, 2]", "f: expected a JSON object, got a list"),
    ],
)
def test_unparseable_input(text: str, expected: str) -> None:
    with pytest.raises(HandoffInvalidError) as exc:
        parse_handoff(text, "f")
    assert exc.value.message == expected


def test_token_estimate_is_documented_and_offline() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("auth") == 1
    assert estimate_tokens("authentication") == 3
    assert estimate_tokens("2026") == 2
    assert estimate_tokens("src/lib/auth.ts") == 7
    assert estimate_tokens(RESEARCH_SUMMARY) == 30


def test_talking_about_tokens_is_not_a_secret() -> None:
    check_handoff(VALID["001 response"][1], "f")  # "bearer token pattern" passes
