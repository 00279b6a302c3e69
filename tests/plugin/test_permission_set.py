"""Issue 27: ``--set KEY=VALUE`` can name the commands ``phase run`` executes
(``stages.TEST.commands``), so an engine command that carries it is never approved by the plugin:
Claude Code asks the user as for any other shell command."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents_state.hooks.permission import approval


@pytest.mark.parametrize(
    "command",
    [
        "agents-state phase run 3.1 --set stages.TEST.commands.test=./evil.sh",
        "agents-state --set stages.TEST.commands.test=./evil.sh phase run 3.1",
        "agents-state phase run 3.1 --set=stages.TEST.commands.test=./evil.sh",
        "agents-state --set defaults.model=opus next",
    ],
)
def test_an_engine_command_with_set_is_left_to_the_user(root: Path, command: str) -> None:
    (root / ".agents" / "phases").mkdir(parents=True)
    payload = {"cwd": str(root), "tool_name": "Bash", "tool_input": {"command": command}}
    assert approval(payload) is None
    plain = {**payload, "tool_input": {"command": "agents-state next"}}
    assert approval(plain) is not None  # bookkeeping without --set still goes by itself
    # (phase run is the user's with or without --set since issue 23)
