"""Events: the inputs of the state machine, as immutable dataclasses.

Each event has a ``name`` used by the transition tables in ``engine`` and a ``record()`` that is
written to ``.agents/events.jsonl`` when the transition is accepted.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from agents_state.engine.compaction import Usage

__all__ = [
    "Abort",
    "Answer",
    "Block",
    "BudgetAnswer",
    "Clarify",
    "Compact",
    "Event",
    "MergeBegin",
    "MergeRecord",
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


@dataclass(eq=False)
class Event:
    """Immutable once built.  Not ``frozen=True``: that makes ``dataclass`` generate four more
    methods per class, which doubled this module's import time on every command (issue 8)."""

    name: ClassVar[str] = "event"

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sealed", True)

    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_sealed", False):
            raise FrozenInstanceError(f"cannot assign to field {key!r}")
        object.__setattr__(self, key, value)

    def __delattr__(self, key: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {key!r}")

    def record(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if v not in (None, [], {}, ())}
        data.pop("artifact", None)  # artifacts live in their own files
        return {"event": self.name, **data}


@dataclass(eq=False)
class Start(Event):
    """Begin a workflow. ``agent_counts`` and ``skipped`` come from the config and sizing."""

    name: ClassVar[str] = "start"
    task: str
    agent_counts: dict[str, int] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()


@dataclass(eq=False)
class PhaseStart(Event):
    name: ClassVar[str] = "phase_start"
    phase: str


@dataclass(eq=False)
class PhaseComplete(Event):
    """Complete a phase; for a review phase, ``blocking_issues`` decides pass or send-back."""

    name: ClassVar[str] = "phase_complete"
    phase: str
    issues: int | None = None
    blocking_issues: int = 0
    agent_count: int | None = None
    tests_passed: bool | None = None  # 3.1: the validated results
    failed_commands: tuple[str, ...] = ()
    same_artifact: bool = False  # the stored artifact already holds exactly these bytes
    next_agent_count: int | None = None  # 1.1: how many plan agents 1.2 dispatches


@dataclass(eq=False)
class PhaseFail(Event):
    name: ClassVar[str] = "phase_fail"
    phase: str
    error: str


@dataclass(eq=False)
class Stop(Event):
    name: ClassVar[str] = "stop"


@dataclass(eq=False)
class Retry(Event):
    name: ClassVar[str] = "retry"


@dataclass(eq=False)
class Skip(Event):
    name: ClassVar[str] = "skip"


@dataclass(eq=False)
class Abort(Event):
    name: ClassVar[str] = "abort"


@dataclass(eq=False)
class Compact(Event):
    """``usage``: the context's size when known (``engine.compaction.usage``), which decides
    between a compaction asked of the user and a boundary skipped as not needed (issue 27)."""

    name: ClassVar[str] = "compact"
    usage: Usage | None = None


@dataclass(eq=False)
class Block(Event):
    """A sub-agent said STOP (or reviews ran out): the workflow waits for a person."""

    name: ClassVar[str] = "block"
    reason: str
    phase: str | None = None
    task: str | None = None


@dataclass(eq=False)
class Clarify(Event):
    name: ClassVar[str] = "clarify"
    questions: tuple[str, ...]
    phase: str | None = None
    task: str | None = None


@dataclass(eq=False)
class Answer(Event):
    name: ClassVar[str] = "answer"
    text: str


@dataclass(eq=False)
class TasksLoad(Event):
    """Store task definitions and their waves (computed by ``waves.plan_waves``)."""

    name: ClassVar[str] = "tasks_load"
    tasks: tuple[tuple[str, dict[str, Any]], ...]
    waves: tuple[tuple[str, ...], ...]
    source: str = "tasks file"  # the file as the caller named it, for error messages
    git: dict[str, Any] | None = None  # worktree isolation: the integration branch (issue 22)

    def record(self) -> dict[str, Any]:
        return {"event": self.name, "tasks": len(self.tasks), "waves": len(self.waves)}


@dataclass(eq=False)
class TaskClaim(Event):
    name: ClassVar[str] = "task_claim"
    agent: str
    task_id: str | None = None


@dataclass(eq=False)
class TaskStart(Event):
    name: ClassVar[str] = "task_start"
    task_id: str
    agent: str | None = None


@dataclass(eq=False)
class TaskDone(Event):
    name: ClassVar[str] = "task_done"
    task_id: str
    agent: str | None = None
    summary: str | None = None
    result: str | None = None
    attempt: int | None = None
    branch: str | None = None  # worktree isolation: the task's branch and its head (issue 22)
    head: str | None = None


@dataclass(eq=False)
class MergeBegin(Event):
    """The merge queue is about to merge these tasks, in this order, onto integration ``head``."""

    name: ClassVar[str] = "merge_begin"
    tasks: tuple[str, ...]
    head: str


@dataclass(eq=False)
class MergeRecord(Event):
    """What the merge queue did: per task (id, outcome, commit, head, conflicting files)."""

    name: ClassVar[str] = "merge_record"
    results: tuple[tuple[str, str, str | None, str | None, tuple[str, ...]], ...]

    def record(self) -> dict[str, Any]:
        return {"event": self.name, "merges": {r[0]: r[1] for r in self.results}}


@dataclass(eq=False)
class TaskFail(Event):
    name: ClassVar[str] = "task_fail"
    task_id: str
    error: str
    agent: str | None = None
    attempt: int | None = None


@dataclass(eq=False)
class BudgetAnswer(Event):
    """The user's answer when a token budget is spent (issue 24): ``raise`` sets a new limit
    (of the workflow, or of ``stage``); ``once`` lets the dispatch ``key`` start over it."""

    name: ClassVar[str] = "budget"
    choice: str
    max_tokens: int | None = None
    stage: str | None = None
    key: str | None = None
