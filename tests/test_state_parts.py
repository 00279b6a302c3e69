"""Issue 35 (item 3): the fan-out answers and the handoff ledger are declared fields of the state,
checked by the strict write like every other field; files written while they were free-form
extras still read, and the next update writes them back as the fields, unchanged in shape."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from clitools import cli_json, run_cli

from agents_state.app import App
from agents_state.engine import events as ev
from agents_state.engine.context import Outcome
from agents_state.engine.phases import new_state
from agents_state.errors import InvalidInputError, StateFileError
from agents_state.models import Fanout, HandoffLedger, HandoffNote, State
from agents_state.store.codec import decode_state, encode_state

NOW = datetime(2026, 1, 29, tzinfo=UTC)

# what the engine wrote before issue 35 (extras, in the order the hooks added them): the ledger
# first, a fan-out whose phase had not started ("since": null), and an entry no reader used
OLD_HANDOFFS: dict[str, Any] = {
    "records": [
        {
            "at": "2026-01-29T00:00:01Z",
            "target": "the ledger of phase 0",
            "phase": "0",
            "decision": "PROCEED",
            "kind": "response",
            "digest": "abc",
            "role": "research",
            "summary": "mapped src/",
            "tokens": 1200,
            "agent": "a1",
        }
    ],
    "tokens": {"0": 1200},
    "retry": {"task": "2.1-a", "failures": ["lint: 1 error"], "attempt": 2},
}
OLD_FANOUTS: dict[str, Any] = {
    "0": {
        "phase": "0",
        "since": "2026-01-29T00:00:00Z",
        "answers": {"E1": {"at": "2026-01-29T00:00:01Z", "answer": {"decision": "PROCEED"}}},
        "launched": {
            "run": "2026-01-29T00:00:00Z|0|0",
            "sessions": {"s1": {"at": "2026-01-29T00:00:00Z", "keys": ["E1", "E2"]}},
        },
    },
    "1.2": {"phase": "1.2", "since": None, "answers": {}},
}


def _state() -> State:
    return new_state(ev.Start(task="t"), NOW)


def _refused(state: State) -> str:
    with pytest.raises(StateFileError) as e:
        encode_state(state, ".agents/state.json")
    assert isinstance(e.value, InvalidInputError)
    return str(e.value)


def test_a_ledger_note_of_the_wrong_type_is_refused_not_written() -> None:
    state = _state()
    note = HandoffNote(at="t", target="phase 0", phase="0", decision="PROCEED", digest="d")
    note.tokens = "many"  # type: ignore[assignment]
    state.handoffs = HandoffLedger(records=[note])
    assert _refused(state) == (
        ".agents/state.json: handoffs.records.0.tokens: refusing to write an invalid state: "
        "handoffs.records.0.tokens: Input should be a valid integer, unable to parse string "
        "as an integer (got 'many')"
    )


def test_a_fanout_launch_of_the_wrong_shape_is_refused_not_written() -> None:
    state = _state()
    fan = Fanout(phase="0", since=state.phase("0").startedAt)
    fan.answers = {"E1": "an answer, not a record"}  # type: ignore[dict-item]
    state.fanouts = {"0": fan}
    assert "fanouts.0.answers.E1" in _refused(state)


@pytest.mark.parametrize("trusted", [False, True])
def test_old_extras_read_as_the_declared_fields(trusted: bool) -> None:
    doc = json.loads(encode_state(_state(), "s"))
    doc.update(handoffs=OLD_HANDOFFS, fanouts=OLD_FANOUTS)
    state = decode_state(json.dumps(doc, indent=2).encode(), "s", trusted=trusted)
    assert state.model_extra == {}
    assert state.handoffs is not None and state.handoffs.records[0].summary == "mapped src/"
    assert state.handoffs.retry is not None and state.handoffs.retry.failures == ["lint: 1 error"]
    assert state.fanouts is not None and state.fanouts["0"].launched is not None
    assert state.fanouts["0"].launched.sessions["s1"].keys == ["E1", "E2"]
    assert state.fanouts["0"].answers["E1"].answer == {"decision": "PROCEED"}


def test_entries_the_old_readers_skipped_read_as_none() -> None:
    doc = json.loads(encode_state(_state(), "s"))
    doc.update(
        handoffs={"records": ["x", OLD_HANDOFFS["records"][0]], "tokens": {"0": "x", "1": 5}},
        fanouts={"0": 7, "1.2": {"phase": "1.2", "answers": []}},
    )
    state = decode_state(json.dumps(doc).encode(), "s")
    assert state.handoffs is not None and [r.digest for r in state.handoffs.records] == ["abc"]
    assert state.handoffs.tokens == {"1": 5}
    assert state.fanouts == {"1.2": Fanout(phase="1.2")}


def test_an_old_state_file_is_rewritten_with_the_fields_unchanged_in_shape(root: Path) -> None:
    assert run_cli(root, "dispatch", "Add OAuth login").returncode == 0
    path = root / ".agents/state.json"
    doc = json.loads(path.read_bytes())
    doc.update(handoffs=OLD_HANDOFFS, fanouts=OLD_FANOUTS, somethingElse={"kept": True})
    path.write_text(json.dumps(doc, indent=2) + "\n")

    app = App.open(str(root))
    state = app.state()
    assert state is not None and state.model_extra == {"somethingElse": {"kept": True}}
    assert isinstance(state.handoffs, HandoffLedger)

    def bump(s: State | None) -> Outcome:
        assert s is not None
        s.revision += 1
        return Outcome(s, "", True, {"rev": s.revision, "event": "test"})

    app.store.commit(bump)
    after = json.loads(path.read_bytes())
    assert after["handoffs"] == OLD_HANDOFFS
    assert after["fanouts"]["0"] == OLD_FANOUTS["0"]
    assert after["fanouts"]["1.2"] == {"phase": "1.2", "answers": {}}  # a null is left out
    assert after["somethingElse"] == {"kept": True}
    assert after["revision"] == doc["revision"] + 1
    assert cli_json(root, "status")["workflow"]["revision"] == after["revision"]
