"""Events: the inputs of the state machine, as immutable dataclasses.

Each event has a ``name`` used by the transition tables in ``engine`` and a ``record()`` that is
written to ``.agents/events.jsonl`` when the transition is accepted.
"""

from __future__ import annotations

import threading
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from dataclasses import dataclass as event_class

    from agents_state.engine.compaction import Usage
    from agents_state.engine.mergeresult import MergeResult
else:

    def event_class(**options: Any) -> Any:
        """``dataclass(**options)``, applied when the class is first instantiated (see
        ``Event.__new__``): a command makes one or two of the 23 events, and each ``dataclass``
        costs ~0.15 ms at import, mostly the ``compile`` of its ``__init__`` (issue 26)."""

        def defer(cls: type) -> type:
            _PENDING[cls] = options
            return cls

        return defer


# event classes not yet made dataclasses -> the options of their ``dataclass`` call
_PENDING: dict[type, dict[str, Any]] = {}
_MAKING = threading.Lock()


def _materialise(cls: type) -> None:
    """Make ``cls`` (and any pending base first) the dataclass its decorator names, in place."""
    with _MAKING:
        for c in reversed(cls.__mro__):
            options = _PENDING.get(c)
            if options is not None:
                dataclass(**options)(c)  # in place: no ``slots``, the class stays the same object
                del _PENDING[c]


__all__ = [
    "Abort",
    "Answer",
    "Block",
    "BudgetAnswer",
    "Clarify",
    "Compact",
    "Event",
    "GateAnswer",
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


@event_class(eq=False, repr=False)
class Event:
    """Immutable once built.  Not ``frozen=True``: that makes ``dataclass`` generate four more
    methods per class, which doubled this module's import time on every command (issue 8).
    Nor a generated ``__repr__`` per class (one ``exec`` each at import): the one below reads
    the fields when an event is shown.  Every event has a docstring: ``dataclass`` makes one from
    ``inspect.signature`` for a class without (issue 26)."""

    name: ClassVar[str] = "event"

    if not TYPE_CHECKING:  # the type checker sees each event's dataclass ``__init__``

        def __new__(cls, *args: Any, **kwargs: Any) -> Event:
            if _PENDING:  # this class or a base: before ``type.__call__`` looks up ``__init__``
                _materialise(cls)
            return object.__new__(cls)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_sealed", True)

    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_sealed", False):
            raise FrozenInstanceError(f"cannot assign to field {key!r}")
        object.__setattr__(self, key, value)

    def __delattr__(self, key: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {key!r}")

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))
        return f"{type(self).__name__}({shown})"

    def record(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if v not in (None, [], {}, ())}
        data.pop("artifact", None)  # artifacts live in their own files
        return {"event": self.name, **data}


@event_class(eq=False, repr=False)
class Start(Event):
    """Begin a workflow. ``agent_counts`` and ``skipped`` come from the config and sizing."""

    name: ClassVar[str] = "start"
    task: str
    agent_counts: dict[str, int] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()


@event_class(eq=False, repr=False)
class PhaseStart(Event):
    """A phase's agents were dispatched: the phase is in progress."""

    name: ClassVar[str] = "phase_start"
    phase: str


@event_class(eq=False, repr=False)
class PhaseComplete(Event):
    """Complete a phase; for a review phase, ``blocking_issues`` decides pass or send-back."""

    name: ClassVar[str] = "phase_complete"
    phase: str
    issues: int | None = None
    blocking_issues: int = 0
    agent_count: int | None = None
    tests_passed: bool | None = None  # 3.1: the validated results
    tests_reported: bool | None = None  # 3.1: True: the model's report, no TEST command ran
    failed_commands: tuple[str, ...] = ()
    same_artifact: bool = False  # the stored artifact already holds exactly these bytes
    next_agent_count: int | None = None  # 1.1: how many plan agents 1.2 dispatches


@event_class(eq=False, repr=False)
class PhaseFail(Event):
    """A phase failed with ``error``: the workflow waits for retry, skip or abort."""

    name: ClassVar[str] = "phase_fail"
    phase: str
    error: str


@event_class(eq=False, repr=False)
class Stop(Event):
    """Pause the workflow; ``resume`` continues it."""

    name: ClassVar[str] = "stop"


@event_class(eq=False, repr=False)
class Retry(Event):
    """Resume a failed phase or task by running it again."""

    name: ClassVar[str] = "retry"


@event_class(eq=False, repr=False)
class Skip(Event):
    """Resume a failed phase or task by skipping it."""

    name: ClassVar[str] = "skip"


@event_class(eq=False, repr=False)
class Abort(Event):
    """End the workflow without completing it."""

    name: ClassVar[str] = "abort"


