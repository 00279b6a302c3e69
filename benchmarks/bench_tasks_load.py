"""`tasks load` at scale: 100, 1,000 and 10,000 tasks (5 dependencies each, so 50,000 at 10k).

Prints median / min / max wall time of the whole `agents-state tasks load` process, paired with
`python -c pass` in the same run, plus the in-process cost of validation and wave planning.

    .venv/bin/python benchmarks/bench_tasks_load.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import compile_package

CLI = str(Path(sys.executable).parent / "agents-state")


def _task_file(n: int, path: Path) -> None:
    tasks = [
        {
            "id": f"t{i}",
            "dependencies": [f"t{j}" for j in range(max(0, i - 5), i)] if i % 100 else [],
        }
        for i in range(n)
    ]
    path.write_text(json.dumps({"tasks": tasks}))


def _at_phase_21(root: Path) -> None:
    from datetime import UTC, datetime

    from agents_state.engine import events as ev
    from agents_state.engine.phases import new_state
    from agents_state.store.files import Store
    from agents_state.types import format_time

    state = new_state(ev.Start(task="bench"), datetime.now(UTC))
    for pid in ("0", "1.1", "1.2", "1.3"):
        state.phase(pid).status = "completed"
    state.currentPhase, state.currentStage = "2.1", "IMPLEMENT"
    state.updatedAt = format_time(datetime.now(UTC))
    from agents_state.engine.phases import Outcome

    Store(root).commit(lambda _: Outcome(state, "bench", True, {}))


def _time(argv: list[str], runs: int, setup: object = None) -> list[float]:
    out = []
    for _ in range(runs):
        if callable(setup):
            setup()
        t = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        out.append(time.perf_counter() - t)
    return out


def _fmt(xs: list[float]) -> str:
    return (
        f"median {statistics.median(xs) * 1000:7.1f} ms  min {min(xs) * 1000:7.1f}  "
        f"max {max(xs) * 1000:7.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    compile_package()
    base = _time([sys.executable, "-c", "pass"], args.runs)
    print(f"python -c pass            {_fmt(base)}")
    for n in (100, 1_000, 10_000):
        tmp = Path(tempfile.mkdtemp())
        _task_file(n, tmp / "tasks.json")

        def setup(tmp: Path = tmp) -> None:
            shutil.rmtree(tmp / ".agents", ignore_errors=True)
            _at_phase_21(tmp)

        xs = _time(
            [CLI, "--root", str(tmp), "tasks", "load", str(tmp / "tasks.json")], args.runs, setup
        )
        deps = sum(
            len(t["dependencies"]) for t in json.loads((tmp / "tasks.json").read_text())["tasks"]
        )
        from agents_state.engine.waves import parse_tasks, plan_waves
        from agents_state.jsonio import loads_strict

        t = time.perf_counter()
        defs = parse_tasks(loads_strict((tmp / "tasks.json").read_bytes(), "t"), "t")
        waves = plan_waves(defs, 10)
        core = time.perf_counter() - t
        size = (tmp / ".agents/state.json").stat().st_size
        print(
            f"tasks load {n:>6} tasks ({deps} deps, {len(waves)} waves)  {_fmt(xs)}  "
            f"ratio {statistics.median(xs) / statistics.median(base):4.1f}x  "
            f"validate+plan {core * 1000:6.1f} ms  state.json {size} bytes"
        )
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
