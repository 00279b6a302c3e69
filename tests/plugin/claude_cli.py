"""Running the real Claude Code CLI in tests: where it is, its environment, and the skip rule.

The CLI is what .ci/plugin.sh installs into .ci/node/ (or one named by ``AGENTS_STATE_CLAUDE``).
Under CI (``CI`` set, as .ci/run and every CI service do) a missing CLI fails the tests that need
it; only a local run without ``CI`` may skip them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pluginfiles import PLUGIN_ROOT

__all__ = ["CLAUDE", "base_env", "require_claude"]

CLAUDE = os.environ.get("AGENTS_STATE_CLAUDE") or str(
    PLUGIN_ROOT / ".ci" / "node" / "node_modules" / ".bin" / "claude"
)


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
