"""Review artifacts (phases 1.3, 2.3, 3.3, 4.2): issues with a severity (pure).

The format is strict because a slip here is silent: ``{"Issues": [...]}`` or ``{"findings": ...}``
read leniently would pass as a clean review.  The one documented shape::

    {"issues": [{"severity": "critical|high|medium|low", "description": "...",
                 "file": "...", "line": 12, "title": "...", "suggestion": "..."}],
     "summary": "..."}

``issues`` is required and is a list (``[]`` for a clean review); every issue needs a
``severity`` from ``SEVERITIES`` (any case) and a ``description``; unknown keys are refused with
a did-you-mean.  A bare JSON list is read as the list of issues (there is no key to misspell).
"""

from __future__ import annotations

from typing import Any

from agents_state.errors import InvalidInputError
from agents_state.strictkeys import check_keys

__all__ = ["ISSUE_KEYS", "REVIEW_KEYS", "SEVERITIES", "count_issues", "severity_counts"]

SEVERITIES = ("critical", "high", "medium", "low")
# "decision" and "handoff" are written by `handoff record` (handoff_ops._artifact)
REVIEW_KEYS = ("issues", "summary", "verdict", "reviewer", "decision", "handoff")
ISSUE_KEYS = ("severity", "description", "title", "file", "line", "suggestion", "category", "id")
_SYNONYMS = {
    "findings": "issues",
    "problems": "issues",
    "comments": "issues",
    "issue": "issues",
    "message": "description",
    "text": "description",
    "detail": "description",
    "details": "description",
    "priority": "severity",
    "level": "severity",
    "path": "file",
    "location": "file",
    "fix": "suggestion",
    "recommendation": "suggestion",
}
_FORMAT = '{"issues": [{"severity": "high", "description": "..."}]}'


def _issues(doc: Any, shown: str) -> list[Any]:
    if isinstance(doc, list):
        return doc
    if not isinstance(doc, dict):
        raise InvalidInputError(shown, "", f"expected a JSON object such as {_FORMAT}")
    check_keys(doc, REVIEW_KEYS, shown, "", _SYNONYMS)
    if "issues" not in doc:
        raise InvalidInputError(
            shown,
            "issues",
            f'missing; write the issues found as {_FORMAT}, or {{"issues": []}} for a clean review',
        )
    issues = doc["issues"]
    if not isinstance(issues, list):
        raise InvalidInputError(shown, "issues", f"expected a list of issues, e.g. {_FORMAT}")
    return issues


def _severity(issue: dict[str, Any], shown: str, where: str) -> str:
    if "severity" not in issue:
        raise InvalidInputError(
            shown, f"{where}.severity", f"missing; one of {', '.join(SEVERITIES)}"
        )
    sev = issue["severity"]
    norm = sev.strip().lower() if isinstance(sev, str) else sev
    if norm not in SEVERITIES:
        raise InvalidInputError(
            shown, f"{where}.severity", f"{sev!r} is not one of {', '.join(SEVERITIES)}"
        )
    return str(norm)


def _check_issue(issue: Any, shown: str, where: str) -> str:
    if not isinstance(issue, dict):
        raise InvalidInputError(
            shown, where, "expected an object with a severity and a description"
        )
    check_keys(issue, ISSUE_KEYS, shown, where, _SYNONYMS)
    sev = _severity(issue, shown, where)
    desc = issue.get("description")
    if not isinstance(desc, str) or not desc.strip():
        raise InvalidInputError(
            shown, f"{where}.description", "missing or empty; say what is wrong"
        )
    return sev


def severity_counts(doc: Any, shown: str) -> dict[str, int]:
    """Issues per severity of a review document; refuses anything but the documented shape."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for i, issue in enumerate(_issues(doc, shown)):
        counts[_check_issue(issue, shown, f"issues[{i}]")] += 1
    return counts


def count_issues(doc: Any, shown: str, blocking: str) -> tuple[int, int]:
    """(all issues, issues at or above ``blocking``) of a review document."""
    counts = severity_counts(doc, shown)
    limit = SEVERITIES.index(blocking)
    return sum(counts.values()), sum(counts[s] for s in SEVERITIES[: limit + 1])
