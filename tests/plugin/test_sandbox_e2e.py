"""Issue 23, acceptance: a validator's shell runs contained under the real host.

One ``claude -p --plugin-dir .`` run against the scripted Messages API stub, in a project with an
active workflow, a ``.env`` holding a secret and a test suite: the main conversation asks for
the workflow's status (an engine step) and launches ``subagents:quality-validator``, which runs
the project's tests (they pass inside the sandbox), runs a test that prints ``.env`` (it sees an
empty file), and tries ``cat .env`` (the first check denies it).  The stub sees every tool
result: the secret is in none of them.

The PreToolUse hook rewrites the validator's Bash calls with no permission decision, so the
host's normal permission flow applies to the rewritten command.  Under ``claude -p`` nobody is
there to approve, so the project's settings allow the commands as a user would for an unattended
run (``permissions.allow``); a user-settings hook logs every PermissionRequest, and the main
conversation's engine steps raise none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_cli import VENV_BIN, hook_events, log_hook_events, require_claude, run_claude
from pluginfiles import PLUGIN_ROOT
from stub_api import Block, StubAPI, request_text, tool_results

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap"),
]

SECRET = "sekrit-e2e-31"
VALIDATOR_HEADER = "# Quality validator"
ALLOW_CONTAINED = "Bash(/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp:*)"
STEPS = [
    "pytest -q -p no:cacheprovider tests/test_app.py",
    "pytest -q -s -p no:cacheprovider tests/test_reads_env.py",
    "cat .env",
    "git status --short",
]


def bash(command: str) -> Block:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command, "description": "x"}}


class Script:
    def __init__(self) -> None:
        self.validator_results: list[str] = []
        self.main_results: list[str] = []

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        system = request_text({"system": body.get("system")})
        results = tool_results(body)
        if VALIDATOR_HEADER in system:
            self.validator_results.extend(results.values())
            done = len(self.validator_results)
            if done < len(STEPS):
                return [bash(STEPS[done])]
            handoff = {
                "task_id": "validate-1",
                "phase": "validate",
                "status": "complete",
                "decision": "PROCEED",
                "context_summary": "Tests pass.",
                "issues": [],
            }
            return [{"type": "text", "text": "PASS\n\n```json\n" + json.dumps(handoff) + "\n```"}]
        everything = request_text({"messages": body.get("messages", [])})
        if "Validate the change." not in everything:
            return None  # side requests: titles and the like
        self.main_results.extend(results.values())
        if len(self.main_results) == 0:
            return [bash("agents-state status")]
        if len(self.main_results) == 1:
            return [
                {
                    "type": "tool_use",
                    "name": "Agent",
                    "input": {
                        "subagent_type": "subagents:quality-validator",
                        "description": "validate",
                        "prompt": "Run the project's tests and report PASS or FAIL.",
                        "run_in_background": False,
                    },
                }
            ]
        return [{"type": "text", "text": "Validated."}]


def _project(root: Path, allow: bool = True) -> None:
    (root / ".env").write_text(f"TOKEN={SECRET}\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text(
        "import sys\nsys.path.insert(0, 'src')\nfrom app import add\n\n\n"
        "def test_add() -> None:\n    assert add(2, 3) == 5\n"
    )
    (root / "tests" / "test_reads_env.py").write_text(
        "def test_env() -> None:\n    print('ENV:[' + open('.env').read() + ']')\n"
    )
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    url = f"https://bot:{SECRET}@example.com/r.git"  # a token in the remote URL
    subprocess.run([*git, "remote", "add", "origin", url], check=True)
    env = {**os.environ, "PATH": f"{VENV_BIN}:/usr/bin:/bin"}
    subprocess.run(
        [str(PLUGIN_ROOT / "bin" / "agents-state"), "dispatch", "Validate the change"],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )
    if not allow:
        return
    (root / ".claude").mkdir(exist_ok=True)
    # what a user allows for an unattended run: the contained commands (the head of the
    # hook's rewrite, docs/plugin.md), nothing for the engine (the plugin approves it).  The
    # project's shared .claude/settings.json was not applied under `claude -p` (2.1.330);
    # .claude/settings.local.json and the user's settings are.
    (root / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"allow": [ALLOW_CONTAINED]}})
    )


def _run(root: Path, tmp_path: Path) -> tuple[Script, StubAPI, list[dict[str, Any]]]:
    """One `claude -p` run; the script, the stub, and the PermissionRequest events."""
    home = Path(os.environ["HOME"])
    log = tmp_path / "permission-requests.jsonl"
    log_hook_events(home, log, ("PermissionRequest",))
    script = Script()
    with StubAPI(script) as api:
        proc = run_claude(root, api, "Validate the change.")
    assert proc.returncode == 0, proc.stderr
    return script, api, hook_events(log)


def test_a_validator_runs_the_tests_contained_and_never_sees_the_secret(
    root: Path, tmp_path: Path
) -> None:
    require_claude()
    _project(root)
    script, api, requests = _run(root, tmp_path)
    tests, reads_env, cat, status = script.validator_results[: len(STEPS)]
    assert "1 passed" in tests, tests  # the project's tests ran, inside the sandbox, and passed
    assert "ENV:[]" in reads_env and "1 passed" in reads_env, reads_env  # .env reads empty
    assert "PreToolUse:Bash hook error" in cat and "credential files" in cat, cat
    assert "?? src/" in status, status  # git runs in the room (its config without the token)
    assert not any(SECRET in json.dumps(r) for r in api.requests)
    assert "Workflow: Validate the change" in script.main_results[0], script.main_results
    assert requests == [], [r.get("tool_input") for r in requests]


def test_the_rewrite_never_grants(root: Path, tmp_path: Path) -> None:
    """Without a rule, the contained command goes through Claude Code's permission flow: the
    host asks about the rewritten command (a PermissionRequest naming bubblewrap) and, with
    nobody to answer under `claude -p`, it does not run.  The engine step still needs none."""
    require_claude()
    _project(root, allow=False)
    script, api, requests = _run(root, tmp_path)
    tests = script.validator_results[0]
    assert "requires approval" in tests and "passed" not in tests, tests
    asked = [r["tool_input"]["command"] for r in requests if r.get("tool_name") == "Bash"]
    assert asked and all(c.startswith("/usr/bin/bwrap ") for c in asked), asked
    assert all(r.get("agent_type") == "subagents:quality-validator" for r in requests), requests
    assert "Workflow: Validate the change" in script.main_results[0], script.main_results
    assert not any(SECRET in json.dumps(r) for r in api.requests)
