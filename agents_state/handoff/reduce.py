"""Reduce any validated handoff shape to one ``Handoff``: what the workflow acts on.

Shapes without an explicit ``decision`` imply one: a validator's PASS / FAIL, a checker's
pass / fail, a writer's status (complete -> PROCEED, anything else -> STOP).  Shapes without a
``phase`` imply it from their role (researcher -> research, writer -> write, validator -> validate,
checker -> its check type).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from agents_state.handoff import models as hm
from agents_state.handoff.tokens import estimate_tokens

__all__ = ["Handoff", "digest", "reduce_model"]

_IMPLIED_PHASE = {
    "researcher": "research",
    "writer": "write",
    "validator": "validate",
    "spec-analyzer": "research",
    "code-analyzer": "research",
    "git-content": "write",
}


@dataclass(frozen=True)
class Handoff:
    """A validated handoff reduced to what the workflow needs."""

    kind: str
    data: dict[str, Any]
    task_id: str | None = None
    phase: str | None = None
    decision: str | None = None  # None for a request
    status: str | None = None
    summary: str | None = None
    tokens_used: int | None = None
    issues: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    reason: str | None = None
    failures: tuple[str, ...] = ()
    findings: dict[str, Any] = field(default_factory=dict)

    @property
    def is_request(self) -> bool:
        return self.kind == "request"

    @property
    def summary_tokens(self) -> int:
        return estimate_tokens(self.summary or "")

    @property
    def stop_reason(self) -> str:
        """One line for the state's ``blockedReason``."""
        parts = [self.reason] if self.reason else []
        parts += list(self.failures or self.issues)
        if not parts and self.summary:
            parts = [self.summary]
        text = "; ".join(p.strip() for p in parts if p and p.strip())
        who = (
            f"{self.phase or self.kind} {self.task_id}"
            if self.task_id
            else (self.phase or self.kind)
        )
        return f"{who} said STOP: {text}" if text else f"{who} said STOP"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for key in ("task_id", "phase", "decision", "status", "summary", "tokens_used", "reason"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.summary is not None:
            out["summary_tokens"] = self.summary_tokens
        for key in ("issues", "questions", "failures"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        return out


def _text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for key in ("description", "message", "error", "name", "path"):
            if isinstance(item.get(key), str):
                return str(item[key])
    return json.dumps(item, sort_keys=True, default=str)


def _check_failures(checks: dict[str, hm.CheckResult]) -> list[str]:
    out = []
    for name, check in checks.items():
        if check.passed:
            continue
        details = [_text(x) for x in (*check.failed, *check.errors, *check.issues)]
        out.append(f"{name}: {', '.join(details)}" if details else f"{name}: failed")
    return out


def _implied_decision(m: BaseModel) -> str | None:
    if isinstance(m, hm.ValidatorOutput):
        if m.status in ("PASS", "FAIL"):
            return "PROCEED" if m.status == "PASS" else "STOP"
        return "STOP" if any(not c.passed for c in m.checks.values()) else "PROCEED"
    if isinstance(m, hm.CheckerOutput):
        return "PROCEED" if m.status == "pass" else "STOP"
    if isinstance(m, hm.WriterOutput):
        return "PROCEED" if m.status == "complete" else "STOP"
    return "PROCEED" if not isinstance(m, hm.HandoffRequest) else None


def _findings(m: BaseModel) -> dict[str, Any]:
    if isinstance(m, hm.HandoffResponse):
        return m.findings or ({"checks": m.checks} if m.checks else {})
    if isinstance(m, hm.ResearcherOutput):
        return m.findings.model_dump(exclude_defaults=True)
    if isinstance(m, hm.ValidatorOutput):
        return {name: c.model_dump(exclude_defaults=True) for name, c in m.checks.items()}
    if isinstance(m, hm.CheckerOutput):
        return m.model_dump(
            include={"check_type", "status", "output", "duration_ms"}, exclude_none=True
        )
    if isinstance(m, hm.WriterOutput):
        return {"files_changed": [f.model_dump() for f in m.files_changed]}
    if isinstance(m, hm.SpecAnalyzerOutput):
        return m.findings
    if isinstance(m, hm.CodeAnalyzerOutput):
        return m.analysis
    return {}


def reduce_model(kind: str, data: dict[str, Any], m: BaseModel) -> Handoff:
    def get(key: str) -> Any:
        return getattr(m, key, None)

    decision = get("decision") or _implied_decision(m)
    phase = get("phase") or (
        m.check_type if isinstance(m, hm.CheckerOutput) else _IMPLIED_PHASE.get(kind)
    )
    failures: list[str] = []
    if isinstance(m, hm.ValidatorOutput):
        failures = _check_failures(m.checks) + [_text(e) for e in m.errors]
    elif isinstance(m, hm.HandoffResponse) and m.checks and decision == "STOP":
        parsed = {k: v for k, v in m.checks.items() if isinstance(v, dict) and "passed" in v}
        failures = _check_failures({k: hm.CheckResult.model_validate(v) for k, v in parsed.items()})
    elif isinstance(m, hm.CheckerOutput) and m.status == "fail":
        failures = [
            f"{m.check_type}: {m.output.strip()[:300]}"
            if m.output.strip()
            else f"{m.check_type}: failed"
        ]
    status = get("status")
    summary = get("context_summary") or get("summary")
    if isinstance(m, hm.GitContentOutput):
        summary = m.title
    return Handoff(
        kind=kind,
        data=data,
        task_id=get("task_id"),
        phase=phase,
        decision=decision,
        status=str(status) if status is not None else None,
        summary=summary,
        tokens_used=get("tokens_used"),
        issues=tuple(get("issues") or ()),
        questions=tuple(get("questions") or ()),
        reason=get("reason"),
        failures=tuple(failures),
        findings=_findings(m),
    )


def digest(h: Handoff) -> str:
    """A short fingerprint of a handoff's content: the same response twice is recognised."""
    import hashlib

    import orjson

    return hashlib.sha1(orjson.dumps(h.data, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]
