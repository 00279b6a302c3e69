"""What every engine module shares: the handler context, the outcome and the done statuses.

The engine's modules import one way: ``ready`` -> ``context`` -> ``table`` -> ``advance`` ->
``gate`` / ``taskload`` -> ``tasks`` -> ``flow`` -> ``phases`` (which holds ``apply``).  Nothing
here imports an engine module but ``ready``, so no module needs a lazy import of another's
private names.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agents_state.engine.ready import DONE
from agents_state.errors import NotFoundError
from agents_state.models import State
from agents_state.policy import Policy
from agents_state.types import Frozen as _Frozen
from agents_state.workflow import PHASE_IDS

if TYPE_CHECKING:
    from typing import TypeVar

    from agents_state.engine.events import Event

    # for the type checker only: at run time a string bound is compiled (``typing.ForwardRef``)
    E = TypeVar("E", bound=Event)

__all__ = ["DONE", "Ctx", "Handlers", "Outcome", "check_phase_id"]


class Ctx(_Frozen):
    """One transition's working copy of the state, its time stamp, policy and clock reading."""

    __slots__ = ("state", "ts", "policy", "now")  # noqa: RUF023 (the order repr shows)
    state: State
    ts: str
    policy: Policy
    now: datetime

    def __init__(self, state: State, ts: str, policy: Policy, now: datetime) -> None:
        put = object.__setattr__
        put(self, "state", state)
        put(self, "ts", ts)
        put(self, "policy", policy)
        put(self, "now", now)


class Outcome(_Frozen):
    """The result of one event: the new state, what to log, and what to tell the caller."""

    __slots__ = ("state", "message", "changed", "record", "data")  # noqa: RUF023
    state: State
    message: str
    changed: bool
    record: dict[str, Any]
    data: dict[str, Any]

    def __init__(
        self,
        state: State,
        message: str,
        changed: bool = True,
        record: dict[str, Any] | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        put = object.__setattr__
        put(self, "state", state)
        put(self, "message", message)
        put(self, "changed", changed)
        put(self, "record", {} if record is None else record)
        put(self, "data", {} if data is None else data)


def check_phase_id(phase_id: str) -> str:
    if phase_id not in PHASE_IDS:
        raise NotFoundError(f"unknown phase '{phase_id}'; phases are {', '.join(PHASE_IDS)}")
    return phase_id


class Handlers:
    """Event handlers by the event's type: ``@HANDLERS.on(ev.Block)`` files a handler under the
    event class its parameter names (mypy checks that the two agree), so a handler gets its own
    event type without ``isinstance`` asserts, and an event nobody handles is a ``KeyError``."""

    def __init__(self) -> None:
        self._by_type: dict[type[Event], Callable[[Ctx, Any], Outcome]] = {}

    def on(
        self, kind: type[E]
    ) -> Callable[[Callable[[Ctx, E], Outcome]], Callable[[Ctx, E], Outcome]]:
        def register(handler: Callable[[Ctx, E], Outcome]) -> Callable[[Ctx, E], Outcome]:
            self._by_type[kind] = handler
            return handler

        return register

    @property
    def kinds(self) -> frozenset[type[Event]]:
        return frozenset(self._by_type)

    def handles(self, event: Event) -> bool:
        return type(event) in self._by_type

    def __call__(self, c: Ctx, event: Event) -> Outcome:
        return self._by_type[type(event)](c, event)
