"""Hook payloads as the host sends them, and the plugin's launcher run as the host runs it: the
one builder and runner the hook tests share (issue 35).

``payload`` is what every hook event carries (session, transcript, working directory, event
name); ``tool_call`` and ``bash`` add a tool call (PreToolUse unless told), with an agent's id and
type when ``agent`` names one.  ``launch_hook`` runs ``bin/agents-state hook EVENT`` with the
payload on stdin, in a clean environment: PATH to the installed engine, the test's HOME, the
plugin's root; ``CLAUDE_PROJECT_DIR`` only when a test passes it (the launcher's search for a
workflow depends on it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["ENGINE_PATH", "LAUNCHER", "answer_of", "bash", "launch_hook", "payload", "tool_call"]

PLUGIN_ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = PLUGIN_ROOT / "bin" / "agents-state"
ENGINE_PATH = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"


def payload(cwd: Path | str, event: str = "PreToolUse", /, **fields: Any) -> dict[str, Any]:
    """The fields every hook event carries, then ``fields`` (which may replace them)."""
    return {
        "session_id": "s",
        "transcript_path": str(Path(cwd) / "t.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": event,
        **fields,
    }


def tool_call(
    cwd: Path | str,
    tool: str,
    tool_input: dict[str, Any],
    /,
    *,
    agent: str | None = None,
    event: str = "PreToolUse",
    **extra: Any,
) -> dict[str, Any]:
    """One tool call; a sub-agent's (id ``a1``) when ``agent`` names its type."""
    who = {"agent_id": "a1", "agent_type": agent} if agent else {}
    fields = {"tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1", **who}
    return payload(cwd, event, **fields, **extra)


def bash(cwd: Path | str, command: str, /, **extra: Any) -> dict[str, Any]:
    """A Bash call of ``command``."""
    return tool_call(cwd, "Bash", {"command": command}, **extra)


def launch_hook(
    cwd: Path, event: str, data: dict[str, Any] | str, /, **env: str
) -> subprocess.CompletedProcess[str]:
    """``bin/agents-state hook EVENT`` in ``cwd`` with ``data`` (JSON, or raw text) on stdin."""
    return subprocess.run(
        [str(LAUNCHER), "hook", event],
        cwd=cwd,
        env={
            "PATH": ENGINE_PATH,
            "HOME": os.environ["HOME"],
            "CLAUDE_PLUGIN_ROOT": str(PLUGIN_ROOT),
            **env,
        },
        input=data if isinstance(data, str) else json.dumps(data),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def answer_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any] | None:
    """The hook's ``hookSpecificOutput``, or ``None`` when it printed nothing (no answer)."""
    if not proc.stdout.strip():
        return None
    answer: dict[str, Any] = json.loads(proc.stdout)["hookSpecificOutput"]
    return answer
