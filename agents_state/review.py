"""Review artifacts (phases 1.3, 2.3, 3.3, 4.2): issues with a severity (pure)."""

from __future__ import annotations

from typing import Any

from agents_state.errors import InvalidInputError

__all__ = ["SEVERITIES", "count_issues"]

SEVERITIES = ("critical", "high", "medium", "low")


def count_issues(doc: Any, shown: str, blocking: str) -> tuple[int, int]:
    """(all issues, issues at or above ``blocking``) of a review document."""
    issues = doc.get("issues") if isinstance(doc, dict) else doc
    if issues is None:
        issues = []
    if not isinstance(issues, list):
        raise InvalidInputError(shown, "issues", "expected a list of issues, e.g. "
                                '{"issues": [{"severity": "high", "description": "..."}]}')
    limit = SEVERITIES.index(blocking)
    count = 0
    for i, issue in enumerate(issues):
        if not isinstance(issue, dict):
            raise InvalidInputError(shown, f"issues[{i}]", "expected an object with a severity")
        sev = str(issue.get("severity", "medium")).strip().lower()
        if sev not in SEVERITIES:
            raise InvalidInputError(shown, f"issues[{i}].severity",
                                    f"{sev!r} is not one of {', '.join(SEVERITIES)}")
        if SEVERITIES.index(sev) <= limit:
            count += 1
    return len(issues), count
