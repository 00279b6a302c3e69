"""Issue 26: a state the store validated and wrote is read without checking it again
(``store.stamp``, ``records.trusted``); any other bytes are checked, with the same one-line errors.

The records built without checks must equal the checked ones (differential, over states the
engine reaches and random tasks); the mark must follow the bytes, not the file: a file edited in
place keeps its attribute but not its mark.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from clitools import run_cli, walk_to
from hypothesis import given, settings
from hypothesis import strategies as st
from test_state_files import BAD_STATES

from agents_state.models import State, TaskState
from agents_state.records.base import Record
from agents_state.records.trusted import build_trusted
from agents_state.store import stamp
from agents_state.store.codec import decode_state, encode_state
from agents_state.store.files import Store

TASKS = (
    '{"tasks": [{"id": "a", "title": "A", "files": ["a.py"]}, '
    '{"id": "b", "dependencies": ["a"], "complexity": "hard"}]}'
)


def _attributes_work(folder: Path) -> bool:
    probe = folder / "probe"
    probe.write_bytes(b"")
    try:
        os.setxattr(probe, "user.probe", b"1")
    except (OSError, AttributeError):
        return False
    finally:
        probe.unlink()
    return True


@pytest.fixture
def marked_root(root: Path) -> Path:
    """A workflow at 2.1 with two tasks, a task done, written by the engine (so marked)."""
    root.mkdir(parents=True, exist_ok=True)
    if not _attributes_work(root):
        pytest.skip("this file system keeps no user extended attributes")
    walk_to(root, "2.1", "mark")
    (root / "tasks.json").write_text(TASKS)
    assert run_cli(root, "tasks", "load", str(root / "tasks.json")).returncode == 0
    assert run_cli(root, "task", "claim", "--agent", "w1").returncode == 0
    assert run_cli(root, "task", "done", "a", "--force").returncode == 0
    return root


def _same(cls: type[Record], data: dict[str, Any]) -> None:
    checked = cls.model_validate(orjson.loads(orjson.dumps(data)))
    trusted = build_trusted(cls, orjson.loads(orjson.dumps(data)))
    assert trusted == checked
    assert trusted.model_dump(exclude_none=True) == checked.model_dump(exclude_none=True)


def test_trusted_records_equal_checked_ones_for_engine_states(marked_root: Path) -> None:
    data = (marked_root / ".agents/state.json").read_bytes()
    raw = orjson.loads(data)
    _same(State, raw)
    assert raw["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["a"]["status"] == "completed"
    # and whole decodes, the way the store reads, for a read and for an update
    for for_update in (False, True):
        assert decode_state(data, "s", for_update, trusted=True) == decode_state(
            data, "s", for_update
        )


TASK_FIELDS = st.fixed_dictionaries(
    {
        "title": st.text(max_size=5),
        "dependencies": st.lists(st.sampled_from(["a", "b", "c"]), unique=True),
        "complexity": st.sampled_from(["easy", "medium", "hard"]),
        "files": st.lists(st.text(max_size=4), max_size=3),
        "status": st.sampled_from(["pending", "in_progress", "completed", "failed", "skipped"]),
        "attempts": st.integers(0, 5),
    },
    optional={
        "agent": st.text(min_size=1, max_size=4),
        "summary": st.text(max_size=8),
        "custom": st.integers() | st.text(max_size=3),  # an extra key, kept
    },
)


@settings(max_examples=60, derandomize=True)
@given(TASK_FIELDS)
def test_trusted_tasks_equal_checked_ones(fields: dict[str, Any]) -> None:
    dumped = TaskState.model_validate(fields).model_dump(exclude_none=True)
    _same(TaskState, dumped)


def test_a_commit_marks_the_state_and_a_read_of_it_checks_nothing(
    marked_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = marked_root / ".agents/state.json"
    assert stamp.is_marked(str(path), path.read_bytes())
    assert not stamp.is_marked(str(path), path.read_bytes() + b" ")

    def refuse(data: Any) -> Any:
        raise AssertionError("a marked state was checked again")

    with monkeypatch.context() as m:
        m.setattr(State, "model_validate", refuse)
        state = Store(marked_root).load()
    assert state is not None
    assert (state.phase("2.1").tasks or {})["a"].status == "completed"


def test_the_backup_and_a_copy_are_not_marked(marked_root: Path, tmp_path: Path) -> None:
    agents = marked_root / ".agents"
    data = (agents / "state.json").read_bytes()
    assert not stamp.is_marked(str(agents / "state.json.bak"), data)
    copy = tmp_path / "copy.json"
    copy.write_bytes(data)
    assert not stamp.is_marked(str(copy), data)


def test_a_state_written_by_another_engine_is_checked(
    marked_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = marked_root / ".agents/state.json"
    monkeypatch.setattr(stamp, "_CODE", [b"0.0.0 v2 00000000"])  # other record definitions
    assert not stamp.is_marked(str(path), path.read_bytes())


def _edit_in_place(path: Path, data: bytes) -> None:
    """Overwrite the file's bytes without replacing it: its attributes stay."""
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(data)


