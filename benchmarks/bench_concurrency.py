"""N concurrent writers of the installed CLI: updates per second and lost updates (issue 8).

For N = 1, 10, 50: a workflow in phase 2.1 whose first wave holds N tasks; N ``task done``
processes run one after another (serial), then, on a fresh copy, all N at once (concurrent).
Each update must land: afterwards every task is completed, the revision grew by exactly N and
``events.jsonl`` has N more lines.  Target: for N = 50, the concurrent wall time is at most 1.5x
the serial time divided by the number of cores.

    .venv/bin/python benchmarks/bench_concurrency.py [--writers 1,10,50] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import CLI, compile_package, workflow_at_tasks


def _workflow(root: Path, n: int) -> None:
    """Phase 2.1 with n independent tasks in wave 1 and a task 'final' after all of them."""
    ids = [f"t{i}" for i in range(n)]
    workflow_at_tasks(
        root,
        [{"id": t, "dependencies": []} for t in ids] + [{"id": "final", "dependencies": ids}],
        n,
    )


def _snapshot(root: Path) -> tuple[int, int]:
    state = json.loads((root / ".agents/state.json").read_bytes())
    log = root / ".agents/events.jsonl"
    events = log.read_bytes().count(b"\n") if log.exists() else 0
    return int(state["revision"]), events


def _check(root: Path, n: int, before: tuple[int, int], codes: list[int]) -> int:
    """The number of lost updates (0 when every update landed)."""
    state = json.loads((root / ".agents/state.json").read_bytes())
    tasks = state["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]
    done = sum(1 for i in range(n) if tasks[f"t{i}"]["status"] == "completed")
    revision, events = _snapshot(root)
    failed = sum(1 for c in codes if c != 0)
    lost = max(n - done, n - (revision - before[0]), n - (events - before[1]))
    if failed:
        print(f"    {failed} of {n} processes failed")
    return lost


def _serial(root: Path, n: int) -> tuple[float, int]:
    before = _snapshot(root)
    start = time.perf_counter()
    codes = [
        subprocess.run(
            [CLI, "--root", str(root), "task", "done", f"t{i}"],
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ).returncode
        for i in range(n)
    ]
    return time.perf_counter() - start, _check(root, n, before, codes)


def _concurrent(root: Path, n: int) -> tuple[float, int]:
    before = _snapshot(root)
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [CLI, "--root", str(root), "task", "done", f"t{i}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i in range(n)
    ]
    codes = [p.wait() for p in procs]
    return time.perf_counter() - start, _check(root, n, before, codes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writers", default="1,10,50")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    compile_package()
    cores = os.cpu_count() or 1
    print(
        f"python {sys.version.split()[0]}, {cores} cores, {args.runs} runs per figure "
        "(median; min-max)"
    )
    worst = 0.0
    total_lost = 0
    for n in (int(x) for x in args.writers.split(",")):
        serial: list[float] = []
        concurrent: list[float] = []
        for _ in range(args.runs):
            for mode, runs in ((_serial, serial), (_concurrent, concurrent)):
                root = Path(tempfile.mkdtemp(prefix="agents-state-bench-"))
                try:
                    _workflow(root, n)
                    seconds, lost = mode(root, n)
                finally:
                    shutil.rmtree(root)
                runs.append(seconds)
                total_lost += lost
        s, c = statistics.median(serial), statistics.median(concurrent)
        ratio = c / (s / cores)
        worst = max(worst, ratio) if n >= 10 else worst
        print(
            f"  N={n:<3} serial {s * 1000:7.0f} ms ({n / s:5.1f} updates/s)   concurrent "
            f"{c * 1000:7.0f} ms ({n / c:5.1f} updates/s; {min(concurrent) * 1000:.0f}-"
            f"{max(concurrent) * 1000:.0f})   concurrent / (serial / cores) {ratio:4.2f}x"
        )
    print(
        f"lost updates: {total_lost} (target 0); worst ratio for N >= 10: {worst:.2f}x "
        "(target at most 1.5x)"
    )
    return 1 if total_lost else 0


if __name__ == "__main__":
    sys.exit(main())
