"""Issue 25 through the entry point: ``next`` prints a fan-out's Workflow call (text and
``--json``) only on the native path, ``status`` says which path and why, and the switches
(configuration, environment, settings) turn it off."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_subagent_hook import CMD, cli

HOST = {"AI_AGENT": "claude-code_2-1-330_agent"}


def run(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CMD, "--root", str(root), *args],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def as_json(root: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    r = run(root, *args, "--json", env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_next_prints_the_call_on_the_native_path_only(root: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    today = as_json(root, "next")
    assert "workflow" not in today
    native = as_json(root, "next", env=HOST)
    call = native["workflow"]
    assert set(call) == {"name", "args"} and call["name"] == "subagents:fanout"
    assert set(call["args"]) == {"v", "workflow", "phase", "fanout", "agents", "schema"}
    assert call["args"]["schema"] == "handoff"  # issue 34: named once, not per agent
    assert len(call["args"]["agents"]) == today["agents"]["count"]
    for agent in call["args"]["agents"]:
        assert set(agent) == {"key", "label", "agentType", "model", "prompt"}
    assert {k: v for k, v in native.items() if k not in ("workflow", "instructions")} == {
        k: v for k, v in today.items() if k != "instructions"
    } | {"command": today["command"] + " --from-answers"}  # issue 34: drafted if none written
    text = run(root, "next", env=HOST)
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    calls = [ln for ln in lines if ln.startswith("  call:  ")]
    assert len(calls) == 1
    line = calls[0].removeprefix("  call:  ")
    head = 'Workflow({name: "subagents:fanout", args: '
    assert line.startswith(head) and line.endswith("})")
    assert json.loads(line[len(head) : -2]) == call["args"]  # the exact args, on one line
    assert lines[lines.index(calls[0]) + 1] == (
        "  then:  agents-state phase complete 0 --artifact .agents/phases/0-explore.md "
        "--from-answers"
    )
    assert "call:" not in run(root, "next").stdout
    # the context (and the SessionStart hook) points to the call instead of quoting it
    context = run(root, "context", env=HOST).stdout.splitlines()
    assert context[-1] == (
        "  call:  this fan-out is ONE Workflow call: run agents-state next, which prints it "
        "whole, and make it exactly as printed"
    )
    assert not any("Workflow({" in ln for ln in context)
    assert "call:" not in run(root, "context").stdout


def test_status_says_which_path_and_why(root: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    off = run(root, "status").stdout.splitlines()
    assert (
        "  fan-outs: one Agent call per agent · not run by Claude Code's Bash tool (no "
        "AI_AGENT host version)" in off
    )
    on = run(root, "status", env=HOST).stdout.splitlines()
    assert (
        "  fan-outs: one Workflow call (subagents:fanout) · Claude Code 2.1.330 offers the "
        "Workflow tool" in on
    )
    assert any(ln.startswith("  call:  Workflow(") for ln in on)
    got = as_json(root, "status", env=HOST)
    assert got["workflow"]["fanouts"] == {
        "path": "workflow",
        "reason": "Claude Code 2.1.330 offers the Workflow tool",
    }
    assert got["next"]["workflow"]["name"] == "subagents:fanout"


@pytest.mark.parametrize(
    "setup,reason",
    [
        (
            lambda r: _write(r / ".agents" / "config.json", {"fanout": {"native": "off"}}),
            "fanout.native is off",
        ),
        (
            lambda r: _write(r / ".claude" / "settings.local.json", {"enableWorkflows": False}),
            "enableWorkflows is false in the local settings",
        ),
    ],
)
def test_a_switch_turns_the_native_path_off(root: Path, setup: Any, reason: str) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    setup(root)
    got = as_json(root, "status", env=HOST)
    assert got["workflow"]["fanouts"]["path"] == "agents"
    assert got["workflow"]["fanouts"]["reason"].startswith(reason)
    assert "workflow" not in as_json(root, "next", env=HOST)
    env = {**HOST, "CLAUDE_CODE_DISABLE_WORKFLOWS": "1"}
    assert "workflow" not in as_json(root, "next", env=env)


def test_fanout_native_on_forces_it_and_a_bad_value_is_one_line(root: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    _write(root / ".agents" / "config.json", {"fanout": {"native": "on"}})
    assert as_json(root, "next")["workflow"]["name"] == "subagents:fanout"
    _write(root / ".agents" / "config.json", {"fanout": {"native": "sometimes"}})
    bad = run(root, "next")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "fanout.native" in bad.stderr and ".agents/config.json" in bad.stderr


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