def test_an_edit_in_place_of_the_same_length_is_checked(marked_root: Path) -> None:
    path = marked_root / ".agents/state.json"
    data = path.read_bytes()
    edited = data[:-2] + b"]\n"  # the closing brace of the object, now a bracket
    assert len(edited) == len(data) and edited != data
    _edit_in_place(path, edited)
    assert os.getxattr(path, stamp.ATTRIBUTE)  # the attribute is still there
    proc = run_cli(marked_root, "status")
    assert proc.returncode == 5
    assert proc.stderr.startswith("agents-state: error: .agents/state.json: not valid JSON")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert path.read_bytes() == edited


@pytest.mark.parametrize("name,data,message", BAD_STATES, ids=[b[0] for b in BAD_STATES])
@pytest.mark.parametrize("command", [["status"], ["next"], ["task", "claim"]])
def test_bad_state_written_over_a_marked_one_gives_one_line(
    marked_root: Path, name: str, data: bytes, message: str, command: list[str]
) -> None:
    path = marked_root / ".agents/state.json"
    _edit_in_place(path, data)
    proc = run_cli(marked_root, *command)
    assert proc.returncode == 5, proc.stderr
    assert proc.stderr == message
    assert path.read_bytes() == data


def test_an_invalid_value_of_the_same_length_in_place_is_refused(marked_root: Path) -> None:
    path = marked_root / ".agents/state.json"
    data = path.read_bytes()
    edited = data.replace(b'"complexity": "hard"', b'"complexity": "hurd"', 1)
    assert len(edited) == len(data) and edited != data
    _edit_in_place(path, edited)
    proc = run_cli(marked_root, "status")
    assert proc.returncode == 5
    assert proc.stderr == (
        "agents-state: error: .agents/state.json: "
        "stages.IMPLEMENT.phases.2.1.tasks.b.complexity: Input should be 'easy', 'medium' "
        "or 'hard' (got 'hurd')\n"
    )


def test_encode_after_a_trusted_read_writes_the_same_bytes(marked_root: Path) -> None:
    data = (marked_root / ".agents/state.json").read_bytes()
    assert encode_state(decode_state(data, "s", True, trusted=True), "s") == data


def test_an_update_builds_only_the_tasks_it_uses(marked_root: Path) -> None:
    """An update's trusted read defers its tasks (``records.trusted.deferred``): each is built
    when first used, as the same object, equal to the checked one; reading, comparing (from
    either side), showing, copying and dumping all build it first; a task never used is
    written back as read.  A read for display builds them all."""
    data = (marked_root / ".agents/state.json").read_bytes()
    checked = decode_state(data, "s").phase("2.1").tasks or {}

    def fresh() -> dict[str, TaskState]:
        return decode_state(data, "s", True, trusted=True).phase("2.1").tasks or {}

    uses: list[Any] = [
        lambda t: t.status,
        lambda t: t == checked["b"],
        lambda t: checked["b"] == t,
        lambda t: t == fresh()["b"],
        repr,
        lambda t: t.model_dump(exclude_none=True),
        lambda t: t.model_copy(),
        copy.deepcopy,
    ]
    for use in uses:
        task = fresh()["b"]
        assert isinstance(task, TaskState) and type(task) is not TaskState  # not built yet
        use(task)
        assert type(task) is TaskState and task == checked["b"], use
    assert repr(fresh()["b"]) == repr(checked["b"])
    assert fresh()["b"].model_copy(deep=True) == checked["b"]
    assert copy.copy(fresh()["b"]) == checked["b"]  # a shallow copy is a stand-in too
    task = fresh()["b"]
    task.summary = "set before it was built"
    assert task.complexity == "hard" and task.summary == "set before it was built"
    state = decode_state(data, "s", True, trusted=True)
    assert (state.phase("2.1").tasks or {})["a"].status == "completed"
    assert encode_state(state, "s") == data  # "b" never built: written back as it was read
    shown = decode_state(data, "s", False, trusted=True).phase("2.1").tasks or {}
    assert {type(t) for t in shown.values()} == {TaskState}
