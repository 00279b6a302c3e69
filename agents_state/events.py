"""Events: the inputs of the state machine, as frozen dataclasses.

Each event has a ``name`` used by the transition tables in ``engine`` and a ``record()`` that is
written to ``.agents/events.jsonl`` when the transition is accepted.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

__all__ = [
    "Abort",
    "Answer",
    "Block",
    "Clarify",
    "Compact",
    "Event",
    "PhaseComplete",
    "PhaseFail",
    "PhaseStart",
    "Retry",
    "Skip",
    "Start",
    "Stop",
    "TaskClaim",
    "TaskDone",
    "TaskFail",
    "TaskStart",
    "TasksLoad",
]


@dataclass(frozen=True)
class Event:
    name: ClassVar[str] = "event"

    def record(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if v not in (None, [], {}, ())}
        data.pop("artifact", None)  # artifacts live in their own files
        return {"event": self.name, **data}


@dataclass(frozen=True)
class Start(Event):
    """Begin a workflow. ``agent_counts`` and ``skipped`` come from the config and sizing."""

    name: ClassVar[str] = "start"
    task: str
    agent_counts: dict[str, int] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True)
class PhaseStart(Event):
    name: ClassVar[str] = "phase_start"
    phase: str


@dataclass(frozen=True)
class PhaseComplete(Event):
    """Complete a phase; for a review phase, ``blocking_issues`` decides pass or send-back."""

    name: ClassVar[str] = "phase_complete"
    phase: str
    issues: int | None = None
    blocking_issues: int = 0
    agent_count: int | None = None


@dataclass(frozen=True)
class PhaseFail(Event):
    name: ClassVar[str] = "phase_fail"
    phase: str
    error: str


@dataclass(frozen=True)
class Stop(Event):
    name: ClassVar[str] = "stop"


@dataclass(frozen=True)
class Retry(Event):
    name: ClassVar[str] = "retry"


@dataclass(frozen=True)
class Skip(Event):
    name: ClassVar[str] = "skip"


@dataclass(frozen=True)
class Abort(Event):
    name: ClassVar[str] = "abort"


@dataclass(frozen=True)
class Compact(Event):
    name: ClassVar[str] = "compact"


@dataclass(frozen=True)
class Block(Event):
    """A sub-agent said STOP (or reviews ran out): the workflow waits for a person."""

    name: ClassVar[str] = "block"
    reason: str
    phase: str | None = None
    task: str | None = None


@dataclass(frozen=True)
class Clarify(Event):
    name: ClassVar[str] = "clarify"
    questions: tuple[str, ...]
    phase: str | None = None
    task: str | None = None


@dataclass(frozen=True)
class Answer(Event):
    name: ClassVar[str] = "answer"
    text: str


@dataclass(frozen=True)
class TasksLoad(Event):
    """Store task definitions and their waves (computed by ``waves.plan_waves``)."""

    name: ClassVar[str] = "tasks_load"
    tasks: tuple[tuple[str, dict[str, Any]], ...]
    waves: tuple[tuple[str, ...], ...]

    def record(self) -> dict[str, Any]:
        return {"event": self.name, "tasks": len(self.tasks), "waves": len(self.waves)}


@dataclass(frozen=True)
class TaskClaim(Event):
    name: ClassVar[str] = "task_claim"
    agent: str
    task_id: str | None = None


@dataclass(frozen=True)
class TaskStart(Event):
    name: ClassVar[str] = "task_start"
    task_id: str
    agent: str | None = None


@dataclass(frozen=True)
class TaskDone(Event):
    name: ClassVar[str] = "task_done"
    task_id: str
    agent: str | None = None
    summary: str | None = None
    result: str | None = None
    attempt: int | None = None


@dataclass(frozen=True)
class TaskFail(Event):
    name: ClassVar[str] = "task_fail"
    task_id: str
    error: str
    agent: str | None = None
    attempt: int | None = None
