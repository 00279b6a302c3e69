"""What a workflow costs, for ``status``, ``watch``, ``next`` and ``report`` (issue 24).

Tokens come from the usage book (``usage/book.py``, written by the hooks); wall time per phase
from the state's own ``startedAt`` / ``completedAt``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents_state.models import State
from agents_state.types import parse_time

__all__ = [
    "budget_note",
    "budget_usage",
    "fmt_seconds",
    "fmt_tokens",
    "usage_lines",
    "usage_of",
    "with_times",
]


def fmt_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "-"
    s = round(s)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _span(start: str | None, end: str | None, now: datetime) -> float | None:
    if not start:
        return None
    try:
        a = parse_time(start)
        b = parse_time(end) if end else now
    except ValueError:
        return None
    return max(0.0, (b - a).total_seconds())


def with_times(summary: dict[str, Any], state: State, now: datetime) -> dict[str, Any]:
    """Add each started phase's wall time and the workflow's to a book summary."""
    from agents_state.workflow import PHASES

    phases = summary["phases"]
    ordered: dict[str, Any] = {}
    for p in PHASES:
        ph = state.stages.get(p.stage)
        pst = ph.phases.get(p.id) if ph else None
        row = phases.get(p.id)
        if pst is None or (pst.startedAt is None and row is None):
            continue
        row = row or {"tokens": 0, "agents": 0, "main": 0, "byKind": {}}
        row["status"] = pst.status
        row["seconds"] = _span(pst.startedAt, pst.completedAt, now)
        ordered[p.id] = row
    for pid, row in phases.items():  # a phase the catalogue does not know ("-")
        ordered.setdefault(pid, row)
    summary["phases"] = ordered
    end = state.updatedAt if not state.active else None
    summary["seconds"] = _span(state.startedAt, end, now)
    return summary


def usage_of(root: str, state: State, now: datetime) -> dict[str, Any]:
    """The workflow's usage: tokens per phase, task and agent, and wall times."""
    from agents_state.usage.book import fresh, summary
    from agents_state.usage.stored import read_book

    book = read_book(root)
    if book is None or book.get("workflow") != state.startedAt:
        book = fresh(state.startedAt)
    return with_times(summary(book), state, now)


def budget_note(info: dict[str, Any]) -> str:
    """What is left of the budget, said after a dispatch's instructions (issue 24)."""
    parts = []
    if "maxTokens" in info:
        parts.append(
            f" Token budget: {info['usedTokens']} of {info['maxTokens']} used, "
            f"{info['leftTokens']} left."
        )
    if "stage" in info:
        s = info["stage"]
        parts.append(
            f" Stage {s['name']} budget: {s['usedTokens']} of {s['maxTokens']} used, "
            f"{s['leftTokens']} left."
        )
    if info.get("overOnce"):
        parts.append(" The budget is spent; the user chose to go on once with this dispatch.")
    elif info.get("warning"):
        parts.append(f" Warning: {info['warning']}% of the token budget is spent.")
    return "".join(parts)


def budget_usage(root: str, state: State) -> tuple[int, dict[str, int]]:
    """Tokens used by the workflow and by each stage, for the budget."""
    from agents_state.usage.book import summary
    from agents_state.usage.stored import read_book
    from agents_state.workflow import PHASE_INDEX, get_phase

    book = read_book(root)
    if book is None or book.get("workflow") != state.startedAt:
        return 0, {}
    s = summary(book)
    stages: dict[str, int] = {}
    for pid, row in s["phases"].items():
        if pid in PHASE_INDEX:
            stage = get_phase(pid).stage
            stages[stage] = stages.get(stage, 0) + row["tokens"]
    return s["tokens"], stages


def usage_lines(u: dict[str, Any]) -> list[str]:
    """Tokens and wall time per phase and the total, for people."""
    lines = [
        f"Cost: {fmt_tokens(u['tokens'])} tokens, {fmt_seconds(u.get('seconds'))} "
        "(from the host's transcripts)"
    ]
    for pid, row in u["phases"].items():
        agents = f", {row['agents']} agent(s)" if row.get("agents") else ""
        lines.append(
            f"  {pid:<4} {fmt_tokens(row['tokens']):>7} tokens  "
            f"{fmt_seconds(row.get('seconds')):>7}{agents}"
        )
    for n in u.get("notes") or []:
        lines.append(f"  note: {n}")
    return lines
