"""Bring older layouts into this one (pure conversion; the CLI does the file moves).

- version 1: ``.agents/subagents-state.json`` with ``task``, ``currentStage``, ``currentPhase``,
  ``planFilePath`` and ``stages`` PLAN / IMPLEMENT / TEST / FINAL, each with a ``status`` (and
  ``enabled`` on TEST); there was no EXPLORE stage, so its phase is marked skipped.
- the layout the original plugin moved to: ``.agents/tmp/state.json`` with ``.agents/tmp/phases/``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents_state.engine import events as ev
from agents_state.engine.phases import new_state
from agents_state.errors import StateFileError
from agents_state.models import State
from agents_state.types import format_time
from agents_state.workflow import PHASE_IDS, PHASES, STAGES, get_phase, phases_of

__all__ = ["V1_FILE", "V2_TMP_DIR", "from_v1"]

V1_FILE = ".agents/subagents-state.json"
V2_TMP_DIR = ".agents/tmp"


def from_v1(raw: Any, shown: str, now: datetime) -> State:
    if not isinstance(raw, dict):
        raise StateFileError(shown, "", "expected a JSON object")
    version = raw.get("version", 1)
    if str(version) not in ("1", "1.0"):
        raise StateFileError(
            shown,
            "version",
            f"{version!r} is not a version 1 file; "
            "migrate understands versions 1 (subagents-state.json) and the "
            ".agents/tmp/ layout",
        )
    task = raw.get("task")
    if not isinstance(task, str) or not task.strip():
        raise StateFileError(shown, "task", "missing; a version 1 state needs its task text")
    stages_raw = raw.get("stages")
    stages: dict[str, Any] = stages_raw if isinstance(stages_raw, dict) else {}
    test_raw = stages.get("TEST")
    test: dict[str, Any] = test_raw if isinstance(test_raw, dict) else {}
    skipped = {"0"} | (
        {p.id for p in phases_of("TEST")}
        if str(test.get("enabled", True)).lower() == "false"
        else set()
    )
    state = new_state(ev.Start(task=task.strip(), skipped=tuple(sorted(skipped))), now)
    current = raw.get("currentPhase")
    current = str(current) if current is not None else None
    for name in STAGES[1:]:
        old = stages.get(name)
        status = str(old.get("status", "pending")).lower() if isinstance(old, dict) else "pending"
        for p in phases_of(name):
            ph = state.phase(p.id)
            if ph.status == "skipped":
                continue
            if status == "completed" or (
                status == "in_progress"
                and current in PHASE_IDS
                and PHASE_IDS.index(p.id) < PHASE_IDS.index(current)
            ):
                ph.status = "completed"
    nxt = next(
        (p for p in PHASES if state.phase(p.id).status not in ("completed", "skipped")), None
    )
    state.currentPhase = nxt.id if nxt else None
    state.currentStage = get_phase(nxt.id).stage if nxt else None
    state.status = "in_progress" if nxt else "completed"
    if isinstance(raw.get("planFilePath"), str):
        state.files["plan"] = raw["planFilePath"]
    state.updatedAt = format_time(now)
    from agents_state.engine.phases import _derive_stages

    _derive_stages(state, format_time(now))
    return state
