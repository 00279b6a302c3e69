"""Issue 27, item 5: the EXPLORE stage carries its agentCount, as design 004's state shows
(``"EXPLORE": {"status": "completed", "agentCount": 5}``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from clitools import run_cli

from agents_state.engine import events as ev
from agents_state.engine.phases import apply, new_state


def _state(root: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((root / ".agents/state.json").read_text())
    return data


def test_dispatch_records_the_explore_count_on_the_stage(root: Path) -> None:
    assert run_cli(root, "dispatch", "Add OAuth login with Google and GitHub").returncode == 0
    explore = _state(root)["stages"]["EXPLORE"]  # type: ignore[index]
    assert explore["agentCount"] is not None
    assert explore["agentCount"] == explore["phases"]["0"]["agentCount"]
    assert _state(root)["stages"]["PLAN"].get("agentCount") is None  # type: ignore[index]


def test_no_count_when_explore_is_off(root: Path) -> None:
    (root / ".agents").mkdir(parents=True)
    (root / ".agents/config.json").write_text('{"stages": {"EXPLORE": {"enabled": false}}}')
    assert run_cli(root, "dispatch", "Add OAuth login").returncode == 0
    assert _state(root)["stages"]["EXPLORE"].get("agentCount") is None  # type: ignore[index]


def test_a_recorded_count_of_phase_0_is_the_stages_too() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    state = new_state(ev.Start(task="t", agent_counts={"0": 3}), now)
    assert state.stages["EXPLORE"].agentCount == 3
    out = apply(state, ev.PhaseComplete(phase="0", agent_count=5), now)
    assert out.state.stages["EXPLORE"].agentCount == 5
    assert out.state.phase("0").agentCount == 5
