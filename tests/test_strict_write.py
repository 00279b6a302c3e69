"""Issue 18: strict on write for real.  ``encode_state`` writes the dump of the validated
object, and a state whose values are not canonical (what the lenient reader would coerce) or
that breaks the engine's invariants is refused with one line naming the field; nothing is
written.  Each test here fails if the matching write-side check is removed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
import pytest

from agents_state.engine import events as ev
from agents_state.engine.phases import new_state
from agents_state.errors import InvalidInputError, StateFileError
from agents_state.models import State
from agents_state.store.codec import decode_state, encode_state

NOW = datetime(2026, 1, 29, tzinfo=UTC)


def _state() -> State:
    return new_state(ev.Start(task="t"), NOW)


def _refused(state: State) -> str:
    with pytest.raises(StateFileError) as e:
        encode_state(state, ".agents/state.json")
    assert isinstance(e.value, InvalidInputError)  # exit code 5, one line, nothing written
    return str(e.value)


def test_a_string_revision_is_refused_not_written() -> None:
    state = _state()
    state.revision = "7"  # type: ignore[assignment]
    assert _refused(state) == (
        ".agents/state.json: revision: refusing to write an invalid "
        "state: revision: '7' is not canonical (expected 7)"
    )


def test_a_status_the_reader_would_normalise_is_refused() -> None:
    state = _state()
    state.status = "Done"  # type: ignore[assignment]
    assert "refusing to write an invalid state: status" in _refused(state)


def test_a_phase_status_out_of_the_vocabulary_is_refused() -> None:
    state = _state()
    state.phase("1.2").status = "finished"  # type: ignore[assignment]
    assert "stages.PLAN.phases.1.2.status" in _refused(state)


def test_two_running_phases_break_an_invariant() -> None:
    state = _state()
    state.phase("0").status = state.phase("1.1").status = "in_progress"
    assert _refused(state).endswith(
        "refusing to write an invalid state: more than one phase in progress: 0, 1.1"
    )


def test_what_is_written_is_the_validated_canonical_object() -> None:
    state = _state()
    data = encode_state(state, "s")
    doc: dict[str, Any] = orjson.loads(data)
    assert doc == State.model_validate(doc).to_json_dict() == state.to_json_dict()
    assert encode_state(decode_state(data, "s"), "s") == data
