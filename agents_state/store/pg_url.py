"""The PostgreSQL store's URL: the workflow it names, the conninfo for libpq, the masked form
for messages, and server messages with any password cut out (no psycopg import here)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from agents_state.errors import InvalidInputError, UsageError
from agents_state.store.urlmask import mask_url

__all__ = ["DEFAULT_WORKFLOW", "PgTarget", "parse_url", "reason"]

DEFAULT_WORKFLOW = "default"
DEFAULT_CONNECT_TIMEOUT = 10
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class PgTarget:
    conninfo: str  # the URL for libpq, without our ``workflow`` parameter
    workflow: str
    shown: str  # the URL as messages show it: password masked


def parse_url(url: str) -> PgTarget:
    try:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        raise UsageError("--store: not a valid postgresql:// URL") from None
    workflow = DEFAULT_WORKFLOW
    rest = []
    for k, v in query:
        if k == "workflow":
            workflow = v
        else:
            rest.append((k, v))
    if not _NAME.match(workflow):
        raise UsageError(
            f"--store {mask_url(url)}: workflow={workflow!r} is not a workflow "
            "name (1-100 letters, digits, '.', '_' or '-', starting with a letter or "
            "digit)"
        )
    if not any(k == "connect_timeout" for k, _ in rest):
        rest.append(("connect_timeout", str(_connect_timeout())))
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest), ""))
    shown = mask_url(urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))
    return PgTarget(conninfo, workflow, shown)


def _connect_timeout() -> int:
    raw = os.environ.get("AGENTS_STATE_CONNECT_TIMEOUT")
    if not raw:
        return DEFAULT_CONNECT_TIMEOUT
    if not raw.isdigit() or not 1 <= int(raw) <= 3600:
        raise InvalidInputError(
            "environment AGENTS_STATE_CONNECT_TIMEOUT",
            "",
            f"{raw!r} is not a whole number of seconds from 1 to 3600 (write e.g. 10)",
        )
    return int(raw)


def reason(e: Exception, url: str) -> str:
    """The server's or libpq's message on one line, with any password taken out."""
    from agents_state.store.redact import redact

    text = redact(" ".join(str(e).split()) or type(e).__name__, (url,))
    return text[:300]
