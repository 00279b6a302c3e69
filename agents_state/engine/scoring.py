"""Dynamic phase sizing (pure): how many sub-agents, and why.

Two rules from the designs:
- design 004, explore and plan agents: complexity signals in the task text, simple 1-2, medium 3-5,
  complex 6-10, always capped by the stage's ``maxParallelAgents``;
- design 000, a chain's sub-agents: files, tasks, modules and effort, capped at 7 (``size_chain``).
"""

from __future__ import annotations

import re

__all__ = ["COMPLEXITY_SIGNALS", "Sizing", "score_task", "size_chain"]

COMPLEXITY_SIGNALS: dict[str, tuple[str, ...]] = {
    "simple": ("typo", "rename", "spelling", "comment", "bump", "wording", "docstring", "format"),
    "medium": (
        "add",
        "feature",
        "fix",
        "bug",
        "endpoint",
        "implement",
        "support",
        "update",
        "test",
        "improve",
    ),
    "complex": (
        "auth",
        "oauth",
        "refactor",
        "migrate",
        "migration",
        "multi",
        "architecture",
        "redesign",
        "security",
        "distributed",
        "across",
        "system",
        "rewrite",
        "database",
        "concurren",
    ),
}
_RANGES = {"simple": (1, 2), "medium": (3, 5), "complex": (6, 10)}


class Sizing:
    """How many agents a task gets, its complexity level and why.  A plain class: a frozen
    dataclass costs every command ~1 ms to define (``count`` rules out a named tuple)."""

    __slots__ = ("count", "level", "reasons")

    def __init__(self, count: int, level: str, reasons: list[str]) -> None:
        self.count, self.level, self.reasons = count, level, reasons

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sizing) and (self.count, self.level, self.reasons) == (
            other.count,
            other.level,
            other.reasons,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Sizing(count={self.count!r}, level={self.level!r}, reasons={self.reasons!r})"


def _hits(text: str, words: tuple[str, ...]) -> list[str]:
    return [w for w in words if re.search(rf"\b{re.escape(w)}", text)]


def score_task(task: str, max_agents: int) -> Sizing:
    """Design 004's signals: complex beats simple beats medium; more hits, more agents."""
    text = task.lower()
    hits = {level: _hits(text, words) for level, words in COMPLEXITY_SIGNALS.items()}
    # simple signals are specific ("fix a typo" is simple though "fix" is medium)
    if hits["complex"]:
        level = "complex"
    elif hits["simple"]:
        level = "simple"
    elif hits["medium"]:
        level = "medium"
    else:
        level = "medium"
    low, high = _RANGES[level]
    extra = len(hits[level]) - 1 + (1 if len(text.split()) > 25 else 0)
    count = min(high, low + max(0, extra))
    reasons = [
        f"{level} task"
        + (
            f" (signals: {', '.join(hits[level])})"
            if hits[level]
            else " (no signal words; medium by default)"
        ),
        f"{level} range {low}-{high}: {count}",
    ]
    if count > max_agents:
        reasons.append(f"capped by maxParallelAgents {max_agents}")
        count = max_agents
    return Sizing(max(1, count), level, reasons)


def size_chain(files: int, tasks: int, modules: int, effort: str, cap: int = 7) -> Sizing:
    """Design 000's ``determineSubAgentCount`` exactly, with the reason for each step."""
    count, reasons = 1, ["start at 1"]
    add = 0 if files <= 1 else 1 if files <= 3 else 2 if files <= 7 else 3
    count += add
    reasons.append(f"{files} file(s): +{add}")
    add = 0 if tasks <= 2 else 1 if tasks <= 5 else 2
    count += add
    reasons.append(f"{tasks} task(s): +{add}")
    if modules > 1:
        count += 1
        reasons.append(f"{modules} modules: +1")
    if effort == "large":
        count += 1
        reasons.append("large effort: +1")
    if count > cap:
        reasons.append(f"capped at {cap}")
        count = cap
    level = "simple" if count <= 2 else "medium" if count <= 4 else "complex"
    return Sizing(count, level, reasons)
