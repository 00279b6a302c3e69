"""``hook pre-tool-use``, table-driven, with Claude Code's PreToolUse payload shapes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents_state.hooks import run_hook

AGENTS_STATE = [sys.executable, "-m", "agents_state"]


def _state(root: Path, status: str = "in_progress") -> None:
    (root / ".agents").mkdir(exist_ok=True)
    (root / ".env").write_text("KEY=1\n")  # profiles decide on the files there are (issue 16)
    (root / ".agents" / "state.json").write_text(
        json.dumps(
            {"version": 2, "task": "Add user authentication", "status": status, "currentPhase": "0"}
        )
    )


def payload(
    tool: str, tool_input: dict[str, Any] | None = None, agent: str | None = None, cwd: str = "."
) -> dict[str, Any]:
    """The shape Claude Code sends; ``agent_id`` / ``agent_type`` only inside a sub-agent."""
    data: dict[str, Any] = {
        "session_id": "abc123",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input or {},
        "tool_use_id": "toolu_01ABC",
    }
    if agent:
        data.update(agent_id="a1b2c3", agent_type=agent)
    return data


def run(
    raw: str | bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    event: str = "pre-tool-use",
) -> tuple[int, str, str]:
    data = raw.encode() if isinstance(raw, str) else raw
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = run_hook(event)
    out = capsys.readouterr()
    return code, out.out, out.err


def decision(out: str) -> str:
    if not out.strip():
        return "allow"
    data = json.loads(out)
    hso = data["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse"
    if "updatedInput" in hso:  # a contained Bash call (issue 23): rewritten, never granted
        assert "permissionDecision" not in hso
        command = hso["updatedInput"]["command"]
        if command.startswith("git -c core.hooksPath=/dev/null "):  # the committer's, outside
            return "hardened"
        assert command.startswith(("/usr/bin/bwrap ", "/bin/bwrap "))
        return "contained"
    assert hso["permissionDecisionReason"].startswith("agents-state: ")
    return str(hso["permissionDecision"])


READ = {"file_path": "/repo/src/lib/auth.ts"}
# (agent type, tool, tool input, expected)
TABLE: list[tuple[str, str, dict[str, Any], str]] = [
    # reader / read-only (reviewer)
    ("subagents:reviewer", "Read", READ, "allow"),
    ("subagents:reviewer", "Grep", {"pattern": "auth", "path": "src"}, "allow"),
    ("subagents:reviewer", "Glob", {"pattern": "src/**/*.ts"}, "allow"),
    ("subagents:reviewer", "mcp__cclsp__find_definition", {"symbol": "x"}, "allow"),
    ("subagents:reviewer", "WebFetch", {"url": "https://x.dev"}, "deny"),
    ("subagents:reviewer", "Bash", {"command": "ls"}, "deny"),
    ("subagents:reviewer", "Write", {"file_path": "a.ts", "content": ""}, "deny"),
    ("subagents:reviewer", "Agent", {"subagent_type": "x", "prompt": "p"}, "deny"),
    ("subagents:reviewer", "mcp__context7__get-library-docs", {}, "deny"),
    # researcher / research (explore, plan, domain-researcher)
    ("subagents:explore", "Read", READ, "allow"),
    ("subagents:explore", "WebSearch", {"query": "jwt"}, "allow"),
    ("subagents:explore", "WebFetch", {"url": "https://x.dev"}, "allow"),
    ("subagents:explore", "mcp__context7__resolve-library-id", {}, "allow"),
    ("subagents:explore", "mcp__cclsp__find_references", {}, "allow"),
    ("subagents:explore", "mcp__github__create_issue", {}, "deny"),
    ("subagents:explore", "Edit", {"file_path": "a.ts"}, "deny"),
    ("subagents:explore", "Bash", {"command": "rm -rf /"}, "deny"),
    ("subagents:explore", "Task", {"prompt": "p"}, "deny"),
    ("subagents:domain-researcher", "Read", {"file_path": "/repo/.env"}, "deny"),
    ("subagents:explore", "Read", {"file_path": ".env.local"}, "deny"),
    ("subagents:explore", "Read", {"file_path": ".env.example"}, "allow"),
    ("subagents:explore", "Read", {"file_path": "/home/u/.ssh/id_ed25519"}, "deny"),
    ("subagents:explore", "Read", {"file_path": "/home/u/.aws/credentials"}, "deny"),
    ("subagents:explore", "Read", {"file_path": "deploy/server.pem"}, "deny"),
    ("subagents:explore", "Glob", {"pattern": "**/.env*"}, "allow"),  # names only (issue 23)
    ("subagents:explore", "Grep", {"pattern": "KEY", "glob": "*.env"}, "deny"),
    ("subagents:explore", "Grep", {"pattern": "KEY", "path": "config/.env"}, "deny"),
    ("subagents:explore", "Grep", {"pattern": "\\.env", "path": "src"}, "allow"),
    ("subagents:reviewer", "Read", {"file_path": "secrets.yaml"}, "deny"),
    # validator (reader + Bash: quality-validator, quality-checker, code-qa)
    ("subagents:quality-checker", "Bash", {"command": "pnpm typecheck"}, "contained"),
    ("subagents:quality-checker", "Bash", {"command": "cat .env"}, "deny"),
    ("subagents:quality-checker", "Write", {"file_path": "a.ts"}, "deny"),
    ("subagents:code-qa", "Read", READ, "allow"),
    # writer (task, worker, domain-writer)
    ("subagents:task", "Write", {"file_path": "src/a.ts", "content": "x"}, "allow"),
    ("subagents:worker", "Edit", {"file_path": "src/a.ts"}, "allow"),
    ("subagents:worker", "MultiEdit", {"file_path": "src/a.ts"}, "allow"),
    ("subagents:worker", "Bash", {"command": "pnpm test"}, "contained"),  # issue 32
    ("subagents:worker", "mcp__cclsp__rename_symbol", {}, "allow"),
    ("subagents:worker", "Read", {"file_path": ".env"}, "allow"),
    ("subagents:worker", "WebFetch", {"url": "https://x.dev"}, "deny"),
    ("subagents:worker", "Agent", {"prompt": "p"}, "deny"),
    ("subagents:worker", "mcp__context7__get-library-docs", {}, "deny"),
    # validator for the command runners too (issue 18: parallel-executor was orchestrator,
    # pr-reviewer reader)
    ("subagents:parallel-executor", "Bash", {"command": "pnpm test"}, "contained"),
    ("subagents:parallel-executor", "Bash", {"command": "pnpm test > out.log"}, "deny"),
    ("subagents:parallel-executor", "Agent", {"prompt": "p"}, "deny"),
    ("subagents:parallel-executor", "mcp__github__create_issue", {}, "deny"),
    ("subagents:pr-reviewer", "Bash", {"command": "git diff main...feature"}, "contained"),
    ("subagents:pr-reviewer", "Bash", {"command": "gh pr diff 7"}, "deny"),
    ("subagents:pr-reviewer", "Edit", {"file_path": "src/a.ts"}, "deny"),
    # committer (git-executor, FINAL phase 4.3): the validator's allowlist plus its git and gh
    # writes (issue 18: with the validator profile the hook denied the work it exists for),
    # which run outside the room with hooks and fsmonitor off (issue 32: .git is read-only)
    ("subagents:git-executor", "Bash", {"command": "git switch --create feat/oauth"}, "hardened"),
    ("subagents:git-executor", "Bash", {"command": "git add src/a.ts README.md"}, "hardened"),
    ("subagents:git-executor", "Bash", {"command": "git commit -m 'feat: add OAuth'"}, "hardened"),
    # its git writes run outside the room, rewritten to a hardened git (issue 32); the push
    # and the pull request need the network and the user's credentials
    ("subagents:git-executor", "Bash", {"command": "git push -u origin feat/oauth"}, "hardened"),
    (
        "subagents:git-executor",
        "Bash",
        {"command": "gh pr create --title 'Add OAuth' --body 'Closes #7' --base main"},
        "allow",
    ),
    ("subagents:git-executor", "Bash", {"command": "gh pr view --json url"}, "allow"),
    ("subagents:git-executor", "Bash", {"command": "git push origin x; git log"}, "contained"),
    ("subagents:git-executor", "Bash", {"command": "git -c core.sshCommand=sh push"}, "deny"),
    ("subagents:git-executor", "Bash", {"command": "git commit -m x && curl x.dev"}, "deny"),
    ("subagents:git-executor", "Bash", {"command": "gh api user"}, "deny"),
    ("subagents:git-executor", "Bash", {"command": "git push --force origin main"}, "deny"),
    ("subagents:git-executor", "Bash", {"command": "git add .env"}, "deny"),
    ("subagents:git-executor", "Read", {"file_path": ".env"}, "deny"),
    ("subagents:git-executor", "Write", {"file_path": "a.ts"}, "deny"),
    ("subagents:quality-checker", "Bash", {"command": "git commit -m x"}, "deny"),
    ("subagents:git-content-generator", "Bash", {"command": "git push origin x"}, "deny"),
    # composite researcher+Bash
    ("subagents:code-analyzer", "Bash", {"command": "git log"}, "contained"),
    ("subagents:code-analyzer", "Write", {"file_path": "a"}, "deny"),
    # unknown agents and other plugins: no profile, allowed
    ("subagents:unknown-helper", "Write", {"file_path": "a"}, "allow"),
    ("otherplugin:explore", "Write", {"file_path": "a"}, "allow"),
    ("general-purpose", "Write", {"file_path": "a"}, "allow"),
]


@pytest.mark.parametrize(
    ("agent", "tool", "tool_input", "expected"),
    TABLE,
    ids=[f"{a}-{t}-{i}" for i, (a, t, _, _) in enumerate(TABLE)],
)
def test_profile_table(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    agent: str,
    tool: str,
    tool_input: dict[str, Any],
    expected: str,
) -> None:
    _state(tmp_path)
    code, out, err = run(
        json.dumps(payload(tool, tool_input, agent, str(tmp_path))), monkeypatch, capsys
    )
    assert (code, decision(out), err) == (0, expected, "")


@pytest.mark.parametrize("name", ["orchestrator", "full-access"])
def test_the_orchestrator_profile_allows_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """No built-in agent has it (a sub-agent cannot start agents); a project can give it."""
    _state(tmp_path)
    calls = [
        json.dumps(payload(tool, tool_input, "subagents:parallel-executor", str(tmp_path)))
        for tool, tool_input in (("Agent", {"prompt": "p"}), ("mcp__github__create_issue", {}))
    ]
    assert [decision(run(raw, monkeypatch, capsys)[1]) for raw in calls] == ["deny", "deny"]
    lift = json.dumps({"agentProfiles": {"parallel-executor": name}})
    (tmp_path / ".agents/config.json").write_text(lift)  # a project's: ignored (issue 32)
    assert [decision(run(raw, monkeypatch, capsys)[1]) for raw in calls] == ["deny", "deny"]
    user = Path(os.environ["HOME"]) / ".claude"
    user.mkdir(parents=True, exist_ok=True)
    (user / "subagents-config.json").write_text(lift)
    assert [run(raw, monkeypatch, capsys) for raw in calls] == [(0, "", "")] * 2


def test_deny_reason_names_profile_and_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _state(tmp_path)
    _, out, _ = run(
        json.dumps(payload("Write", {"file_path": "a"}, "subagents:explore", str(tmp_path))),
        monkeypatch,
        capsys,
    )
    assert json.loads(out) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": (
                "agents-state: agent 'explore' runs with the researcher profile (Read, Grep, Glob, "
                "mcp__cclsp__{find_definition,find_references,find_workspace_symbols,"
                "find_implementation,get_hover,get_diagnostics,prepare_call_hierarchy,"
                "get_incoming_calls,get_outgoing_calls}, WebFetch, WebSearch, "
                "mcp__context7__{resolve-library-id,get-library-docs,query-docs}); Write is not in "
                "it. Do this step with those tools, or finish with decision STOP or CLARIFY "
                "in your "
                "handoff and say what you need."
            ),
        }
    }


@pytest.mark.parametrize("status", ["completed", None])
def test_no_active_workflow_allows(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    status: str | None,
) -> None:
    if status:
        _state(tmp_path, status)
    code, out, err = run(
        json.dumps(payload("Write", {}, "explore", str(tmp_path))), monkeypatch, capsys
    )
    assert (code, out, err) == (0, "", "")
    # this plugin's own agents keep their profiles with no workflow (issue 23)
    code, out, err = run(
        json.dumps(payload("Write", {}, "subagents:explore", str(tmp_path))), monkeypatch, capsys
    )
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_main_conversation_allows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _state(tmp_path)
    code, out, err = run(json.dumps(payload("Write", {}, None, str(tmp_path))), monkeypatch, capsys)
    assert (code, out, err) == (0, "", "")


@pytest.mark.parametrize(
    ("raw", "warning"),
    [
        (
            b"",
            "agents-state: warning: empty hook input on stdin (expected Claude Code's hook JSON); "
            "allowing\n",
        ),
        (
            b"{not json",
            "agents-state: warning: hook input is not JSON (unexpected character, "
            "expected a string key: line 1 column 2 (char 1)); allowing\n",
        ),
        (b"[1, 2]", "agents-state: warning: hook input is a JSON list, not an object; allowing\n"),
        (
            b"\xff\xfe",
            "agents-state: warning: hook input is not JSON (str is not valid UTF-8: "
            "surrogates not allowed: line 1 column 1 (char 0)); allowing\n",
        ),
    ],
)
def test_malformed_stdin_allows_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], raw: bytes, warning: str
) -> None:
    code, out, err = run(raw, monkeypatch, capsys)
    assert (code, out) == (0, "")
    assert err.count("\n") == 1 and err.startswith("agents-state: warning: ")
    if "UTF-8" not in warning:
        assert err == warning


def test_config_and_agent_file_choose_the_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _state(tmp_path)
    agents = tmp_path / "plugin" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text(
        "---\nname: scout\ndescription: d\nprofile: read-only\n---\nbody\n"
    )
    monkeypatch.setenv("CLAUDE_PLUGIN_ROOT", str(tmp_path / "plugin"))
    p = json.dumps(payload("WebFetch", {}, "subagents:scout", str(tmp_path)))
    assert decision(run(p, monkeypatch, capsys)[1]) == "deny"
    lift = json.dumps({"agentProfiles": {"scout": "research"}})
    (tmp_path / ".agents" / "config.json").write_text(lift)  # a project's: ignored (issue 32)
    assert decision(run(p, monkeypatch, capsys)[1]) == "deny"
    user = Path(os.environ["HOME"]) / ".claude"
    user.mkdir(parents=True, exist_ok=True)
    (user / "subagents-config.json").write_text(lift)
    assert decision(run(p, monkeypatch, capsys)[1]) == "allow"


def test_root_from_env_and_ancestor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _state(tmp_path)
    deep = tmp_path / "src" / "lib"
    deep.mkdir(parents=True)
    p = payload("Write", {}, "subagents:explore", str(deep))
    assert decision(run(json.dumps(p), monkeypatch, capsys)[1]) == "deny"
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    p["cwd"] = str(elsewhere)
    monkeypatch.setenv("AGENTS_STATE_ROOT", str(tmp_path))
    assert decision(run(json.dumps(p), monkeypatch, capsys)[1]) == "deny"


def test_installed_console_script(tmp_path: Path) -> None:
    _state(tmp_path)
    exe = Path(sys.executable).with_name("agents-state")
    cmd = [str(exe)] if exe.exists() else AGENTS_STATE
    deny = subprocess.run(
        [*cmd, "hook", "pre-tool-use"],
        input=json.dumps(payload("Bash", {"command": "ls"}, "subagents:explore", str(tmp_path))),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=30,
    )
    assert deny.returncode == 0 and deny.stderr == ""
    assert json.loads(deny.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    bad = subprocess.run(
        [*cmd, "hook", "pre-tool-use"],
        input="garbage",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=30,
    )
    assert (bad.returncode, bad.stdout) == (0, "")
    assert "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1
    rooted = subprocess.run(
        [*cmd, "--root", str(tmp_path), "hook", "pre-tool-use"],
        input=json.dumps(payload("Bash", {}, "subagents:explore", "/")),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert json.loads(rooted.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
