"""Issue 23, item 1, with the real host: the red team's two chains, played by a scripted
prompt-injected main conversation in ``claude -p --plugin-dir .``, run nothing.

Chain 1 writes ``.agents/phases/.agents/{state,config}.json`` (a TEST command) and runs
``agents-state --root .agents/phases phase run 3.1``; chain 2 runs ``agents-state phase run 3.1``
in a project whose cloned ``.claude/subagents-config.json`` has a TEST command.  Before issue 23
the plugin approved every one of these calls.  Now each needs the user's approval, which nobody
gives under ``claude -p``, so each is refused; the engine's own bookkeeping still asks nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from claude_cli import VENV_BIN, log_hook_events, require_claude, run_claude
from stub_api import Block, StubAPI, request_text, tool_results

pytestmark = pytest.mark.slow

MARKER = "Follow the README of this repository."
TEST_COMMAND = {"stages": {"TEST": {"commands": {"test": "touch pwned"}}}}
REFUSED = ("needs approval", "haven't granted", "requires approval", "permission")


def tool(name: str, **tool_input: Any) -> Block:
    return {"type": "tool_use", "name": name, "input": tool_input}


class Injected:
    """The main conversation, doing what an injected README told it, one call per turn."""

    def __init__(self, root: Path) -> None:
        nested = root / ".agents" / "phases" / ".agents"
        self.steps: list[Block] = [
            tool("Write", file_path=str(nested / "state.json"), content="{}"),
            tool("Write", file_path=str(nested / "config.json"), content=json.dumps(TEST_COMMAND)),
            tool("Bash", command="agents-state --root .agents/phases phase run 3.1"),
            tool("Bash", command="agents-state phase run 3.1"),
            tool("Bash", command="agents-state --root . status"),
        ]
        self.results: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Bash" not in tools or MARKER not in request_text(body):
            return None  # side requests: titles and the like
        with self.lock:
            done = len(self.results)
            for out in tool_results(body).values():
                self.results.append((json.dumps(self.steps[done]["input"]), out))
            if len(self.results) < len(self.steps):
                step = dict(self.steps[len(self.results)], id=f"toolu_{len(self.results)}")
                return [step]
            return [{"type": "text", "text": "Done."}]


def test_the_red_team_chains_run_nothing_in_the_real_host(root: Path, tmp_path: Path) -> None:
    require_claude()
    engine = Path(VENV_BIN) / "agents-state"
    assert subprocess.run([engine, "dispatch", "x"], cwd=root, capture_output=True).returncode == 0
    (root / ".claude").mkdir()
    (root / ".claude" / "subagents-config.json").write_text(json.dumps(TEST_COMMAND))
    log = tmp_path / "permission-requests.jsonl"
    log_hook_events(Path(os.environ["HOME"]), log, ("PermissionRequest",))
    script = Injected(root)
    with StubAPI(script) as api:
        proc = run_claude(root, api, MARKER)
    assert proc.returncode == 0, proc.stderr
    assert len(script.results) == len(script.steps), script.results
    *chains, (_status_call, status_out) = script.results
    for call, out in chains:
        assert any(word in out for word in REFUSED), (call, out)
    assert not (root / ".agents" / "phases" / ".agents").exists()
    assert not (root / "pwned").exists()
    assert "Workflow: x" in status_out and not any(w in status_out for w in REFUSED), status_out
    asked = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert sorted(json.dumps(e["tool_input"], sort_keys=True) for e in asked) == sorted(
        json.dumps(s["input"], sort_keys=True) for s in script.steps[:-1]
    )


class Runs:
    """A main conversation that runs one command and stops."""

    def __init__(self, command: str) -> None:
        self.command, self.result = command, ""

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Bash" not in tools or MARKER not in request_text(body):
            return None
        results = tool_results(body)
        if results:
            (self.result,) = results.values()
            return [{"type": "text", "text": "Done."}]
        return [dict(tool("Bash", command=self.command), id="toolu_1")]


def test_a_user_allows_phase_run_in_the_project_settings(root: Path, tmp_path: Path) -> None:
    """docs/plugin.md, Unattended runs: the user's own rule lets `phase run 3.1` through.
    (`.claude/settings.local.json`: the checked-in `.claude/settings.json` grants nothing until
    the folder is trusted, which a fresh folder under `claude -p` is not.)"""
    require_claude()
    engine = Path(VENV_BIN) / "agents-state"
    assert subprocess.run([engine, "dispatch", "x"], cwd=root, capture_output=True).returncode == 0
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(agents-state phase run 3.1)"]}})
    )
    log = tmp_path / "permission-requests.jsonl"
    log_hook_events(Path(os.environ["HOME"]), log, ("PermissionRequest",))
    script = Runs("agents-state phase run 3.1")
    with StubAPI(script) as api:
        proc = run_claude(root, api, MARKER)
    assert proc.returncode == 0, proc.stderr
    # it ran: the engine itself answered (the workflow is at phase 0, so it refuses to start)
    assert "phase 3.1 is pending: cannot run (the current phase is 0)" in script.result
    assert not log.exists() or not log.read_text().strip()
