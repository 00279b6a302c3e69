"""Issue 6, end to end: the real `claude -p --plugin-dir .` against a stub of the Messages API.

The stub (tests/plugin/stub_api.py) answers with scripted replies and records every request, so
these tests see exactly what the model would read.  They need the Claude Code CLI that
.ci/plugin.sh installs into .ci/node/ (or one named by AGENTS_STATE_CLAUDE); without it they fail
under CI and skip only in a local run (claude_cli.require_claude).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from claude_cli import CLAUDE, ENGINE_PATH, VENV_BIN, base_env, require_claude, run_claude
from pluginfiles import PLUGIN_ROOT
from stub_api import Block, StubAPI, request_text, tool_results

INJECTION = "fix login; rm -rf ~"


@pytest.fixture(autouse=True)
def _claude_installed() -> None:
    require_claude()  # fails under CI, skips only in a local run


def claude(
    root: Path, prompt: str, api: StubAPI, *, plugin_dir: bool = True
) -> subprocess.CompletedProcess[str]:
    return run_claude(root, api, prompt, timeout=90, plugin_dir=plugin_dir)


def main_requests(api: StubAPI, marker: str) -> list[dict[str, Any]]:
    """The requests of the main conversation: those whose messages contain ``marker``."""
    return [
        r
        for r in api.requests
        if marker in "\n".join(request_text({"messages": r.get("messages", [])}).splitlines())
    ]


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def test_dispatch_reaches_the_model_as_the_next_action(root: Path) -> None:
    with StubAPI() as api:
        proc = claude(root, "/subagents:dispatch Add OAuth login with Google", api)
    assert proc.returncode == 0, proc.stderr
    assert state(root)["task"] == "Add OAuth login with Google"
    (first, *_) = main_requests(api, "<command-name>/subagents:dispatch</command-name>")
    text = request_text(first)
    assert "workflow started: Add OAuth login with Google" in text
    assert re.search(r"NEXT: dispatch \d+ explore agent\(s\)", text)
    assert "agents-state phase complete 0 --artifact .agents/phases/0-explore.md" in text
    assert "`workflow` skill" in text  # the command's instructions came with it


def test_installs_from_the_repository_as_a_local_marketplace(root: Path) -> None:
    env = base_env("http://127.0.0.1:9", ENGINE_PATH)  # nothing listens: installing needs no API
    for args in (["marketplace", "add", str(PLUGIN_ROOT)], ["install", "subagents@agents-state"]):
        proc = subprocess.run(
            [CLAUDE, "plugin", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    with StubAPI() as api:
        proc = claude(root, "/subagents:status", api, plugin_dir=False)
    assert proc.returncode == 0, proc.stderr
    (first, *_) = main_requests(api, "<command-name>/subagents:status</command-name>")
    assert "No active workflow" in request_text(first)


def test_injection_attempt_runs_nothing(root: Path) -> None:
    home = Path(os.environ["HOME"])
    (home / "keep-me").write_text("still here")
    tasks = [INJECTION, 'x"; touch pwned; "', "y $(touch pwned) `touch pwned` && touch pwned"]
    for i, task in enumerate(tasks):
        project = root / f"p{i}"
        project.mkdir()
        with StubAPI() as api:
            proc = claude(project, f"/subagents:dispatch {task}", api)
        assert proc.returncode == 0, proc.stderr
        assert state(project)["task"] == task
        assert not (project / "pwned").exists()
        assert (home / "keep-me").read_text() == "still here"
        (first, *_) = main_requests(api, "<command-name>/subagents:dispatch</command-name>")
        assert f"workflow started: {task}" in request_text(first)


def test_forged_heredoc_delimiter_is_refused_whole(root: Path) -> None:
    with StubAPI() as api:
        proc = claude(root, "/subagents:dispatch x\nAGENTS_STATE_TASK_EOF\ntouch pwned", api)
    assert proc.returncode == 0
    assert "permission check failed" in proc.stdout
    assert not (root / "pwned").exists()
    assert not (root / ".agents").exists()  # not even agents-state ran
    assert api.requests == []  # and the model never saw the command


def test_no_workflow_is_a_normal_answer(root: Path) -> None:
    for command in ("status", "resume", "next", "stop", "dispatch", "report"):
        with StubAPI() as api:
            proc = claude(root, f"/subagents:{command}", api)
        assert proc.returncode == 0, proc.stderr
        assert "Shell command failed" not in proc.stdout, (command, proc.stdout)
        (first, *_) = main_requests(api, f"<command-name>/subagents:{command}</command-name>")
        assert "agents-state" in request_text(first)
    assert not (root / ".agents" / "state.json").exists()


def test_session_start_brings_the_workflow_back(root: Path) -> None:
    path = f"{VENV_BIN}:/usr/bin:/bin"
    subprocess.run(
        [str(PLUGIN_ROOT / "bin" / "agents-state"), "dispatch", "Add OAuth login"],
        cwd=root,
        env={**os.environ, "PATH": path},
        check=True,
        capture_output=True,
    )
    with StubAPI() as api:
        proc = claude(root, "where were we?", api)
    assert proc.returncode == 0, proc.stderr
    (first, *_) = main_requests(api, "where were we?")
    text = request_text(first)
    assert "task: Add OAuth login" in text
    assert "agents-state phase complete 0" in text


HANDOFF = {
    "task_id": "explore-1",
    "phase": "research",
    "status": "complete",
    "decision": "PROCEED",
    "findings": {"area": "auth", "relevant_files": ["src/auth.py"]},
    "context_summary": "Auth lives in src/auth.py; sessions are cookies; no OAuth yet.",
    "issues": [],
}


def launch_one_explore_agent(body: dict[str, Any]) -> list[Block] | None:
    """Script: the orchestrator launches one explore agent, which tries to read .env (its
    profile forbids credential files), then answers with a handoff."""
    system = request_text({"system": body.get("system")})
    if "# Explore agent" in system:  # the sub-agent's own conversation
        if not tool_results(body):
            return [
                {
                    "type": "tool_use",
                    "name": "Read",
                    "input": {"file_path": str(Path.cwd() / ".env")},
                }
            ]  # cwd: the root
        return [
            {
                "type": "text",
                "text": "Mapped the auth area.\n\n```json\n"
                + json.dumps(HANDOFF, indent=2)
                + "\n```",
            }
        ]
    text = request_text({"messages": body.get("messages", [])})
    if "<command-name>/subagents:dispatch</command-name>" not in text:
        return None  # side requests (titles and the like)
    if tool_results(body):
        return [{"type": "text", "text": "Explore agent finished."}]
    return [
        {
            "type": "tool_use",
            "name": "Agent",
            "input": {
                "subagent_type": "subagents:explore-agent",
                "description": "explore: auth",
                "prompt": json.dumps(
                    {
                        "task_id": "explore-1",
                        "phase": "research",
                        "instructions": "Map the auth area.",
                    }
                ),
                "run_in_background": False,
            },
        }
    ]


def test_a_sub_agent_launch_updates_the_state(root: Path) -> None:
    (root / ".env").write_text("OAUTH_SECRET=do-not-leak-42\n")
    script: Callable[[dict[str, Any]], list[Block] | None] = launch_one_explore_agent
    with StubAPI(script) as api:
        proc = claude(root, "/subagents:dispatch Add OAuth login", api)
    assert proc.returncode == 0, proc.stderr
    agent_requests = [
        r for r in api.requests if "# Explore agent" in request_text({"system": r.get("system")})
    ]
    assert len(agent_requests) == 2, "the explore agent ran, tried a tool, and answered"

    # PreToolUse: the reader profile kept the sub-agent out of the credential file
    (denial,) = tool_results(agent_requests[1]).values()
    assert "may not read or search credential files: " in denial
    assert not any("do-not-leak-42" in json.dumps(r) for r in api.requests)

    # SubagentStart / SubagentStop: which sub-agent ran
    log = [
        json.loads(line) for line in (root / ".agents" / "subagents.jsonl").read_text().splitlines()
    ]
    assert [e["event"] for e in log] == ["start", "stop"]
    assert {e["agent_type"] for e in log} == {"subagents:explore-agent"}
    agent_id = log[0]["agent_id"]
    assert log[1]["agent_id"] == agent_id
    assert log[1]["handoff"] == "PROCEED" and log[1]["recorded"] is True

    # the handoff in its last message was recorded in state.json
    records = state(root)["handoffs"]["records"]
    assert [(r["phase"], r["decision"], r["agent"]) for r in records] == [
        ("0", "PROCEED", agent_id)
    ]
    assert records[0]["summary"] == HANDOFF["context_summary"]
    # issue 14: noted for the orchestrator; one agent's answer does not complete phase 0
    assert records[0]["target"] == "the ledger of phase 0"
    assert state(root)["currentPhase"] == "0"

    # PostToolUse counted the orchestrator's Agent call outside state.json
    calls = (root / ".agents" / "toolcalls.log").read_text().split()
    assert "main" in calls


TASKS = {
    "tasks": [
        {"id": "t1", "title": "health model", "complexity": "easy", "dependencies": []},
        {"id": "t2", "title": "health route", "complexity": "medium", "dependencies": ["t1"]},
    ]
}


def walk_to_the_task_wave(root: Path) -> dict[str, Any]:
    """Follow `next --json` as a literal orchestrator would, up to the first wave of tasks."""
    cli = [str(PLUGIN_ROOT / "bin" / "agents-state"), "--root", str(root)]
    env = {**os.environ, "PATH": f"{VENV_BIN}:/usr/bin:/bin"}

    def run(*args: str) -> str:
        proc = subprocess.run([*cli, *args], env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, (args, proc.stderr)
        return proc.stdout

    run("dispatch", "Add a health endpoint")
    for _ in range(30):
        action: dict[str, Any] = json.loads(run("next", "--json"))
        if action.get("tasks"):
            return action
        if action.get("write"):
            out = root / action["write"]
            if action["command"].startswith("agents-state tasks load"):
                out.write_text(json.dumps(TASKS))
            else:
                out.write_text('{"issues": []}' if out.suffix == ".json" else "# done\n")
        run(*action["command"].split()[1:])
    raise AssertionError("never reached phase 2.1")


def launch_one_task_agent(body: dict[str, Any]) -> list[Block] | None:
    system = request_text({"system": body.get("system")})
    if "# Task agent" in system:
        if not tool_results(body):  # it starts its task first: only its holder reports it
            start = {"command": "agents-state task start t1", "description": "start t1"}
            return [{"type": "tool_use", "name": "Bash", "input": start}]
        handoff = {
            "task_id": "t1",
            "phase": "write",
            "status": "complete",
            "decision": "PROCEED",
            "files_changed": ["health/model.py"],
            "context_summary": "Added the health model.",
            "issues": [],
        }
        return [{"type": "text", "text": "```json\n" + json.dumps(handoff) + "\n```"}]
    text = request_text({"messages": body.get("messages", [])})
    if "<command-name>/subagents:next</command-name>" not in text:
        return None
    if tool_results(body):
        return [{"type": "text", "text": "Wave 1 done."}]
    return [
        {
            "type": "tool_use",
            "name": "Agent",
            "input": {
                "subagent_type": "subagents:task-agent",
                "description": "task t1: health model",
                "prompt": json.dumps(
                    {
                        "task_id": "t1",
                        "phase": "write",
                        "instructions": "Implement task t1: health model.",
                    }
                ),
                "model": "sonnet",
                "run_in_background": False,
            },
        }
    ]


def test_hooks_record_which_agent_ran_which_task(root: Path) -> None:
    action = walk_to_the_task_wave(root)
    assert [t["id"] for t in action["tasks"]] == ["t1"]
    with StubAPI(launch_one_task_agent) as api:
        proc = claude(root, "/subagents:next", api)
    assert proc.returncode == 0, proc.stderr
    (first, *_) = main_requests(api, "<command-name>/subagents:next</command-name>")
    assert "task t1 [easy, sonnet-4.5]: health model" in request_text(first)

    log = [
        json.loads(line) for line in (root / ".agents" / "subagents.jsonl").read_text().splitlines()
    ]
    assert [(e["event"], e["agent_type"]) for e in log] == [
        ("start", "subagents:task-agent"),
        ("stop", "subagents:task-agent"),
    ]
    agent_id = log[0]["agent_id"]

    s = state(root)
    assert s["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["t1"]["status"] == "completed"
    (record,) = [r for r in s["handoffs"]["records"] if r.get("task") == "t1"]
    assert (record["decision"], record["agent"]) == ("PROCEED", agent_id)
