"""The chain machine, pure: refused moves name what is allowed; a repeated response is a no-op."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agents_state.chains.action import chain_action, new_chain
from agents_state.chains.catalogue import CHAINS, plan_steps, size_feature
from agents_state.chains.state import CHAIN_ACCEPTS, ChainEvent, chain_apply
from agents_state.errors import TransitionNotAllowedError
from agents_state.handoff.protocol import check_handoff

NOW = datetime(2026, 1, 28, tzinfo=UTC)


def _chain() -> object:
    sizing, inputs = size_feature("Add login", 3, 3, 1, "medium")
    steps, shape = plan_steps(CHAINS["code"], sizing, 1, None, None)
    return new_chain(
        CHAINS["code"],
        "code-1",
        "Add login",
        steps,
        now=NOW,
        sizing=sizing,
        inputs=inputs,
        shape=shape,
        only=None,
        submode=None,
        models={},
    )


def test_same_response_twice_changes_nothing() -> None:
    c = _chain()
    h = check_handoff({"decision": "PROCEED", "findings": {}, "context_summary": "s"}, "r")
    once = chain_apply(c, ChainEvent("respond", handoff=h), NOW)  # type: ignore[arg-type]
    twice = chain_apply(once.chain, ChainEvent("respond", handoff=h), NOW)
    assert not twice.changed and twice.chain is once.chain
    assert c.revision == 1 and once.chain.revision == 2  # type: ignore[attr-defined]


def test_refused_moves() -> None:
    c = _chain()
    with pytest.raises(TransitionNotAllowedError) as e:
        chain_apply(c, ChainEvent("answer", text="x"), NOW)  # type: ignore[arg-type]
    assert str(e.value) == (
        "chain code-1 is running: cannot answer; allowed from here: abort, "
        "respond, timeout (run: agents-state chain next code-1)"
    )
    assert CHAIN_ACCEPTS["completed"] == frozenset()


def test_next_action_has_the_workflow_shape() -> None:
    action = chain_action(_chain())  # type: ignore[arg-type]
    assert {
        "kind",
        "stage",
        "phase",
        "phaseName",
        "agents",
        "read",
        "write",
        "command",
        "instructions",
    } <= set(action)
    assert set(action["agents"]) == {"count", "type", "subagentType", "model", "modelId"}