@event_class(eq=False, repr=False)
class Compact(Event):
    """``usage``: the context's size when known (``engine.compaction.usage``), which decides
    between a compaction asked of the user and a boundary skipped as not needed (issue 27)."""

    name: ClassVar[str] = "compact"
    usage: Usage | None = None


@event_class(eq=False, repr=False)
class Block(Event):
    """A sub-agent said STOP (or reviews ran out): the workflow waits for a person."""

    name: ClassVar[str] = "block"
    reason: str
    phase: str | None = None
    task: str | None = None


@event_class(eq=False, repr=False)
class Clarify(Event):
    """A sub-agent needs answers to ``questions`` before its phase or task goes on."""

    name: ClassVar[str] = "clarify"
    questions: tuple[str, ...]
    phase: str | None = None
    task: str | None = None


@event_class(eq=False, repr=False)
class Answer(Event):
    """The user's answer to the open clarification."""

    name: ClassVar[str] = "answer"
    text: str


@event_class(eq=False, repr=False)
class TasksLoad(Event):
    """Store task definitions and their waves (computed by ``waves.plan_waves``)."""

    name: ClassVar[str] = "tasks_load"
    tasks: tuple[tuple[str, dict[str, Any]], ...]
    waves: tuple[tuple[str, ...], ...]
    source: str = "tasks file"  # the file as the caller named it, for error messages
    git: dict[str, Any] | None = None  # worktree isolation: the integration branch (issue 22)

    def record(self) -> dict[str, Any]:
        return {"event": self.name, "tasks": len(self.tasks), "waves": len(self.waves)}


@event_class(eq=False, repr=False)
class TaskClaim(Event):
    """``agent`` takes a ready task of the current wave (``task_id``, or the next one)."""

    name: ClassVar[str] = "task_claim"
    agent: str
    task_id: str | None = None


@event_class(eq=False, repr=False)
class TaskStart(Event):
    """A claimed task's agent started on it."""

    name: ClassVar[str] = "task_start"
    task_id: str
    agent: str | None = None


@event_class(eq=False, repr=False)
class TaskDone(Event):
    """A task is complete; with worktree isolation, on ``branch`` at ``head``."""

    name: ClassVar[str] = "task_done"
    task_id: str
    agent: str | None = None
    summary: str | None = None
    result: str | None = None
    attempt: int | None = None
    branch: str | None = None  # worktree isolation: the task's branch and its head (issue 22)
    head: str | None = None
    unstarted: bool = True  # a pending task may be completed (False: ``task done`` without --force)


@event_class(eq=False, repr=False)
class MergeBegin(Event):
    """The merge queue is about to merge these tasks, in this order, onto integration ``head``."""

    name: ClassVar[str] = "merge_begin"
    tasks: tuple[str, ...]
    head: str


@event_class(eq=False, repr=False)
class MergeRecord(Event):
    """What the merge queue did: per task (id, outcome, commit, head, conflicting files)."""

    name: ClassVar[str] = "merge_record"
    results: tuple[MergeResult, ...]

    def record(self) -> dict[str, Any]:
        return {"event": self.name, "merges": {r.task: r.outcome for r in self.results}}


@event_class(eq=False, repr=False)
class MergeResolve(Event):
    """``merge --resolve`` merged the integration branch into a conflicted task's ``worktree``,
    leaving the conflicts in ``files`` to fix there (issue 33: the next step says so)."""

    name: ClassVar[str] = "merge_resolve"
    task_id: str
    worktree: str
    files: tuple[str, ...]


@event_class(eq=False, repr=False)
class TaskFail(Event):
    """A task failed with ``error``; the retry policy decides what follows."""

    name: ClassVar[str] = "task_fail"
    task_id: str
    error: str
    agent: str | None = None
    attempt: int | None = None


@event_class(eq=False, repr=False)
class BudgetAnswer(Event):
    """The user's answer when a token budget is spent (issue 24): ``raise`` sets a new limit
    (of the workflow, or of ``stage``); ``once`` lets the dispatch ``key`` start over it."""

    name: ClassVar[str] = "budget"
    choice: str
    max_tokens: int | None = None
    stage: str | None = None
    key: str | None = None


@event_class(eq=False, repr=False)
class GateAnswer(Event):
    """A person's answer at the gate after ``phase`` (issue 36): ``verdict`` is ``approved``
    (the workflow goes on) or ``rejected`` (the phase runs again, ``note`` saying why)."""

    name: ClassVar[str] = "gate"
    phase: str
    verdict: Literal["approved", "rejected"]
    by: str
    note: str | None = None
