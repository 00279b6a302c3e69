"""A store URL as it may be shown: the password masked (for output, logs and errors).

Below both the store's front door (``api``) and the server store's URL parser (``pg_url``), which
both show URLs: neither imports the other for it.
"""

from __future__ import annotations

__all__ = ["mask_url"]


def mask_url(url: str) -> str:
    """The URL with its password replaced by ``***`` (for output, logs and errors)."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable store URL>"
    query = (
        "&".join(
            "password=***" if q.lower().startswith("password=") else q
            for q in parts.query.split("&")
        )
        if parts.query
        else ""
    )
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
