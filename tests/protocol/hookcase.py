"""A project with credential files in it and in the home folder, and a way to ask the
PreToolUse decision about one call (issue 16, profile bypasses)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agents_state.hooks.profile_check import subagent_denial

CRED = (
    "agents-state: the {profile} profile may not read or search credential files: {what}; "
    "handoffs must stay free of secrets: continue without it, and if the task needs a value "
    "from it, finish with decision CLARIFY and ask the user."
)
BASH = (
    "agents-state: the {profile} profile runs only allowlisted Bash commands (tests, "
    "linters, builds, git read commands, looking at files); {why}. Use Read, Grep or Glob, "
    "or ask for the command in toolProfiles.{profile}.bashAllow "
    "(~/.claude/subagents-config.json); if the task needs it, finish with decision CLARIFY."
)

HOME_FILES = (
    ".ssh/id_ed25519",
    ".aws/credentials",
    ".docker/config.json",
    ".kube/config",
    ".config/gh/hosts.yml",
)


def make_project(base: Path) -> Path:
    """``base/proj`` with an active workflow, ``.env`` at its top, ``config/.env`` below, and
    ordinary sources; the credential files of ``HOME_FILES`` under ``$HOME``."""
    root = base / "proj"
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text(
        json.dumps({"version": 2, "task": "t", "status": "in_progress", "currentPhase": "0"})
    )
    (root / ".env").write_text("API_KEY=s3cr3t\n")
    (root / ".env.example").write_text("API_KEY=\n")
    (root / "config").mkdir()
    (root / "config" / ".env").write_text("DB_PASSWORD=x\n")
    (root / "src").mkdir()
    (root / "src" / "auth.ts").write_text("export const auth = 1\n")
    (root / "README.md").write_text("# proj\n")
    home = Path(os.environ["HOME"])
    for rel in HOME_FILES:
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text("token\n")
    return root


def ask(
    root: Path,
    tool: str,
    tool_input: Any,
    agent: str = "subagents:explore",
    cwd: str | Path | None = None,
    **extra: Any,
) -> str | None:
    """The deny reason for a sub-agent's call, or ``None`` when it is allowed (a contained Bash
    call's rewrite counts as allowed: ``tests/protocol/test_sandbox*.py`` run it)."""
    payload = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(root if cwd is None else cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
        "agent_id": "a1",
        "agent_type": agent,
        **extra,
    }
    answer = subagent_denial(payload, None)
    return answer if answer is None or isinstance(answer, str) else None
