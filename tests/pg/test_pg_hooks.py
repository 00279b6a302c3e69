"""Issue 17: the PreToolUse profile check finds the workflow on the PostgreSQL store, and fails
closed for sub-agents when the server cannot be read (the main conversation stays allowed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clitools import run_cli

from .pgserver import PgServer, free_port

PLUGIN_ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = PLUGIN_ROOT / "bin" / "agents-state"


def _pre(root: Path, agent: str | None, tool: str, tool_input: dict[str, str]) -> str:
    data = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "t1",
    }
    if agent:
        data |= {"agent_id": "a1", "agent_type": agent}
    proc = run_cli(root, "hook", "pre-tool-use", stdin=json.dumps(data))
    assert proc.returncode == 0
    if not proc.stdout.strip():
        return "allow"
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    return f"{out['permissionDecision']}: {out['permissionDecisionReason']}"


def test_profiles_apply_to_a_workflow_on_the_server(
    root: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTS_STATE_STORE", pg_url)
    write = {"file_path": str(root / "a.ts"), "content": ""}
    # a project's own agent: judged only in a workflow (the plugin's own are judged everywhere)
    assert _pre(root, "reviewer", "Write", write) == "allow"  # no workflow yet
    assert _pre(root, "subagents:reviewer", "Write", write).startswith("deny: ")
    assert run_cli(root, "dispatch", "x").returncode == 0
    assert _pre(root, "reviewer", "Write", write).startswith("deny: ")
    assert _pre(root, None, "Write", write) == "allow"
    assert not (root / ".agents").exists()


def test_a_server_that_cannot_be_read_denies_sub_agents_only(
    root: Path, pg_server: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pg_server.url("w").replace(f":{pg_server.port}/", f":{free_port()}/")
    monkeypatch.setenv("AGENTS_STATE_STORE", url)
    read = {"file_path": str(root / "a.ts")}
    got = _pre(root, "subagents:explore", "Read", read)
    assert got.startswith("deny: agents-state: cannot read the workflow from the server (")
    assert "connect failed" in got and "s3cret" not in got
    assert _pre(root, None, "Read", read) == "allow"


def test_issue_23_the_launcher_runs_the_check_with_a_server_store(root: Path, pg_url: str) -> None:
    """No state.json on disk: before issue 23 the launcher's fast path exited before the check,
    and a reader's Read of .env was allowed."""
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": os.environ["HOME"],
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN_ROOT),
        "CLAUDE_PROJECT_DIR": str(root),
        "AGENTS_STATE_STORE": pg_url,
    }
    (root / ".env").write_text("KEY=do-not-leak\n")
    dispatch = subprocess.run(
        [str(LAUNCHER), "dispatch", "x"], cwd=root, env=env, capture_output=True, check=False
    )
    assert dispatch.returncode == 0 and not (root / ".agents").exists()
    payload = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": ".env"},
        "tool_use_id": "t1",
        "agent_id": "a1",
        "agent_type": "reviewer",
    }
    proc = subprocess.run(
        [str(LAUNCHER), "hook", "pre-tool-use"],
        cwd=root,
        env=env,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    reason = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith("agents-state: the reader profile may not read or search credential")


def test_a_task_agents_own_worktree_on_the_server(
    root: Path, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: the room check reads the state from the server too."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "gitwork"))
    from gitrepo import at_tasks, cli_json  # the gitwork tests' helpers

    monkeypatch.setenv("AGENTS_STATE_STORE", pg_url)
    (root / ".agents" / "phases").mkdir(parents=True)  # the task list's file (the state is not)
    at_tasks(root, [{"id": "t1"}, {"id": "t2"}])
    rooms = {  # the engine's record of who holds which task decides the room (issue 32)
        t: Path(cli_json(root, "task", "start", t, "--agent", f"agent-{a}")["worktree"])
        for t, a in (("t1", "a1"), ("t2", "a2"))
    }
    main = tmp_path / "claude" / "sess.jsonl"
    (main.with_suffix("") / "subagents").mkdir(parents=True)
    main.write_text("")
    line = {"type": "user", "message": {"content": "agents-state task start t1, then edit."}}
    (main.with_suffix("") / "subagents" / "agent-a1.jsonl").write_text(json.dumps(line) + "\n")
    payload = {
        "session_id": "sess",
        "transcript_path": str(main),
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "agent_id": "a1",
        "agent_type": "subagents:task-agent",
    }
    answers = []
    for target in (rooms["t1"] / "f.txt", rooms["t2"] / "f.txt"):
        data = {**payload, "tool_input": {"file_path": str(target), "content": "x"}}
        proc = run_cli(root, "hook", "pre-tool-use", stdin=json.dumps(data))
        assert proc.returncode == 0, proc.stderr
        answers.append(proc.stdout.strip())
    assert answers[0] == ""
    assert "this agent writes only inside task t1's worktree" in answers[1], answers
    assert not (root / ".agents" / "state.json").exists()  # the state is on the server only
