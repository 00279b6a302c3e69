"""Issue 16: the plugin's launcher must not answer for the engine when a workflow may be active:
a nested empty ``.agents/`` or a state file that is not a regular file reaches the engine's
PreToolUse check, which denies."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from hookcalls import launch_hook, tool_call


def hook(cwd: Path, call: dict[str, object], **env: str) -> subprocess.CompletedProcess[str]:
    return launch_hook(cwd, "pre-tool-use", call, **env)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text('{"status": "in_progress"}')
    (root / ".env").write_text("KEY=1\n")
    (root / "src" / ".agents").mkdir(parents=True)  # nested and empty
    return root


def read_env(cwd: Path) -> dict[str, object]:
    return tool_call(cwd, "Read", {"file_path": "../.env"}, agent="subagents:explore-agent")


def test_issue_16_nested_empty_agents_folder_reaches_the_engine(tmp_path: Path) -> None:
    root = project(tmp_path)
    proc = hook(root / "src", read_env(root / "src"))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"] == (
        "agents-state: the reader profile may not read or search credential files: ../.env: a "
        "credential file (.env, environment file); handoffs must stay free of secrets: continue "
        "without it, and if the task needs a value from it, finish with decision CLARIFY and ask "
        "the user."
    )


def test_issue_16_project_dir_reaches_the_engine_from_elsewhere(tmp_path: Path) -> None:
    root = project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = hook(elsewhere, read_env(elsewhere), CLAUDE_PROJECT_DIR=str(root))
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"] == (
        f"agents-state: the call runs in {elsewhere}, outside the project {root}; sub-agents of "
        f"this workflow work inside it (cd {root}); denied."
    )


def test_issue_16_a_fifo_state_reaches_the_engine(tmp_path: Path) -> None:
    root = project(tmp_path)
    state = root / ".agents" / "state.json"
    state.unlink()
    os.mkfifo(state)
    proc = hook(root, read_env(root))
    reason = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith(f"agents-state: {state} is not a regular file, so sub-agent tool ")


def test_issue_16_still_silent_without_any_state(tmp_path: Path) -> None:
    """For agents that are not this plugin's (issue 23: the plugin's keep their profiles)."""
    (tmp_path / "a" / ".agents").mkdir(parents=True)
    proc = hook(tmp_path / "a", {**read_env(tmp_path / "a"), "agent_type": "explore"})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
