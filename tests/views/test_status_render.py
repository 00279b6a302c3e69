"""Issue 9: ``status`` for people — snapshots of a fresh, a mid-wave, a failed and a completed
workflow, rendered in-process with a fixed clock (set UPDATE_SNAPSHOTS=1 to rewrite them)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from clitools import cli_json, run_cli

from agents_state.models import State
from agents_state.views.render import age, colorize, progress_bar, render_status
from views.states import LEASE, action, at, completed, failed, fresh, mid_wave

SNAPSHOTS = Path(__file__).parent / "snapshots"
EXAMPLE = Path(__file__).parent.parent.parent / ".agents.example"

CASES: dict[str, tuple[Callable[[], State], float, bool]] = {
    "fresh": (fresh, 0.5, False),
    "mid-wave": (mid_wave, 60, False),
    "mid-wave-verbose": (mid_wave, 60, True),
    "failed": (failed, 90, False),
    "completed": (completed, 200, False),
}


def _check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / f"status-{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(text + "\n", encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text + "\n", f"snapshot {path.name} differs"


@pytest.mark.parametrize("name", list(CASES))
def test_status_snapshot(name: str) -> None:
    build, minute, verbose = CASES[name]
    state = build()
    text = render_status(state, action(state, minute), at(minute), LEASE, verbose)
    _check_snapshot(name, text)


def test_mid_wave_shows_progress_stale_claim_and_retry() -> None:
    state = mid_wave()
    text = render_status(state, action(state, 60), at(60), LEASE)
    assert "wave 2/3 [█▒░] 1 done · 1 running · 1 pending · 0 failed" in text
    assert "STALE task-4: claimed by agent-a 35m ago, silent for 35m (claimable again)" in text
    assert (
        "↻ task-5 retries at 2026-01-29T11:00:02Z (attempt 1 failed: linking table missing)" in text
    )
    assert text.splitlines()[-1].startswith("  then:  agents-state task done")


def test_failure_in_plain_words_and_next_action_last() -> None:
    state = failed()
    lines = render_status(state, action(state, 90), at(90), LEASE).splitlines()
    fail = next(i for i, line in enumerate(lines) if line.startswith("  FAILED"))
    assert lines[fail] == (
        "  FAILED in phase 2.1 Parallel Task Execution at 2026-01-29T11:21:00Z:"
        " task task-5 failed after 3 attempt(s): linking table missing"
    )
    assert lines[fail + 2] == (
        "    to continue: agents-state resume (then --retry, --skip or --abort)"
    )
    assert lines[fail + 3].startswith("NEXT: ask the user")


def test_legacy_string_failure_without_phase() -> None:
    state = State.model_validate({"task": "t", "status": "failed", "failure": "agent crashed"})
    from agents_state.engine.events import Start
    from agents_state.engine.phases import new_state

    base = new_state(Start(task="t"), at(0))
    base.status, base.failure = "failed", state.failure
    text = render_status(base, action(base, 1), at(1), LEASE)
    assert "  FAILED in an unknown phase at ?: agent crashed" in text


@pytest.mark.parametrize(
    ("counts", "bar"),
    [
        ({"completed": 1, "in_progress": 1, "pending": 1}, "█▒░"),
        ({"completed": 50}, "█" * 20),
        ({"completed": 25, "in_progress": 10, "pending": 10, "failed": 5}, "██████████▒▒▒▒░░░░✗✗"),
        ({"pending": 0}, ""),
    ],
)
def test_progress_bar(counts: dict[str, int], bar: str) -> None:
    assert progress_bar(counts) == bar


@pytest.mark.parametrize(
    ("then_minutes", "text"),
    [(59.5, "30s"), (41, "19m"), (60 - 185, "3h05m"), (60 - 60 * 52, "2d04h")],
)
def test_age(then_minutes: float, text: str) -> None:
    from agents_state.types import format_time

    assert age(format_time(at(then_minutes)), at(60)) == text


def test_colorize_marks_only() -> None:
    assert colorize("✓ done · FAILED") == "\x1b[32m✓\x1b[0m done · \x1b[1;31mFAILED\x1b[0m"


def test_status_command_on_the_example_folder(root: Path) -> None:
    shutil.copytree(EXAMPLE, root / ".agents")
    proc = run_cli(root, "status")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout  # no colour when stdout is not a terminal
    assert "        wave 2/3 [▒░] 0 done · 1 running · 1 pending · 0 failed" in proc.stdout
    assert "STALE task-4: claimed by task-agent-4" in proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("  then:")
    verbose = run_cli(root, "status", "--verbose").stdout
    assert "          ▶ task-4 Callback routes (by task-agent-4, for " in verbose
    assert (
        "currentWave"
        in cli_json(root, "status")["workflow"]["stages"]["IMPLEMENT"]["phases"]["2.1"]
    )
