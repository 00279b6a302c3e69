"""Issue 26: ``dispatch`` and ``dispatch --dry-run`` read one sizing (``engine.dispatchplan``),
so the preview shows the agent counts the run starts with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents_state.app import App
from agents_state.engine.dispatchplan import EXPLORE_PHASE, dispatch_plan
from agents_state.verbs.start import start_workflow
from agents_state.workflow import SIZED_PHASE

TASKS = [
    "fix a typo in the README",
    "add a settings page",
    "migrate the whole authentication system to OAuth with Google, GitHub and SAML",
]


def _planned(plan: dict[str, object], pid: str) -> object:
    phases = [p for st in plan["stages"] for p in st["phases"]]  # type: ignore[attr-defined]
    return next(p["agents"]["count"] for p in phases if p["id"] == pid)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("mode", ["single", "parallel"])
def test_the_dry_run_shows_the_counts_dispatch_starts_with(
    tmp_path: Path, task: str, mode: str
) -> None:
    settings = {"stages": {"PLAN": {"planning": {"mode": mode}}}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "subagents-config.json").write_text(json.dumps(settings))
    app = App(tmp_path)
    assert app.config.stages.PLAN.planning.mode == mode
    plan = dispatch_plan(app.config, task)
    state = start_workflow(app, task).state
    for pid in (EXPLORE_PHASE, SIZED_PHASE):
        assert _planned(plan, pid) == state.phase(pid).agentCount, pid
    if mode == "single":
        assert state.phase(SIZED_PHASE).agentCount == 1
