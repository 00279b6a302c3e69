"""Shared by the benchmarks: a workflow at phase 2.1 written straight through the engine, and
the figures each script prints (median, min, max)."""

from __future__ import annotations

import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CLI = str(Path(sys.executable).parent / "agents-state")


def compile_package() -> None:
    """Write the package's bytecode first, as installing a wheel does: an editable install with
    ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every module in every timed run."""
    import compileall

    import agents_state

    compileall.compile_dir(str(Path(agents_state.__file__).parent), quiet=1)


def workflow_at_tasks(root: Path, tasks: list[dict[str, Any]], wave_size: int) -> None:
    """A workflow in phase 2.1 with ``tasks`` loaded in waves of ``wave_size``, wave 1 running."""
    from agents_state.engine import events as ev
    from agents_state.engine.phases import Outcome, apply, new_state
    from agents_state.engine.waves import parse_tasks, plan_waves
    from agents_state.store.files import Store

    now = datetime.now(UTC)
    state = new_state(ev.Start(task="bench"), now)
    for pid in ("0", "1.1", "1.2", "1.3"):
        state.phase(pid).status = "completed"
    state.currentPhase, state.currentStage = "2.1", "IMPLEMENT"
    defs = parse_tasks({"tasks": tasks}, "bench")
    load = ev.TasksLoad(
        tasks=tuple((d.id, d.as_state()) for d in defs),
        waves=tuple(tuple(w) for w in plan_waves(defs, wave_size)),
    )
    state = apply(state, load, now).state
    Store(root).commit(lambda _: Outcome(state, "bench", True, {}))


def chained_tasks(n: int, width: int = 10) -> list[dict[str, Any]]:
    """``n`` tasks in layers of ``width``, each depending on the one ``width`` before it."""
    return [
        {"id": f"t{i}", "dependencies": [f"t{i - width}"] if i >= width else []} for i in range(n)
    ]


def fmt_ms(xs: list[float]) -> str:
    """Median, min and max of seconds, in milliseconds."""
    return (
        f"median {statistics.median(xs) * 1000:7.1f} ms  min {min(xs) * 1000:7.1f}  "
        f"max {max(xs) * 1000:7.1f}"
    )
