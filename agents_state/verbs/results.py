"""What a use case returns (issue 35): a small read-only record per kind of answer, each
rendering to exactly its command's ``--json`` body (``body()``).

Plain slotted classes on ``types.Frozen`` (the engine's ``Outcome`` is one): a frozen dataclass
would compile its methods at import, 2 to 3 ms per class on every ``task done`` (measured; the
command's start-up target is 1.4x of the floor).  The CLI prints ``body()`` with ``--json`` or
renders the fields as text; the MCP tools return ``body()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents_state.types import Frozen

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Protocol

    class Result(Protocol):
        """Every use case's result: its command's ``--json`` body (for the type checker only:
        making a ``Protocol`` class costs a start-up's worth of ``typing`` machinery)."""

        def body(self) -> dict[str, Any]: ...


__all__ = [
    "BudgetReport",
    "Claimed",
    "Explained",
    "NextStep",
    "NoWorkflow",
    "Recorded",
    "StatusReport",
    "TaskReport",
]

_put = object.__setattr__


class Recorded(Frozen):
    """A recording command's answer: what happened, the committed revision and status, the
    command's own fields (``extra``: ``waves``, ``handoff``, ``applied``, a merge's ...) and the
    next action."""

    __slots__ = ("message", "revision", "status", "extra", "next")  # noqa: RUF023 (body order)
    message: str
    revision: int | None
    status: str | None
    extra: Mapping[str, Any]
    next: dict[str, Any]

    def __init__(
        self,
        message: str,
        revision: int | None,
        status: str | None,
        next: dict[str, Any],
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        _put(self, "message", message)
        _put(self, "revision", revision)
        _put(self, "status", status)
        _put(self, "extra", {} if extra is None else extra)
        _put(self, "next", next)

    def body(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "revision": self.revision,
            "status": self.status,
            **self.extra,
            "next": self.next,
        }


class NextStep(Frozen):
    """``next --json``: the next action, after what merging a finished wave said (``merged``,
    issue 33; None when nothing was merged)."""

    __slots__ = ("action", "merged")
    action: dict[str, Any]
    merged: str | None

    def __init__(self, action: dict[str, Any], merged: str | None = None) -> None:
        _put(self, "action", action)
        _put(self, "merged", merged)

    def body(self) -> dict[str, Any]:
        return self.action if self.merged is None else {"merged": self.merged, **self.action}


class NoWorkflow(Frozen):
    """The answer of a command that finds no workflow (exit 0)."""

    __slots__ = ("next",)
    next: dict[str, Any]

    def __init__(self, next: dict[str, Any]) -> None:
        _put(self, "next", next)

    def body(self) -> dict[str, Any]:
        return {"message": "no active workflow", "next": self.next}


class TaskReport(Frozen):
    """A task command's answer (start, done, fail): the engine's data about the task, then
    where to work (``room``: ``worktree`` and ``branch`` under isolation)."""

    __slots__ = ("message", "changed", "revision", "data", "room")  # noqa: RUF023 (body order)
    message: str
    changed: bool
    revision: int
    data: Mapping[str, Any]
    room: Mapping[str, Any]

    def __init__(
        self,
        message: str,
        changed: bool,
        revision: int,
        data: Mapping[str, Any],
        room: Mapping[str, Any] | None = None,
    ) -> None:
        _put(self, "message", message)
        _put(self, "changed", changed)
        _put(self, "revision", revision)
        _put(self, "data", data)
        _put(self, "room", {} if room is None else room)

    def body(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "changed": self.changed,
            "revision": self.revision,
            **self.data,
            **self.room,
        }


class Claimed(Frozen):
    """``task claim``'s answer: the task taken, its definition and where to work."""

    __slots__ = ("message", "task", "attempt", "agent", "definition", "room", "revision")  # noqa: RUF023
    message: str
    task: str
    attempt: int
    agent: str
    definition: Mapping[str, Any]  # title, description, files, complexity
    room: Mapping[str, Any]
    revision: int

    def __init__(
        self,
        message: str,
        task: str,
        attempt: int,
        agent: str,
        definition: Mapping[str, Any],
        room: Mapping[str, Any],
        revision: int,
    ) -> None:
        _put(self, "message", message)
        _put(self, "task", task)
        _put(self, "attempt", attempt)
        _put(self, "agent", agent)
        _put(self, "definition", definition)
        _put(self, "room", room)
        _put(self, "revision", revision)

    def body(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "task": self.task,
            "attempt": self.attempt,
            "agent": self.agent,
            **self.definition,
            **self.room,
            "revision": self.revision,
        }


class StatusReport(Frozen):
    """``status --json``: the workflow's summary (None without one) and the next action."""

    __slots__ = ("next", "workflow")
    workflow: dict[str, Any] | None
    next: dict[str, Any]

    def __init__(self, workflow: dict[str, Any] | None, next: dict[str, Any]) -> None:
        _put(self, "workflow", workflow)
        _put(self, "next", next)

    def body(self) -> dict[str, Any]:
        return {"workflow": self.workflow, "next": self.next}


class Explained(Frozen):
    """``resume`` without an action: where the workflow stopped, the options, the next
    action."""

    __slots__ = ("info", "next")
    info: Mapping[str, Any]  # status, phase, explanation, options (``engine.resume.explain``)
    next: dict[str, Any]

    def __init__(self, info: Mapping[str, Any], next: dict[str, Any]) -> None:
        _put(self, "info", info)
        _put(self, "next", next)

    @property
    def explanation(self) -> str:
        text: str = self.info["explanation"]
        return text

    @property
    def options(self) -> list[dict[str, str]]:
        found: list[dict[str, str]] = self.info["options"]
        return found

    def body(self) -> dict[str, Any]:
        return {**self.info, "next": self.next}


class BudgetReport(Frozen):
    """``budget``: tokens used, the workflow's limit and what is left, each stage's limit and
    use (``stages``: name -> ``maxTokens``, ``usedTokens``), and when this was read."""

    __slots__ = ("used", "total", "stages", "at")  # noqa: RUF023 (body order)
    used: int
    total: int | None
    stages: Mapping[str, Mapping[str, int]]
    at: str

    def __init__(
        self, used: int, total: int | None, stages: Mapping[str, Mapping[str, int]], at: str
    ) -> None:
        _put(self, "used", used)
        _put(self, "total", total)
        _put(self, "stages", stages)
        _put(self, "at", at)

    @property
    def left(self) -> int | None:
        return None if self.total is None else max(0, self.total - self.used)

    def body(self) -> dict[str, Any]:
        return {
            "usedTokens": self.used,
            "maxTokens": self.total,
            "leftTokens": self.left,
            "stages": self.stages,
            "at": self.at,
        }
