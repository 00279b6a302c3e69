"""What every engine module shares: the handler context, the outcome and the done statuses.

The engine's modules import one way: ``ready`` -> ``context`` -> ``table`` -> ``advance`` ->
``gate`` / ``taskload`` -> ``tasks`` -> ``flow`` -> ``phases`` (which holds ``apply``).  Nothing
here imports an engine module but ``ready``, so no module needs a lazy import of another's
private names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from agents_state.engine.ready import DONE
from agents_state.errors import NotFoundError
from agents_state.models import State
from agents_state.policy import Policy
from agents_state.workflow import PHASE_IDS

if TYPE_CHECKING:
    from agents_state.engine.events import Event

__all__ = ["DONE", "Ctx", "Handlers", "Outcome", "check_phase_id"]


@dataclass(frozen=True)
class Ctx:
    """One transition's working copy of the state, its time stamp, policy and clock reading."""

    state: State
    ts: str
    policy: Policy
    now: datetime


@dataclass(frozen=True)
class Outcome:
    """The result of one event: the new state, what to log, and what to tell the caller."""

    state: State
    message: str
    changed: bool = True
    record: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)


def check_phase_id(phase_id: str) -> str:
    if phase_id not in PHASE_IDS:
        raise NotFoundError(f"unknown phase '{phase_id}'; phases are {', '.join(PHASE_IDS)}")
    return phase_id


E = TypeVar("E", bound="Event")


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
