"""Issue 26: the 21 events are dataclasses made on first instantiation (``events.event_class``),
not at import; each must become exactly the dataclass its class body declares."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
import typing

import pytest

from agents_state.engine import events as ev

EVENTS: list[type[ev.Event]] = [getattr(ev, n) for n in ev.__all__]


def _required(cls: type) -> dict[str, object]:
    """A value for each field without a default: an empty tuple or a string."""
    return {
        f.name: () if "tuple" in str(f.type) else "x"
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }


@pytest.mark.parametrize("cls", EVENTS, ids=[c.__name__ for c in EVENTS])
def test_each_event_becomes_the_dataclass_it_declares(cls: type[ev.Event]) -> None:
    ev._materialise(cls)
    assert cls not in ev._PENDING and "__init__" in cls.__dict__
    hints = typing.get_type_hints(cls, vars(ev) | {"Usage": object, "MergeResult": object})
    declared = [
        n
        for c in reversed(cls.__mro__)
        for n in inspect.get_annotations(c)
        if typing.get_origin(hints.get(n)) is not typing.ClassVar
    ]
    assert [f.name for f in dataclasses.fields(cls)] == declared
    event = cls(**_required(cls))
    assert event.record()["event"] == cls.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(event, "phase", "other")  # noqa: B010 (any field, declared or not)


_FRESH = """
import threading
from agents_state.engine import events as ev
assert len(ev._PENDING) == 23, len(ev._PENDING)
made = []
def make(i):
    made.append(ev.TaskFail(task_id=f"t{i}", error="e"))
threads = [threading.Thread(target=make, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert sorted(e.task_id for e in made) == [f"t{i}" for i in range(8)]
assert ev.TaskFail not in ev._PENDING and ev.Event not in ev._PENDING
assert ev.TaskDone in ev._PENDING and len(ev._PENDING) == 21
print("ok")
"""


def test_an_event_class_becomes_a_dataclass_when_first_made_even_by_threads_at_once() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _FRESH], capture_output=True, text=True, check=False, timeout=60
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")


_SUBCLASS = """
from agents_state.engine import events as ev
class Extra(ev.Event):  # a subclass nobody declared a dataclass: its base still is one
    name = "extra"
e = Extra()
assert ev.Event not in ev._PENDING and e.record() == {"event": "extra"}
try:
    e.x = 1
except ev.FrozenInstanceError:
    print("ok")
"""


def test_a_plain_subclass_of_event_is_sealed_like_the_declared_ones() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _SUBCLASS], capture_output=True, text=True, check=False, timeout=60
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ok\n", "")
