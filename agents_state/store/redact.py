"""Secrets out of text that leaves the process: crash logs and server messages (issue 23).

A store URL's password (in the user part or as ``password`` / ``sslpassword`` in the query,
however the key is percent-encoded) and any ``password=...`` pair become ``***``, and so do the
``patterns`` the caller passes (the shell passes the credential shapes the handoff check knows,
``handoff.secrets``, a layer above the store).  Pure: the caller passes the URLs it knows of
besides those in the text (the store URL from the environment).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["redact", "url_secrets"]

_URL = re.compile(r"postgres(?:ql)?://[^\s'\"<>]+", re.IGNORECASE)
_PAIR = re.compile(r"((?:ssl)?password\s*[=:]\s*)[^\s&'\",;]+", re.IGNORECASE)
_KEYS = ("password", "sslpassword")


def url_secrets(url: str) -> list[str]:
    """The passwords a URL carries, raw and percent-decoded, longest first."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    try:
        parts = urlsplit(url)
        password = parts.password
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return []
    found = [password, unquote(password)] if password else []
    found += [v for k, v in query if k.strip().lower() in _KEYS and v]
    return sorted({s for s in found if s}, key=len, reverse=True)


def redact(
    text: str, known_urls: tuple[str, ...] = (), patterns: Iterable[re.Pattern[str]] = ()
) -> str:
    """``text`` with every password and each of ``patterns`` replaced by ``***``."""
    from agents_state.store.urlmask import mask_url

    urls = [*known_urls, *_URL.findall(text)]
    secrets = sorted({s for u in urls for s in url_secrets(u)}, key=len, reverse=True)
    text = _URL.sub(lambda m: mask_url(m.group(0)), text)
    for s in secrets:
        text = text.replace(s, "***")
    text = _PAIR.sub(r"\1***", text)
    for pattern in patterns:
        text = pattern.sub("***", text)
    return text
