"""Issue 18: the chain machine's statuses come from ``CHAIN_MOVES``: every entry is reached by
the walks below, each walk checks the status after every move, and changing any one target in
the table fails a walk."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_chain_engine import NOW, _chain

from agents_state.chains import state as chain_state
from agents_state.chains.state import MAX_TIMEOUTS, MAX_WRITER_RETRIES, ChainEvent, chain_apply
from agents_state.errors import TransitionNotAllowedError
from agents_state.handoff.protocol import check_handoff

Key = tuple[str, str, str]


def _respond(decision: str, **extra: Any) -> ChainEvent:
    data = {"decision": decision, "findings": {}, "context_summary": f"s-{decision}", **extra}
    return ChainEvent("respond", handoff=check_handoff(data, "r"))


def _qa_fail(n: int) -> ChainEvent:
    data = {"decision": "STOP", "checks": {"tests": {"passed": False, "failed": [f"t{n}"]}}}
    return ChainEvent("respond", handoff=check_handoff(data, "r"))


PROCEED = _respond("PROCEED")
CLARIFY = _respond("CLARIFY", questions=["which db?"])
STOP = _respond("STOP", reason="cannot go on")


def _walk(*moves: tuple[ChainEvent, str]) -> None:
    """Apply each event to a fresh code chain (research, write, validate); check the status."""
    c: Any = _chain()
    for i, (event, expected) in enumerate(moves):
        c = chain_apply(c, event, NOW).chain
        assert c.status == expected, (i, event.name, c.status)


WALKS: list[Callable[[], None]] = [
    lambda: _walk(
        (PROCEED, "running"),
        (_respond("PROCEED", context_summary="w"), "running"),
        (_respond("PROCEED", context_summary="done"), "completed"),
    ),
    lambda: _walk(
        (CLARIFY, "waiting"),
        (ChainEvent("answer", text="pg"), "running"),
        (ChainEvent("abort"), "aborted"),
    ),
    lambda: _walk(
        (STOP, "blocked"),
        (ChainEvent("retry"), "running"),
        (ChainEvent("timeout"), "running"),
        (ChainEvent("timeout"), "blocked"),
        (ChainEvent("abort"), "aborted"),
    ),
    lambda: _walk(
        (PROCEED, "running"),
        *[
            m
            for i in range(MAX_WRITER_RETRIES)
            for m in (
                (_respond("PROCEED", context_summary=f"w{i}"), "running"),
                (_qa_fail(i), "running"),
            )
        ],
        (_respond("PROCEED", context_summary="w-last"), "running"),
        (_qa_fail(99), "blocked"),
        (ChainEvent("abort"), "aborted"),
    ),
    lambda: _walk(
        *[(ChainEvent("timeout"), "running")] * (MAX_TIMEOUTS - 1),
        (CLARIFY, "waiting"),
        (ChainEvent("abort"), "aborted"),
    ),
]


def _run_walks() -> None:
    for walk in WALKS:
        walk()


def test_every_chain_move_is_reached(monkeypatch: pytest.MonkeyPatch) -> None:
    hits: set[Key] = set()

    class Recording(dict[Key, Any]):
        def __getitem__(self, key: Key) -> Any:
            hits.add(key)
            return super().__getitem__(key)

    monkeypatch.setattr(chain_state, "CHAIN_MOVES", Recording(chain_state.CHAIN_MOVES))
    _run_walks()
    assert sorted(set(chain_state.CHAIN_MOVES) - hits) == []


OTHER = {
    "running": "blocked",
    "waiting": "running",
    "blocked": "running",
    "completed": "running",
    "aborted": "blocked",
}


@pytest.mark.parametrize("key", list(chain_state.CHAIN_MOVES), ids=str)
def test_changing_a_chain_target_fails_a_walk(monkeypatch: pytest.MonkeyPatch, key: Key) -> None:
    mutated = dict(chain_state.CHAIN_MOVES)
    mutated[key] = OTHER[mutated[key]]  # type: ignore[assignment]
    monkeypatch.setattr(chain_state, "CHAIN_MOVES", mutated)
    with pytest.raises((AssertionError, TransitionNotAllowedError)):
        _run_walks()


def test_the_walks_pass_on_the_real_table() -> None:
    _run_walks()
