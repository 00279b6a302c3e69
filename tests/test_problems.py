"""Issue 18: one error flattener.  A record's ``RecordError`` and a pydantic ``ValidationError``
go through ``records.problems.field_problems``; each reader words its message from the
problems, with the texts it had before (the corpus holds the state's and the configuration's)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from clitools import run_cli

from agents_state.records.base import Record, RecordError, field
from agents_state.records.problems import field_problems, summary


class _Leaf(Record):
    extra = "forbid"
    n: int = field(default=0, ge=0)


class _Tree(Record):
    extra = "forbid"
    leaves: dict[str, _Leaf] = field(default_factory=dict)
    name: str = ""


class _PLeaf(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    n: int = pydantic.Field(default=0, ge=0)


class _PTree(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    leaves: dict[str, _PLeaf] = pydantic.Field(default_factory=dict)
    name: str = ""


BAD = {"leaves": {"a": {"n": -1}, "b": {"n": "x", "m": 1}}, "name": ["no"], "zz": 1}


def _failure(model: Any) -> Any:
    with pytest.raises((RecordError, pydantic.ValidationError)) as info:
        model.model_validate(BAD)
    return info.value


def test_both_kinds_flatten_to_the_same_problems() -> None:
    record, model = field_problems(_failure(_Tree)), field_problems(_failure(_PTree))
    shape = [(p.loc, p.path, p.kind, p.msg, p.input) for p in record]
    assert shape == [(p.loc, p.path, p.kind, p.msg, p.input) for p in model]
    assert [p.path for p in record] == ["leaves.a.n", "leaves.b.n", "leaves.b.m", "name", "zz"]
    assert model[0].ctx == {"ge": 0} and record[0].ctx == {}  # records carry no context


def test_summary_names_the_first_field_and_counts_the_rest() -> None:
    expected = (
        "leaves.a.n",
        "leaves.a.n: Input should be greater than or equal to 0 (got -1); "
        "leaves.b.n: Input should be a valid integer, unable to parse string as an integer "
        "(got 'x'); leaves.b.m: Extra inputs are not permitted (got 1); and 2 more",
    )
    assert summary(_failure(_Tree)) == summary(_failure(_PTree)) == expected
    with pytest.raises(RecordError) as info:
        _Tree.model_validate([])
    assert summary(info.value) == ("", "Input should be a valid dictionary or instance of _Tree")


def test_a_chain_file_error_names_the_file_and_field(tmp_path: Path) -> None:
    """The chain store's reader (pydantic) goes through the same flattener."""
    assert run_cli(tmp_path, "chain", "start", "code", "login").returncode == 0
    path = tmp_path / ".agents" / "chains" / "code-1.json"
    chain = json.loads(path.read_text())
    chain["steps"][0]["runs"] = "x"
    path.write_text(json.dumps(chain))
    proc = run_cli(tmp_path, "chain", "list")
    assert (proc.returncode, proc.stderr) == (
        5,
        "agents-state: error: .agents/chains/code-1.json: steps.0.runs: Input should be a "
        "valid integer, unable to parse string as an integer\n",
    )


PACKAGE = Path(__file__).parent.parent / "agents_state"


def _calls(attr: str, *, positional: bool) -> list[str]:
    """The module of each call of ``<x>.attr(...)`` in the package (with no positional
    argument unless ``positional``: ``errors()`` of a validation, not the pg store's
    ``errors("read")`` context)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == attr
                and (positional or not node.args)
            ):
                found.append(path.relative_to(PACKAGE).as_posix())
    return found


def test_one_flattener_and_one_schema_generator() -> None:
    """Only ``records/problems.py`` reads validation errors, only ``records/schema.py`` asks
    pydantic for a schema; everything else goes through them."""
    assert _calls("errors", positional=False) == ["records/problems.py"]
    assert _calls("model_json_schema", positional=True) == ["records/schema.py"]


def test_the_schema_generator_keeps_pydantic_schemas_as_they_are() -> None:
    from agents_state.handoff.models import HandoffRequest, HandoffResponse
    from agents_state.records.schema import json_schema

    for model in (HandoffRequest, HandoffResponse):
        ours = json.dumps(json_schema(model))
        assert ours == json.dumps(model.model_json_schema(mode="validation"))
    assert json_schema(_Tree)["$defs"]["_Leaf"]["properties"]["n"] == {
        "default": 0,
        "minimum": 0,
        "title": "N",
        "type": "integer",
    }
