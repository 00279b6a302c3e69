"""Issue 36: the REAL Codex CLI uses ``agents-state mcp``.  The server is added with the README's
command (``codex mcp add agents-state -- agents-state mcp``), ``codex exec`` runs against a
loopback stand-in of the model API whose replies call the tools (Codex 0.171 reaches MCP tools
from its ``exec`` JavaScript tool, as ``tools.mcp__agents_state__<tool>``), and the workflow the
tool started is on disk, its answer the command's ``--json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from codex_api import KEY_VAR, USAGE, CodexAPI, codex_home
from codex_cli import CODEX, require_codex

pytestmark = pytest.mark.slow

BIN = str(Path(sys.executable).parent)
WAIT = "await new Promise((r) => setTimeout(r, 500)); text('waited');"
DISPATCH = (
    'const r = await tools.mcp__agents_state__dispatch({task: "add login"});'
    " text(JSON.stringify(r.structuredContent));"
)


class ToolCalls(CodexAPI):
    """Replies ``JS:<code>`` become a call of Codex's ``exec`` tool with that code."""

    def events(self, body: dict[str, Any], text: str) -> bytes:
        if not text.startswith("JS:"):
            return super().events(body, text)
        n = len(self.requests)
        item = {
            "type": "custom_tool_call",
            "id": f"ctc_{n}",
            "call_id": f"call_{n}",
            "name": "exec",
            "input": text[3:],
            "status": "completed",
        }
        response: dict[str, Any] = {"id": f"resp_{n}", "object": "response", "output": []}
        out: list[tuple[str, dict[str, Any]]] = [
            ("response.created", {"response": {**response, "status": "in_progress"}}),
            ("response.output_item.added", {"output_index": 0, "item": item}),
            ("response.output_item.done", {"output_index": 0, "item": item}),
            (
                "response.completed",
                {"response": {**response, "status": "completed", "output": [item], "usage": USAGE}},
            ),
        ]
        return b"".join(
            f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()
            for kind, data in out
        )


def _script(body: dict[str, Any]) -> str:
    """Wait (one short call at a time) until Codex announces the server's tools, then call
    ``dispatch`` once, then end the turn."""
    seen = json.dumps(body.get("input") or [])
    if "mcp__agents_state__dispatch" in seen:
        return "done"
    if "mcp__agents_state" in seen:
        return "JS:" + DISPATCH
    return "JS:" + WAIT


def _tool_output(body: dict[str, Any]) -> str:
    for item in body.get("input") or []:
        if item.get("type") == "custom_tool_call_output" and "revision" in json.dumps(item):
            return "".join(block.get("text", "") for block in item["output"])
    raise AssertionError("no tool output")


def test_codex_adds_the_server_with_the_readmes_command_and_calls_a_tool(tmp_path: Path) -> None:
    require_codex()
    project = tmp_path / "project"
    project.mkdir()
    with ToolCalls(_script) as api:
        home = codex_home(tmp_path / "codex-home", api.url)
        env = {
            **os.environ,
            "CODEX_HOME": str(home),
            KEY_VAR: "test-key",
            "HOME": str(tmp_path),
            "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        }
        add = ["mcp", "add", "agents-state", "--", "agents-state", "mcp"]  # the README's
        proc = subprocess.run([CODEX, *add], env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert 'args = ["mcp"]' in (home / "config.toml").read_text()
        # codex exec asks no one: an MCP call needs the server's tools approved (the README)
        approve = "mcp_servers.agents-state.default_tools_approval_mode=approve"
        run = [CODEX, "exec", "--json", "--skip-git-repo-check", "-c", approve, "start it"]
        proc = subprocess.run(
            run,
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert len(api.requests) < 60, "the server's tools never appeared"
        got = json.loads(_tool_output(api.requests[-1]).split("Output:\n", 1)[-1])
    assert got["message"] == "workflow started: add login"
    assert got["next"]["phase"] == "0"
    state = json.loads((project / ".agents/state.json").read_text())
    assert state["task"] == "add login" and state["revision"] == got["revision"] == 1
