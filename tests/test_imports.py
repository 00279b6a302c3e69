"""Issue 8: hot-path commands never import watchdog, pydantic (the state and configuration are
records), or the graph, watch, schema and handoff-model code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from clitools import run_cli

HEAVY = ("watchdog", "agents_state.watch", "agents_state.graph", "agents_state.schema_export",
         "pydantic", "pydantic_core", "agents_state.handoff_models", "jsonschema")


def _imported(root: Path, *args: str, stdin: str = "") -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "agents_state", *args],
                          capture_output=True, text=True, input=stdin, cwd=root, check=False,
                          timeout=60)
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:")}


@pytest.mark.parametrize("args", [
    ("status",), ("next",), ("status", "--json"), ("task", "done", "a"),
    ("phase", "complete", "1.1", "--artifact", "-"), ("hook", "pre-tool-use"),
    ("hook", "post-tool-use"), ("context",),
])
def test_hot_path_imports_stay_light(root: Path, args: tuple[str, ...]) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    modules = _imported(root, *args, stdin='{"tool_name": "Read", "agent_type": "x"}')
    assert "agents_state" in modules or args[0] == "hook"
    assert not {m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY}


def test_hook_path_skips_click_and_pydantic(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    payload = '{"tool_name": "Read", "tool_input": {}, "agent_type": "subagents:x"}'
    modules = _imported(root, "hook", "pre-tool-use", stdin=payload)
    assert "click" not in modules and "pydantic" not in modules
