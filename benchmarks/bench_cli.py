"""Whole-process wall time of hot commands at 100, 1,000 and 10,000 tasks, paired with
`python -c pass` in the same run (alternating, so the ratio holds on a noisy machine), and the
size of `status --json`.

    .venv/bin/python benchmarks/bench_cli.py [--runs 15] [--sizes 100,1000,10000]
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
from datetime import UTC, datetime
from pathlib import Path

CLI = str(Path(sys.executable).parent / "agents-state")


def _workflow(root: Path, n: int) -> None:
    """A workflow in phase 2.1 with n tasks in waves of 10, wave 1 running."""
    from agents_state import events as ev
    from agents_state.engine import Outcome, apply, new_state
    from agents_state.store import Store
    from agents_state.waves import parse_tasks, plan_waves

    now = datetime.now(UTC)
    state = new_state(ev.Start(task="bench"), now)
    for pid in ("0", "1.1", "1.2", "1.3"):
        state.phase(pid).status = "completed"
    state.currentPhase, state.currentStage = "2.1", "IMPLEMENT"
    defs = parse_tasks({"tasks": [{"id": f"t{i}", "dependencies": [f"t{i - 10}"] if i >= 10
                                   else []} for i in range(n)]}, "bench")
    load = ev.TasksLoad(tasks=tuple((d.id, d.as_state()) for d in defs),
                        waves=tuple(tuple(w) for w in plan_waves(defs, 10)))
    state = apply(state, load, now).state
    Store(root).commit(lambda _: Outcome(state, "bench", True, {}))


def _run(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def _fmt(xs: list[float]) -> str:
    return (f"median {statistics.median(xs) * 1000:7.1f} ms  min {min(xs) * 1000:7.1f}  "
            f"max {max(xs) * 1000:7.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sizes", default="100,1000,10000")
    args = ap.parse_args()
    base_cmd = [sys.executable, "-c", "pass"]
    print(f"python {sys.version.split()[0]}, {args.runs} paired runs per figure")
    medians: dict[tuple[str, int], float] = {}
    for n in (int(x) for x in args.sizes.split(",")):
        root = Path(tempfile.mkdtemp(prefix="agents-state-bench-"))
        _workflow(root, n)
        size = len(subprocess.run([CLI, "--root", str(root), "status", "--json"], check=True,
                                  capture_output=True).stdout)
        print(f"\n{n} tasks (state.json {(root / '.agents/state.json').stat().st_size} bytes, "
              f"status --json {size} bytes)")
        cmds = {
            "status": [CLI, "--root", str(root), "status"],
            "next": [CLI, "--root", str(root), "next", "--json"],
            "task done": None,
        }
        for name, argv in cmds.items():
            base, xs = [], []
            for i in range(args.runs):
                base.append(_run(base_cmd))
                if argv is None:  # a different task each run, all in wave 1
                    xs.append(_run([CLI, "--root", str(root), "task", "done", f"t{i % 10}"]))
                else:
                    xs.append(_run(argv))
            ratio = statistics.median(xs) / statistics.median(base)
            medians[(name, n)] = statistics.median(xs)
            print(f"  {name:<10} {_fmt(xs)}   python -c pass {_fmt(base)}   ratio {ratio:4.1f}x")
        shutil.rmtree(root)
    sizes = sorted({n for _, n in medians})
    if len(sizes) > 1:
        lo, hi = sizes[0], sizes[-1]
        growth = medians[("task done", hi)] / medians[("task done", lo)]
        print(f"\ntask done at {hi} tasks / at {lo} tasks: {growth:.2f}x")
    _ = json  # kept for callers that parse the output


if __name__ == "__main__":
    main()
