"""Issue 8: records validate like pydantic's lax mode (same results, same error types, locations
and messages), so moving the state and configuration off pydantic changed no error text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal

import pydantic
import pytest

from agents_state.config import Config
from agents_state.models import State, TaskState
from agents_state.records import codegen
from agents_state.records.base import After, Before, Record, RecordError, field


def _all_records(cls: type = Record) -> list[type]:
    subs: list[type] = cls.__subclasses__()
    return [c for sub in subs for c in (sub, *_all_records(sub))]


@pytest.fixture(autouse=True, params=["loops", "generated"])
def functions(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every test twice: with the loops a class's first calls use, and with the generated
    straight-line functions (issue 18): both must give the same results and errors."""
    monkeypatch.setattr(codegen, "HOT", 10**9 if request.param == "loops" else 0)
    for cls in _all_records():
        monkeypatch.setattr(cls, "_spec", None)
    yield request.param
    for cls in _all_records():
        cls._spec = None  # type: ignore[attr-defined]


def _upper(v: Any) -> Any:
    return v.upper() if isinstance(v, str) else v


def _even(v: int) -> int:
    if v % 2:
        raise ValueError(f"{v} is odd")
    return v


class Inner(Record):
    extra = "forbid"
    n: int


class Sample(Record):
    extra = "allow"
    s: str = ""
    i: int = 0
    b: bool = False
    lit: Literal["a", "b", "c"] = "a"
    one: Literal["x"] = "x"
    opt: int | None = None
    strs: list[str] = field(default_factory=list)
    nums: dict[str, int] = field(default_factory=dict)
    anyd: dict[str, Any] = field(default_factory=dict)
    inner: Inner | None = None
    inners: list[Inner] = field(default_factory=list)
    bounded: int = field(default=5, ge=1, le=10)
    up: Annotated[Literal["A", "B"], Before(_upper)] = "A"
    even: Annotated[int, After(_even)] = 0
    req: str


PInner = pydantic.create_model(  # named as the record, for the same messages
    "Inner", __config__=pydantic.ConfigDict(extra="forbid"), n=(int, ...)
)


class PSample(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    s: str = ""
    i: int = 0
    b: bool = False
    lit: Literal["a", "b", "c"] = "a"
    one: Literal["x"] = "x"
    opt: int | None = None
    strs: list[str] = pydantic.Field(default_factory=list)
    nums: dict[str, int] = pydantic.Field(default_factory=dict)
    anyd: dict[str, Any] = pydantic.Field(default_factory=dict)
    inner: PInner | None = None
    inners: list[PInner] = pydantic.Field(default_factory=list)
    bounded: int = pydantic.Field(default=5, ge=1, le=10)
    up: Annotated[Literal["A", "B"], pydantic.BeforeValidator(_upper)] = "A"
    even: Annotated[int, pydantic.AfterValidator(_even)] = 0
    req: str


INPUTS: dict[str, list[Any]] = {
    "s": ["x", 5, None, True, b"raw", 1.5, [], {}],
    "i": [
        3,
        True,
        False,
        " 5 ",
        "5.0",
        "5.00",
        5.0,
        5.5,
        "5.5",
        "1e3",
        "0x10",
        "+3",
        "-0",
        "1_000",
        "",
        "many",
        None,
        [],
        10**30,
        float("nan"),
        float("inf"),
        "5.",
        1e29,
        -1e20,
        2.0**63,
        9.2e18,
    ],
    "b": [
        True,
        False,
        "yes",
        "YES",
        "No",
        " yes",
        "on",
        "off",
        "t",
        "F",
        "1",
        "0",
        "",
        2,
        1,
        0,
        1.0,
        0.0,
        1.5,
        None,
        [],
        "maybe",
    ],
    "lit": ["a", "c", "A", "d", 1, None],
    "one": ["x", "y"],
    "opt": [None, 1, "2", "x"],
    "strs": [[], ["a", "b"], ["a", 1], "a", None, ("a",), {"a": 1}, [None, "x", 3]],
    "nums": [{}, {"a": 1}, {"a": "2"}, {"a": "x", "b": None}, [], "x", None],
    "anyd": [{"a": None, "b": [1]}, [], None],
    "inner": [None, {"n": 1}, {"n": "x"}, {}, {"n": 1, "m": 2}, 3, "x", []],
    "inners": [[], [{"n": 1}, {"n": "q"}, 5], None, [{}]],
    "bounded": [1, 10, 0, 11, -3, "7", "99", 10**12],
    "up": ["a", "b", "c", 1],
    "even": [2, 3, "4", "5", "x"],
    "req": ["r", None, 1],
}


def _outcome(model: Any, data: dict[str, Any]) -> Any:
    try:
        out = model.model_validate(data)
    except (pydantic.ValidationError, RecordError) as e:
        return [(x["type"], tuple(x["loc"]), x["msg"], repr(x.get("input"))) for x in e.errors()]
    return out.model_dump(mode="json")


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_each_field_agrees_with_pydantic(name: str) -> None:
    for value in INPUTS[name]:
        data = {"req": "r", name: value}
        assert _outcome(Sample, data) == _outcome(PSample, data), (name, value)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"req": "r", "extra1": None, "extra2": {"z": None}},
        {"i": "x", "b": "x", "lit": "z", "inners": [{"n": "q", "o": 1}], "extra": 1},
        {"req": "r", "opt": None, "inner": None, "more": [1, {"a": None}]},
    ],
)
def test_whole_records_agree_with_pydantic(data: dict[str, Any]) -> None:
    assert _outcome(Sample, data) == _outcome(PSample, data)
    if not isinstance(_outcome(Sample, data), list):
        assert Sample.model_validate(data).model_dump(exclude_none=True) == PSample.model_validate(
            data
        ).model_dump(mode="json", exclude_none=True)


def test_error_names_the_record_and_field() -> None:
    with pytest.raises(RecordError) as info:
        Sample.model_validate({"i": "x"})
    assert str(info.value) == (
        "2 validation error(s) for Sample: i: Input should be a valid "
        "integer, unable to parse string as an integer"
    )
    with pytest.raises(RecordError):
        Sample(req=5)  # type: ignore[arg-type]


def test_copies_share_nothing_that_changes() -> None:
    s = Sample.model_validate({"req": "r", "strs": ["a"], "x": {"k": 1}, "inner": {"n": 1}})
    shallow = s.model_copy()
    assert shallow == s and shallow is not s
    shallow.i = 9
    assert s.i == 0
    assert shallow.model_extra is not s.model_extra
    deep = s.model_copy(deep=True)
    assert deep == s
    assert deep.inner is not s.inner and deep.strs is not s.strs
    dumped = s.model_dump()
    dumped["strs"].append("b")
    dumped["x"]["k"] = 2
    assert s.strs == ["a"] and s.model_extra == {"x": {"k": 1}}
    assert s != Sample.model_validate({"req": "r"}) and s != "not a record"


def test_keyword_construction_validates() -> None:
    assert TaskState(status="Done").status == "completed"  # type: ignore[arg-type]
    assert Config().stages.FINAL.review.tool == "codex-xhigh"
    with pytest.raises(RecordError):
        State()  # type: ignore[call-arg]


def test_the_state_round_trips_unknown_fields_in_order() -> None:
    raw = {"task": "t", "zeta": 1, "alpha": {"n": None}}
    dumped = State.model_validate(raw).model_dump(exclude_none=True)
    assert list(dumped)[-2:] == ["zeta", "alpha"] and dumped["alpha"] == {"n": None}
