"""A store URL as it may be shown: the password masked (for output, logs and errors).

Below both the store's front door (``api``) and the server store's URL parser (``pg_url``), which
both show URLs: neither imports the other for it.
"""

from __future__ import annotations

__all__ = ["mask_url"]


_SECRET_KEYS = ("password", "sslpassword")


def mask_url(url: str) -> str:
    """The URL with its password replaced by ``***`` (for output, logs and errors)."""
    from urllib.parse import unquote_plus, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable store URL>"

    def masked(q: str) -> str:
        # the key as libpq reads it: ``%70assword`` is ``password`` (issue 23)
        key, eq, _ = q.partition("=")
        secret = unquote_plus(key).strip().lower() in _SECRET_KEYS
        return f"{key}=***" if eq and secret else q

    query = "&".join(masked(q) for q in parts.query.split("&")) if parts.query else ""
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
