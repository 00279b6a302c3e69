"""Issue 9: ``schema`` — the committed copies in schemas/ equal the generated ones, and design
004's example files validate against them with an independent validator (jsonschema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from clitools import run_cli

from agents_state.views.schema_export import SCHEMA_NAMES, file_name, generate, render

REPO = Path(__file__).parent.parent.parent
SCHEMAS = REPO / "schemas"
DATA = REPO / "tests" / "data"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / file_name(name)).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(name: str, doc: Any) -> list[str]:
    return sorted(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in _validator(name).iter_errors(doc)
    )


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_committed_schema_equals_generated(name: str) -> None:
    committed = (SCHEMAS / file_name(name)).read_text(encoding="utf-8")
    assert committed == render(generate(name)), (
        f"schemas/{file_name(name)} is stale; regenerate: agents-state schema --write schemas"
    )


def test_schema_check_command(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, "schema", "--check", str(SCHEMAS))
    assert proc.returncode == 0, proc.stderr
    assert run_cli(tmp_path, "schema", "--write", str(tmp_path / "s")).returncode == 0
    (tmp_path / "s" / "config.schema.json").write_text("{}")
    proc = run_cli(tmp_path, "schema", "--check", str(tmp_path / "s"))
    assert proc.returncode == 5
    assert "config.schema.json" in proc.stderr and "state.schema.json" not in proc.stderr
    proc = run_cli(tmp_path, "schema", "config")
    assert json.loads(proc.stdout) == generate("config")


def test_design_004_examples_validate() -> None:
    assert _errors("state", json.loads((DATA / "design004_state.json").read_text())) == []
    with_failure = {
        **json.loads((DATA / "design004_state.json").read_text()),
        **json.loads((DATA / "design004_failure.json").read_text()),
    }
    assert _errors("state", with_failure) == []
    assert _errors("config", json.loads((DATA / "design004_config.json").read_text())) == []
    example = json.loads((REPO / ".agents.example" / "state.json").read_text())
    assert _errors("state", example) == []


def test_schemas_reject_what_the_models_reject() -> None:
    state = json.loads((DATA / "design004_state.json").read_text())
    state["stages"]["PLAN"]["status"] = "finished"
    assert _errors("state", state) == [
        "stages/PLAN/status: 'finished' is not one of ['pending', 'in_progress', 'completed', "
        "'failed', 'blocked', 'stopped', 'skipped']"
    ]
    assert _errors("state", {"version": 2}) == [": 'task' is a required property"]
    assert _errors("config", {"stages": {"EXPLORE": {"maxParallelAgent": 3}}}) == [
        "stages/EXPLORE: Additional properties are not allowed ('maxParallelAgent' was unexpected)"
    ]
    assert _errors("config", {"stages": {"EXPLORE": {"maxParallelAgents": 11}}}) == [
        "stages/EXPLORE/maxParallelAgents: 11 is greater than the maximum of 10"
    ]


def test_handoff_examples_of_designs_000_003_validate() -> None:
    from protocol.examples import VALID

    shapes = {"request": "handoff-request", "response": "handoff-response"}
    checked = 0
    for label, (shape, doc) in VALID.items():
        if shape in shapes:
            assert _errors(shapes[shape], doc) == [], label
            checked += 1
    assert checked >= 4
    _, response = VALID["001 response"]
    assert _errors("handoff-response", {**response, "decison": "PROCEED"}) == [
        ": Additional properties are not allowed ('decison' was unexpected)"
    ]
    assert _errors("handoff-response", {**response, "decision": "MAYBE"}) == [
        "decision: 'MAYBE' is not one of ['PROCEED', 'STOP', 'CLARIFY']"
    ]
