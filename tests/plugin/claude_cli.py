"""Running the real Claude Code CLI in tests: where it is, its environment, the skip rule, and
the one runner every end-to-end test uses (issue 35).

The CLI is what .ci/plugin.sh installs into .ci/node/ (or one named by ``AGENTS_STATE_CLAUDE``).
Under CI (``CI`` set, as .ci/run and every CI service do) a missing CLI fails the tests that need
it; only a local run without ``CI`` may skip them.

A run is ``claude -p --plugin-dir <this repository> ARGS`` in the test's project folder against
the stub Messages API (``stub_api.StubAPI``, on 127.0.0.1), with an environment built from
nothing (``base_env``): the test's own HOME (conftest isolates it) and none of the development
shell's variables (``PYTHONUNBUFFERED``, ``PYTHONDONTWRITEBYTECODE``, ...), as a user's shell has.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol

import pytest
from pluginfiles import PLUGIN_ROOT

__all__ = [
    "CLAUDE",
    "ENGINE_PATH",
    "SYSTEM_PATH",
    "VENV_BIN",
    "base_env",
    "claude_argv",
    "hook_events",
    "log_hook_events",
    "require_claude",
    "run_claude",
    "start_claude",
]

CLAUDE = os.environ.get("AGENTS_STATE_CLAUDE") or str(
    PLUGIN_ROOT / ".ci" / "node" / "node_modules" / ".bin" / "claude"
)
VENV_BIN = str(Path(sys.executable).parent)
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# the engine installed "elsewhere on PATH" (Claude Code adds the plugin's bin/ itself)
ENGINE_PATH = f"{VENV_BIN}:{SYSTEM_PATH}"


class _API(Protocol):
    @property
    def url(self) -> str: ...


def require_claude() -> None:
    """Fail (CI) or skip (a local run) when the CLI is missing; call it at the start of a test."""
    if os.access(CLAUDE, os.X_OK):
        return
    reason = f"Claude Code CLI not installed at {CLAUDE} (bash .ci/plugin.sh installs it)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; under CI the end-to-end tests must run")
    pytest.skip(reason)


def base_env(api_url: str, path: str) -> dict[str, str]:
    home = Path(os.environ["HOME"])  # the test's own (conftest isolates it)
    return {
        "PATH": path,
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": api_url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }


def claude_argv(*args: str, plugin_dir: bool = True) -> list[str]:
    """``claude -p [--plugin-dir <this repository>] ARGS``."""
    return [CLAUDE, "-p", *(["--plugin-dir", str(PLUGIN_ROOT)] if plugin_dir else []), *args]


def _env(api: _API, path: str, env: dict[str, str] | None) -> dict[str, str]:
    return {**base_env(api.url, path), **(env or {})}


def run_claude(
    root: Path,
    api: _API,
    *args: str,
    path: str = ENGINE_PATH,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    plugin_dir: bool = True,
) -> subprocess.CompletedProcess[str]:
    """One ``claude -p`` run in ``root`` to its end; ``env`` adds to ``base_env``.  The timeout
    only turns a hang into a failure."""
    return subprocess.run(
        claude_argv(*args, plugin_dir=plugin_dir),
        cwd=root,
        env=_env(api, path, env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start_claude(
    root: Path,
    api: _API,
    *args: str,
    path: str = ENGINE_PATH,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[str]:
    """The same run, started: in its own process group, so that a kill takes its hooks and
    agents too (``os.killpg(proc.pid, ...)``)."""
    return subprocess.Popen(
        claude_argv(*args),
        cwd=root,
        env=_env(api, path, env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def log_hook_events(
    home: Path, log: Path, events: tuple[str, ...], settings: dict[str, Any] | None = None
) -> None:
    """User settings (``home/.claude/settings.json``, with ``settings`` merged in) whose hooks
    append the payload of every one of ``events`` to ``log``, one JSON object a line."""
    logger = [
        {
            "matcher": "*",
            "hooks": [{"type": "command", "command": f"cat >> '{log}'; echo >> '{log}'"}],
        }
    ]
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**(settings or {}), "hooks": {e: logger for e in events}}))


def hook_events(log: Path, name: str | None = None) -> list[dict[str, Any]]:
    """The payloads ``log_hook_events`` logged (of the event ``name`` only, when given)."""
    lines = log.read_text().splitlines() if log.exists() else []
    found = [json.loads(line) for line in lines if line.strip()]
    return [e for e in found if name is None or e.get("hook_event_name") == name]
