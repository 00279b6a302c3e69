"""Issue 16: an update writes the tasks it did not change as dumped when read (no dump and no
validation again); the bytes are the same as the full dump's, and a changed task is validated."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agents_state.engine import events as ev
from agents_state.engine.phases import apply
from agents_state.errors import StateFileError
from agents_state.store import codec
from agents_state.store.codec import decode_state, encode_state

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from common import chained_tasks, workflow_at_tasks


def _state_bytes(tmp_path: Path) -> bytes:
    workflow_at_tasks(tmp_path, chained_tasks(50), 10)
    return (tmp_path / ".agents/state.json").read_bytes()


def test_unchanged_tasks_are_written_as_read(tmp_path: Path) -> None:
    data = _state_bytes(tmp_path)
    now = datetime.now(UTC)
    out = apply(
        decode_state(data, "s", for_update=True), ev.TaskDone(task_id="t3", summary="ok"), now
    )
    assert codec._READ_TASKS  # the tasks read for an update were remembered
    fast = encode_state(out.state, "s")
    codec._READ_TASKS.clear()
    assert encode_state(out.state, "s") == fast  # the full dump and validation agree
    again = decode_state(fast, "s")
    assert again.phase("2.1").tasks["t3"].status == "completed"  # type: ignore[index]
    assert encode_state(decode_state(data, "s", True), "s") == data  # unchanged: same bytes
    decode_state(data, "s")
    assert not codec._READ_TASKS  # a read-only command dumps nothing


def test_a_changed_task_is_still_validated(tmp_path: Path) -> None:
    state = decode_state(_state_bytes(tmp_path), "s", for_update=True)
    tasks = state.phase("2.1").tasks
    assert tasks is not None
    bad = tasks["t4"].model_copy()
    bad.attempts = 2**60  # out of range: the engine's copy-on-write makes a new object
    tasks["t4"] = bad
    with pytest.raises(StateFileError, match="refusing to write an invalid state"):
        encode_state(state, "s")


def test_a_hand_written_file_is_written_back_normalised(tmp_path: Path) -> None:
    data = _state_bytes(tmp_path).replace(b'"status": "pending"', b'"status": "PENDING"', 1)
    state = decode_state(data, "s", for_update=True)
    assert codec._READ_TASKS
    assert b"PENDING" not in encode_state(state, "s")  # the dump on read is normalised
