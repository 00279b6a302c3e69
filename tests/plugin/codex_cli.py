"""Running the real Codex CLI in tests: where it is and the skip rule (as ``claude_cli``).

The CLI is what .ci/codex.sh installs into .ci/node/ (or one named by ``AGENTS_STATE_CODEX``).
Under CI (``CI`` set) a missing CLI fails the tests that need it, unless the npm registry could
not be reached when it was installed (.ci/codex.sh leaves ``.ci/node/codex-unreachable``); only
a local run without ``CI`` may skip them.
"""

from __future__ import annotations

import os

import pytest
from pluginfiles import PLUGIN_ROOT

__all__ = ["CODEX", "require_codex"]

CODEX = os.environ.get("AGENTS_STATE_CODEX") or str(
    PLUGIN_ROOT / ".ci" / "node" / "node_modules" / ".bin" / "codex"
)
UNREACHABLE = PLUGIN_ROOT / ".ci" / "node" / "codex-unreachable"


def require_codex() -> None:
    """Fail (CI) or skip when the CLI is missing; call it at the start of a test."""
    if os.access(CODEX, os.X_OK):
        return
    reason = f"Codex CLI not installed at {CODEX} (bash .ci/codex.sh installs it)"
    if UNREACHABLE.exists():
        pytest.skip(f"{reason}: the npm registry could not be reached ({UNREACHABLE})")
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; under CI the end-to-end tests must run")
    pytest.skip(reason)
