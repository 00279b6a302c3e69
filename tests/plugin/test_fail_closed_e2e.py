"""Issue 32, item 7: a profile hook that cannot decide in time refuses the call, under the real
host.  ``hooks/hooks.json`` marks the PreToolUse profile hook ``onFailure: "block"`` (Claude Code
2.1.330 accepts the field: ``plugin validate --strict`` passes, and an unknown value fails it):
a hook that times out, cannot start or exits with a code other than 0 or 2 then counts as exit
2, a refusal.  Without it the host let the call go ahead.

One ``claude -p --plugin-dir .`` run against the scripted Messages API stub: the main
conversation launches ``subagents:explore-agent``, which reads a file.  The engine the launcher
finds on PATH hangs on a sub-agent's PreToolUse (it cannot decide) past the hook's 10 s timeout;
the agent's Read must come back refused, without the file's text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_cli import ENGINE_PATH, VENV_BIN, require_claude, run_claude
from stub_api import Block, StubAPI, request_text, tool_results

pytestmark = pytest.mark.slow

TEXT = "visible-only-when-allowed-41"
EXPLORE_HEADER = "# Explore agent"


class Script:
    def __init__(self) -> None:
        self.agent_results: list[str] = []

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        system = request_text({"system": body.get("system")})
        results = tool_results(body)
        if EXPLORE_HEADER in system:
            self.agent_results.extend(results.values())
            if not self.agent_results:
                return [{"type": "tool_use", "name": "Read", "input": {"file_path": "notes.txt"}}]
            return [{"type": "text", "text": "done"}]
        everything = request_text({"messages": body.get("messages", [])})
        if "Explore the notes." not in everything:
            return None  # side requests: titles and the like
        if not results:
            return [
                {
                    "type": "tool_use",
                    "name": "Agent",
                    "input": {
                        "subagent_type": "subagents:explore-agent",
                        "description": "explore",
                        "prompt": "Read notes.txt and report.",
                        "run_in_background": False,
                    },
                }
            ]
        return [{"type": "text", "text": "Explored."}]


def _hanging_engine(folder: Path) -> None:
    """An engine that never answers a sub-agent's PreToolUse (the launcher finds it first on
    PATH); every other call goes to the real one."""
    folder.mkdir()
    real = Path(VENV_BIN) / "agents-state"
    shim = folder / "agents-state"
    shim.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = hook ] && [ "$2" = pre-tool-use ]; then\n'
        "    payload=$(cat)\n"
        "    case $payload in *'\"agent_id\"'*) sleep 40; exit 0 ;; esac\n"
        f"    printf '%s\\n' \"$payload\" | exec '{real}' \"$@\"\n"
        "fi\n"
        f"exec '{real}' \"$@\"\n"
    )
    shim.chmod(0o755)


def test_issue_32_a_profile_hook_that_cannot_decide_in_time_refuses(
    root: Path, tmp_path: Path
) -> None:
    require_claude()
    (root / "notes.txt").write_text(TEXT + "\n")
    _hanging_engine(tmp_path / "engine")
    script = Script()
    with StubAPI(script) as api:
        proc = run_claude(
            root, api, "Explore the notes.", path=f"{tmp_path / 'engine'}:{ENGINE_PATH}"
        )
    assert proc.returncode == 0, proc.stderr
    assert script.agent_results, "the explore agent never got its Read's result"
    read = script.agent_results[0]
    assert TEXT not in read, read
    assert 'timed out; blocking because onFailure is "block"' in read, read
    assert not any(TEXT in json.dumps(r) for r in api.requests)
    assert os.path.exists(root / "notes.txt")
