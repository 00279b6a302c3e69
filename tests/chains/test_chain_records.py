"""Issue 35 (item 3): a chain's state is a record of the state's own system (``records``), not a
pydantic model; pydantic stays at the boundary that validates what models write (a response, a
request).  Reading a chain loads no pydantic; a chain file reads and writes back unchanged; a
corrupt one gets the one-line error pydantic gave, naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from clitools import run_cli
from test_imports import _imported  # the -X importtime run the start-up tests use


def _start(root: Path) -> Path:
    proc = run_cli(root, "chain", "start", "code", "Add a health route")
    assert proc.returncode == 0, proc.stderr
    return root / ".agents/chains/code-1.json"


@pytest.mark.parametrize(
    ("args", "shows"),
    [(("chain", "next"), "NEXT: dispatch"), (("chain", "list"), "code-1")],
    ids=["next", "list"],
)
def test_reading_a_chain_loads_no_pydantic(root: Path, args: tuple[str, ...], shows: str) -> None:
    _start(root)
    modules, stdout = _imported(root, *args)
    assert shows in stdout
    assert "agents_state.chains.state" in modules
    assert sorted(m for m in modules if m.split(".")[0] in ("pydantic", "pydantic_core")) == []
    assert "agents_state.handoff.models" not in modules


def test_a_chain_file_reads_and_writes_back_unchanged(root: Path) -> None:
    from agents_state.chains.ops import _decode, _encode

    path = _start(root)
    data = path.read_bytes()
    doc = json.loads(data)
    doc["addedByHand"] = {"kept": [1, 2]}  # unknown fields are kept, as before
    again = json.dumps(doc, indent=2).encode() + b"\n"
    assert _encode(_decode(again, "x")) == again


def test_a_corrupt_chain_file_names_the_file_and_the_field(root: Path) -> None:
    path = _start(root)
    doc = json.loads(path.read_bytes())
    doc["steps"][1]["runs"] = "many"
    path.write_text(json.dumps(doc))
    proc = run_cli(root, "chain", "next", "code-1")
    assert proc.returncode == 5
    assert proc.stderr == (
        "agents-state: error: .agents/chains/code-1.json: steps.1.runs: Input should be a "
        "valid integer, unable to parse string as an integer\n"  # as pydantic worded it
    )


# -- the records agree with the pydantic models they replaced -------------------------------------
import pydantic  # noqa: E402

from agents_state.chains.state import ChainState, ChainStatus  # noqa: E402
from agents_state.records.base import RecordError  # noqa: E402


class _P(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")


class StepRun(_P):  # named as the record, for the same messages
    id: str
    agent: str
    role: str
    mode: str | None = None
    instances: list[str] = pydantic.Field(default_factory=list)
    submode: str = "full"
    model: str
    status: Literal["pending", "running", "completed"] = "pending"
    runs: int = 0
    timeouts: int = 0
    decision: str | None = None
    summary: str | None = None
    files: list[str] = pydantic.Field(default_factory=list)


class PChainState(_P):  # the model ChainState was before issue 35
    version: int = 1
    id: str
    name: str
    pattern: str
    feature: str
    only: str | None = None
    submode: str | None = None
    status: ChainStatus = "running"
    revision: int = 1
    sizing: dict[str, Any] = pydantic.Field(default_factory=dict)
    steps: list[StepRun]
    current: int = 0
    writerRetries: int = 0
    retry: dict[str, Any] | None = None
    simplified: bool = False
    clarify: dict[str, Any] | None = None
    answers: list[dict[str, Any]] = pydantic.Field(default_factory=list)
    blockedReason: str | None = None
    escalated: bool = False
    files: list[str] = pydantic.Field(default_factory=list)
    constraints: list[str] = pydantic.Field(default_factory=list)
    specPath: str | None = None
    models: dict[str, str] = pydantic.Field(default_factory=dict)
    priorSummary: str | None = None
    workflow: dict[str, Any] | None = None
    history: list[dict[str, Any]] = pydantic.Field(default_factory=list)
    createdAt: str | None = None
    updatedAt: str | None = None


PChainState.__name__ = "ChainState"


def _outcome(model: Any, data: dict[str, Any]) -> Any:
    try:
        out = model.model_validate(data)
    except (pydantic.ValidationError, RecordError) as e:
        return [(x["type"], tuple(x["loc"]), x["msg"]) for x in e.errors()]
    return out.model_dump(mode="json", exclude_none=True)


def _variants(doc: dict[str, Any]) -> list[dict[str, Any]]:
    step = doc["steps"][0]
    return [
        doc,
        {**doc, "status": "done", "revision": "7", "simplified": "yes", "extra": {"k": None}},
        {**doc, "steps": [{**step, "runs": "2", "instances": None, "status": "Running"}]},
        {**doc, "steps": None, "models": {"a": 1}, "history": [1]},
        {k: v for k, v in doc.items() if k not in ("id", "steps")},
        {**doc, "current": 1.5, "retry": "again", "answers": {}, "files": "a.py"},
    ]


def test_the_chain_records_agree_with_the_pydantic_models_they_replaced(root: Path) -> None:
    doc = json.loads(_start(root).read_bytes())
    for data in _variants(doc):
        assert _outcome(ChainState, data) == _outcome(PChainState, data), data
