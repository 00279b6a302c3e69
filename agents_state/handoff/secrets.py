"""Detect obvious secrets in handoff data (design 001: handoffs should not include secrets).

Only high-confidence shapes are flagged, so that a summary that merely *talks about* keys or tokens
("bearer token pattern", "JWT utils") passes: a PEM private key block, a cloud access key id, a
bearer token with a credential-looking value, and well-known provider token prefixes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

__all__ = ["SECRET_PATTERNS", "find_secrets", "secret_kind"]

SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    (
        "a bearer token",
        re.compile(
            r"\bBearer\s+(?=[A-Za-z0-9\-._~+/]*[0-9])(?=[A-Za-z0-9\-._~+/]*[A-Za-z])"
            r"[A-Za-z0-9\-._~+/]{20,}=*"
        ),
    ),
    (
        "a GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"),
    ),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("an API secret key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{32,}")),
)


def secret_kind(text: str) -> str | None:
    """What kind of secret ``text`` carries, or ``None``."""
    for kind, pattern in SECRET_PATTERNS:
        if pattern.search(text):
            return kind
    return None


def find_secrets(data: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Yield ``(field path, kind)`` for every string in ``data`` that carries a secret.

    Paths use dots and list indexes: ``context.constraints.1``.  Keys are checked too.
    """
    if isinstance(data, str):
        kind = secret_kind(data)
        if kind:
            yield path or "$", kind
    elif isinstance(data, dict):
        for key, value in data.items():
            sub = f"{path}.{key}" if path else str(key)
            kind = secret_kind(str(key))
            if kind:
                yield sub, kind
            yield from find_secrets(value, sub)
    elif isinstance(data, list | tuple):
        for i, value in enumerate(data):
            yield from find_secrets(value, f"{path}.{i}" if path else str(i))
