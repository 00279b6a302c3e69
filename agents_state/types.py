"""Reusable constrained types, declared once as ``Annotated[...]``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from agents_state.records.base import After, Before

__all__ = [
    "MAX_COUNT",
    "STATUSES",
    "Count",
    "Frozen",
    "IsoTime",
    "OptCount",
    "Status",
    "format_time",
    "parse_time",
    "utcnow",
]


class Frozen:
    """Read-only once built, like a frozen dataclass; a plain class because ``dataclass`` would
    compile six methods for each (~0.5 ms per class at import on every transition, issue 26).
    A subclass lists its fields in ``__slots__`` and sets them with ``object.__setattr__``."""

    __slots__ = ()

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {key!r}")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"cannot delete field {key!r}")

    def __repr__(self) -> str:
        names: tuple[str, ...] = self.__slots__
        shown = ", ".join(f"{k}={getattr(self, k)!r}" for k in names)
        return f"{type(self).__name__}({shown})"


STATUSES: tuple[str, ...] = (
    "pending",
    "in_progress",
    "completed",
    "failed",
    "blocked",
    "stopped",
    "skipped",
)

_STATUS_ALIASES = {
    "in-progress": "in_progress",
    "inprogress": "in_progress",
    "running": "in_progress",
    "active": "in_progress",
    "done": "completed",
    "complete": "completed",
    "success": "completed",
    "error": "failed",
    "todo": "pending",
}


def _norm_status(v: Any) -> Any:
    if isinstance(v, str):
        s = v.strip().lower().replace(" ", "_")
        return _STATUS_ALIASES.get(s, s)
    return v


Status = Annotated[
    Literal["pending", "in_progress", "completed", "failed", "blocked", "stopped", "skipped"],
    Before(_norm_status),
]


def parse_time(value: str) -> datetime:
    dt = datetime.fromisoformat(value)
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def format_time(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


MIN_YEAR, MAX_YEAR = 1970, 9000  # room for any lease or delay added to a time, and a UTC shift
MAX_COUNT = 2**53 - 1  # exact in every JSON reader, and far from overflow when counted up


def _check_time(v: str) -> str:
    try:
        dt = parse_time(v)
    except ValueError:
        raise ValueError(f"not an ISO 8601 time: {v!r} (write e.g. 2026-01-29T10:00:00Z)") from None
    if not MIN_YEAR <= dt.year <= MAX_YEAR:
        raise ValueError(
            f"{v!r} is out of range (a time between the years {MIN_YEAR} and {MAX_YEAR})"
        )
    return v


IsoTime = Annotated[str, After(_check_time)]


def _check_count(v: int | None) -> int | None:
    if v is not None and not -MAX_COUNT <= v <= MAX_COUNT:  # a negative one is read as is
        raise ValueError(f"{v} is out of range (a count up to {MAX_COUNT})")
    return v


Count = Annotated[int, After(_check_count)]
OptCount = Annotated[int | None, After(_check_count)]


def utcnow() -> datetime:
    """The clock, to the second: read by the shell only (the core is passed ``now``)."""
    return datetime.now(UTC).replace(microsecond=0)
