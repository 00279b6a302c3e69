"""Issue 35 (item 3): a chain's state is a record of the state's own system (``records``), not a
pydantic model; pydantic stays at the boundary that validates what models write (a response, a
request).  Reading a chain loads no pydantic; a chain file reads and writes back unchanged; a
corrupt one gets the one-line error pydantic gave, naming the file and the field."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clitools import run_cli

_COVERAGE = ("COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG")


def _start(root: Path) -> Path:
    proc = run_cli(root, "chain", "start", "code", "Add a health route")
    assert proc.returncode == 0, proc.stderr
    return root / ".agents/chains/code-1.json"


def _modules(root: Path, *args: str) -> tuple[set[str], str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agents_state", *args],
        capture_output=True,
        text=True,
        cwd=root,
        env={k: v for k, v in os.environ.items() if k not in _COVERAGE},
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    return {ln.split("|")[-1].strip() for ln in lines if ln.startswith("import time:")}, proc.stdout


@pytest.mark.parametrize(
    ("args", "shows"),
    [(("chain", "next"), "NEXT: dispatch"), (("chain", "list"), "code-1")],
    ids=["next", "list"],
)
def test_reading_a_chain_loads_no_pydantic(root: Path, args: tuple[str, ...], shows: str) -> None:
    _start(root)
    modules, stdout = _modules(root, *args)
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
