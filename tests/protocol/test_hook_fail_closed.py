"""Issue 16, profile bypasses: when the PreToolUse hook cannot decide for a sub-agent of an
active or unreadable workflow, it denies with one line saying why; the main conversation's
calls stay allowed.  In process, and through the real ``agents-state hook pre-tool-use``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agents_state.hooks.profile_check import subagent_denial
from protocol.hookcase import ask, make_project

DOCTOR = (
    "so sub-agent tool profiles cannot be checked; denied until the state reads again (the "
    "main conversation can run `agents-state doctor` to see and fix it)."
)
PROFILES = (
    "profiles are reader, read-only, researcher, research, validator, qa, committer, writer, "
    "orchestrator, full-access"
)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    return project


def write_denied(root: Path, reason: str | None) -> None:
    assert reason is not None and reason.startswith(
        "agents-state: agent 'explore' runs with the researcher profile ("
    )
    assert reason.endswith(
        "Write is not in it. Do this step with those tools, or finish with "
        "decision STOP or CLARIFY in your handoff and say what you need."
    )


def test_issue_16_torn_state_denies(root: Path) -> None:
    state = root / ".agents" / "state.json"
    state.write_text('{"status": "in_pro')
    assert ask(root, "Read", {"file_path": "src/auth.ts"}) == (
        f"agents-state: {state} is not valid JSON (unexpected end of data: line 1 column 19 "
        f"(char 18)), {DOCTOR}"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"[]", "holds a JSON list, not an object"),
        (
            b"",
            "is not valid JSON (Input is a zero-length, empty document: line 1 column 1 (char 0))",
        ),
    ],
)
def test_issue_16_unusable_state_denies(root: Path, content: bytes, problem: str) -> None:
    state = root / ".agents" / "state.json"
    state.write_bytes(content)
    assert ask(root, "Read", {"file_path": "src/auth.ts"}) == (
        f"agents-state: {state} {problem}, {DOCTOR}"
    )


def test_issue_16_state_that_is_a_folder_denies(root: Path) -> None:
    state = root / ".agents" / "state.json"
    state.unlink()
    state.mkdir()
    assert ask(root, "Read", {"file_path": "src/auth.ts"}) == (
        f"agents-state: {state} is not a regular file, {DOCTOR}"
    )


def test_issue_16_bom_prefixed_state_is_read_and_applies(root: Path) -> None:
    state = root / ".agents" / "state.json"
    state.write_bytes(b"\xef\xbb\xbf" + state.read_bytes())
    write_denied(root, ask(root, "Write", {"file_path": "src/a.ts", "content": "x"}))
    assert ask(root, "Read", {"file_path": "src/auth.ts"}) is None


def test_issue_16_nested_empty_agents_folder_does_not_hide_the_workflow(root: Path) -> None:
    (root / "src" / ".agents").mkdir()
    write_denied(root, ask(root, "Write", {"file_path": "a.ts"}, cwd=root / "src"))


def test_issue_16_misspelt_profile_in_config_denies(root: Path) -> None:
    config = root / ".agents" / "config.json"
    config.write_text(json.dumps({"agentProfiles": {"explore": "reseacher"}}))
    assert ask(root, "Read", {"file_path": "src/auth.ts"}) == (
        f"agents-state: agent 'explore' names the unknown profile 'reseacher' (agentProfiles in "
        f"{config}); did you mean 'researcher'? {PROFILES}; the tool profile cannot be checked, "
        "so the call is denied."
    )


def test_issue_16_misspelt_profile_in_agent_file_denies(root: Path) -> None:
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "scout.md").write_text("---\nname: scout\nprofile: reder\n---\nbody\n")
    assert ask(root, "Read", {"file_path": "src/auth.ts"}, agent="scout") == (
        f"agents-state: agent 'scout' names the unknown profile 'reder' (the profile: line of "
        f"{agents / 'scout.md'}); did you mean 'reader'? {PROFILES}; the tool profile cannot be "
        "checked, so the call is denied."
    )


def test_issue_16_unreadable_config_layer_denies(root: Path) -> None:
    config = root / ".claude" / "subagents-config.json"
    config.parent.mkdir()
    config.write_text('{"agentProfiles": ')
    assert ask(root, "Read", {"file_path": "src/auth.ts"}) == (
        f"agents-state: cannot read {config} (unexpected end of data: line 1 column 19 (char "
        "18)); the tool profile cannot be checked, so the call is denied."
    )


def test_issue_16_cwd_outside_the_project_denies(root: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert ask(root, "Read", {"file_path": "x"}, cwd=other) == (
        f"agents-state: the call runs in {other}, outside the project {root}; sub-agents of "
        f"this workflow work inside it (cd {root}); denied."
    )
    assert ask(root, "Write", {"file_path": "x"}, agent="subagents:worker", cwd="/") == (
        f"agents-state: the call runs in /, outside the project {root}; sub-agents of this "
        f"workflow work inside it (cd {root}); denied."
    )


def test_issue_16_cwd_that_links_out_of_the_project_denies(root: Path, tmp_path: Path) -> None:
    (root / "out").symlink_to(tmp_path)
    assert ask(root, "Read", {"file_path": "x"}, cwd=root / "out") == (
        f"agents-state: the call runs in {root / 'out'}, outside the project {root}; sub-agents "
        f"of this workflow work inside it (cd {root}); denied."
    )


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (
            {"agent_type": None},
            "agents-state: the hook input has agent_id but no agent_type, so the "
            "sub-agent's profile cannot be told; denied.",
        ),
        ({"tool_name": 7}, "agents-state: the hook input names no tool_name; denied."),
        (
            {"tool_input": "cat .env"},
            "agents-state: the Read call's tool_input is not an object, so "
            "what it touches cannot be judged; denied.",
        ),
        (
            {"tool_input": {"file_path": [".env"]}},
            "agents-state: the Read call's file_path is not a string; denied.",
        ),
        (
            {"cwd": None},
            "agents-state: the hook input has no cwd, so relative paths cannot be "
            "resolved; denied.",
        ),
    ],
)
def test_issue_16_odd_payloads_deny(root: Path, extra: dict[str, Any], reason: str) -> None:
    payload = {
        "cwd": str(root),
        "tool_name": "Read",
        "tool_input": {"file_path": "a"},
        "agent_id": "a1",
        "agent_type": "subagents:explore",
        **extra,
    }
    assert subagent_denial(payload, None) == reason


def test_issue_16_no_active_workflow_still_allows(root: Path) -> None:
    """...a project's own agents; this plugin's agents keep their profiles (issue 23)."""
    (root / ".agents" / "state.json").write_text('{"status": "completed"}')
    assert ask(root, "Write", {"file_path": "a"}, agent="explore") is None
    assert ask(root, "Read", {"file_path": ".env"}, agent="explore") is None
    assert ask(root, "Read", {"file_path": ".env"}) is not None


# -- through the real process -------------------------------------------------------------------


def hook(root: Path, stdin: str | bytes, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("agents-state")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "agents_state"]
    data = stdin if isinstance(stdin, str) else stdin.decode()
    import os

    return subprocess.run(
        [*cmd, "hook", "pre-tool-use"],
        input=data,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=30,
        env={**os.environ, **env},
    )


def reason_of(proc: subprocess.CompletedProcess[str]) -> str:
    assert (proc.returncode, proc.stderr) == (0, "")
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    return str(out["permissionDecisionReason"])


def payload(root: Path | str, tool_input: Any, agent: bool | str = True) -> str:
    data: dict[str, Any] = {
        "session_id": "s",
        "cwd": str(root),
        "tool_name": "Read",
        "hook_event_name": "PreToolUse",
        "tool_input": tool_input,
    }
    if agent:
        kind = agent if isinstance(agent, str) else "subagents:explore"
        data.update(agent_id="a1", agent_type=kind)
    return json.dumps(data)


def test_issue_16_process_torn_state(root: Path) -> None:
    state = root / ".agents" / "state.json"
    state.write_text('{"status": "in_pro')
    assert reason_of(hook(root, payload(root, {"file_path": "src/auth.ts"}), root)) == (
        f"agents-state: {state} is not valid JSON (unexpected end of data: line 1 column 19 "
        f"(char 18)), {DOCTOR}"
    )
    main = hook(root, payload(root, {"file_path": ".env"}, agent=False), root)
    assert (main.returncode, main.stdout, main.stderr) == (0, "", "")


def test_issue_16_process_deeply_nested_payload(root: Path) -> None:
    deep = '{"x":' * 3000 + "1" + "}" * 3000
    raw = payload(root, {"file_path": "a"}).replace('{"file_path": "a"}', deep)
    reason = reason_of(hook(root, raw, root))
    assert reason.startswith("agents-state: the hook input is not JSON (depth limit exceeded: ")
    assert reason.endswith(
        "), so this sub-agent's call cannot be checked against its tool "
        "profile; denied. Retry the call with a simpler input."
    )
    main = hook(
        root, raw.replace('"agent_id": "a1", "agent_type": "subagents:explore"', '"z": 1'), root
    )
    assert (main.returncode, main.stdout) == (0, "")
    assert main.stderr.startswith("agents-state: warning: hook input is not JSON (depth limit")


def test_issue_16_process_cwd_outside_the_project(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    expected = (
        f"agents-state: the call runs in {outside}, outside the project {root}; "
        f"sub-agents of this workflow work inside it (cd {root}); denied."
    )
    assert reason_of(hook(root, payload(outside, {"file_path": "x"}), root)) == expected
    # the hook's own directory elsewhere too: Claude Code's CLAUDE_PROJECT_DIR finds the project
    assert (
        reason_of(
            hook(root, payload(outside, {"file_path": "x"}), outside, CLAUDE_PROJECT_DIR=str(root))
        )
        == expected
    )


def test_issue_16_process_misspelt_profile(root: Path) -> None:
    config = root / ".agents" / "config.json"
    config.write_text(json.dumps({"agentProfiles": {"explore": "reseacher"}}))
    assert reason_of(hook(root, payload(root, {"file_path": "src/auth.ts"}), root)) == (
        f"agents-state: agent 'explore' names the unknown profile 'reseacher' (agentProfiles in "
        f"{config}); did you mean 'researcher'? {PROFILES}; the tool profile cannot be checked, "
        "so the call is denied."
    )


def test_issue_16_process_grep_pattern_bypass(root: Path) -> None:
    raw = payload(root, {"pattern": "KEY", "glob": ".[e]nv"}).replace('"Read"', '"Grep"')
    assert reason_of(hook(root, raw, root)) == (
        "agents-state: the researcher profile may not read or search credential files: Grep "
        "over '.' with glob '.[e]nv' would reach .env: a credential file (.env, environment "
        "file); handoffs must stay free of secrets: continue without it, and if the task needs "
        "a value from it, finish with decision CLARIFY and ask the user."
    )


def test_issue_16_a_bug_in_the_check_denies(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from agents_state.hooks import profile_check, run_hook

    def broken(payload: dict[str, Any], explicit_root: str | None) -> str | None:
        raise RuntimeError("boom")

    monkeypatch.setattr(profile_check, "subagent_denial", broken)
    monkeypatch.setattr(
        sys,
        "stdin",
        io.TextIOWrapper(io.BytesIO(payload(root, {"file_path": "src/auth.ts"}).encode())),
    )
    assert run_hook("pre-tool-use") == 0
    out = capsys.readouterr()
    assert out.err == ""
    assert json.loads(out.out)["hookSpecificOutput"]["permissionDecisionReason"] == (
        "agents-state: the tool profile check failed (RuntimeError: boom); denied. Retry once; "
        "if it fails again, finish with decision STOP and say so."
    )


def test_issue_16_process_bom_state_and_nested_empty_agents(root: Path) -> None:
    state = root / ".agents" / "state.json"
    state.write_bytes(b"\xef\xbb\xbf" + state.read_bytes())
    (root / "src" / ".agents").mkdir()
    raw = payload(root / "src", {"file_path": "a.ts", "content": "x"}).replace('"Read"', '"Write"')
    reason = reason_of(hook(root, raw, root / "src"))
    assert reason.startswith("agents-state: agent 'explore' runs with the researcher profile (")
    assert reason.endswith(
        "Write is not in it. Do this step with those tools, or finish with "
        "decision STOP or CLARIFY in your handoff and say what you need."
    )


@pytest.mark.parametrize(
    "fifo", [".agents/state.json", ".agents/config.json", ".claude/agents/explore.md"]
)
def test_issue_16_process_fifo_never_hangs_the_hook(root: Path, fifo: str) -> None:
    import os

    path = root / fifo
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    agent = "explore" if fifo.startswith(".claude/") else True  # a project's own agent file
    reason = reason_of(hook(root, payload(root, {"file_path": "src/auth.ts"}, agent), root))
    assert (
        reason
        == {
            ".agents/state.json": f"agents-state: {path} is not a regular file, {DOCTOR}",
            ".agents/config.json": f"agents-state: cannot read {path} ({path} is not a regular "
            "file); the tool profile cannot be checked, so the call is denied.",
            ".claude/agents/explore.md": f"agents-state: cannot read the agent file {path} ({path} "
            "is not a regular file); the tool profile cannot be "
            "checked, so the call is denied.",
        }[fifo]
    )


def test_issue_23_a_project_agent_file_never_changes_a_plugin_agents_profile(root: Path) -> None:
    """A cloned repository's `.claude/agents/explore.md` with `profile: orchestrator` lifted the
    plugin's `subagents:explore` out of its researcher profile (a Write was allowed). It is the
    project's own agent `explore`, not the plugin's."""
    agents = root / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "explore.md").write_text("---\nname: explore\nprofile: orchestrator\n---\nbody\n")
    write = {"file_path": "src/x.ts", "content": "x"}
    plugin = json.loads(payload(root, write))
    plugin["tool_name"] = "Write"
    reason = reason_of(hook(root, json.dumps(plugin), root))
    assert reason.startswith("agents-state: agent 'explore' runs with the researcher profile (")
    own = json.loads(payload(root, write, "explore"))
    own["tool_name"] = "Write"
    assert hook(root, json.dumps(own), root).stdout == ""  # the project's agent: its own profile
