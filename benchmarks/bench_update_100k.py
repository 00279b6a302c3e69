"""The cost of one update at 100,000 tasks, whole and step by step (issue 16).

A workflow in phase 2.1 with n tasks (default 100,000: a 34 MB ``state.json``, half the 64 MiB
read cap).  Printed: the wall time of ``task done`` as a process of the installed CLI, then, in
one process, each step of its commit: read the file, decode (parse and validate), apply the
event, encode (dump, validate again, serialise), and the durable write (temp file, fsync,
replace, directory fsync), with the cost per task.  Target (docs/performance.md): one update at
100,000 tasks within 5 s, and no step above 25 microseconds per task.

    .venv/bin/python benchmarks/bench_update_100k.py [--tasks 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from common import CLI, chained_tasks, compile_package, workflow_at_tasks

TARGET_SECONDS = 5.0
TARGET_STEP_US = 25.0


def _median(fn: object, runs: int) -> float:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - start)
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    compile_package()
    from agents_state import events as ev
    from agents_state.codec import decode_state, encode_state
    from agents_state.engine import apply
    from agents_state.store import Store

    n = args.tasks
    root = Path(tempfile.mkdtemp(prefix="agents-state-bench-"))
    try:
        workflow_at_tasks(root, chained_tasks(n), 10)
        store = Store(root)
        size = store.state_path.stat().st_size
        print(f"python {sys.version.split()[0]}, {n} tasks, state.json {size} bytes, "
              f"{args.runs} runs per figure")

        def done(i: list[int] = [0]) -> None:  # noqa: B006 - a counter across runs
            subprocess.run([CLI, "--root", str(root), "task", "done", f"t{i[0]}"], check=True,
                           stdout=subprocess.DEVNULL)
            i[0] += 1

        whole = _median(done, args.runs)
        times: dict[str, list[float]] = {k: [] for k in ("read", "decode", "apply", "encode",
                                                          "durable write")}
        now = datetime.now(UTC)
        for i in range(args.runs):  # the steps of one commit, in its order
            t0 = time.perf_counter()
            raw = store.read_bytes()
            assert raw is not None
            t1 = time.perf_counter()
            state = decode_state(raw, "state.json", for_update=True)
            t2 = time.perf_counter()
            out = apply(state, ev.TaskDone(task_id=f"t{args.runs + i}"), now)
            t3 = time.perf_counter()
            encoded = encode_state(out.state, "state.json")
            t4 = time.perf_counter()
            store.write_file(store.dir / "bench.json", encoded, "bench.json")
            t5 = time.perf_counter()
            for name, seconds in zip(times, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4),
                                     strict=True):
                times[name].append(seconds)
        steps = {name: statistics.median(xs) for name, xs in times.items()}
        print(f"\ntask done (whole process)  {whole:6.2f} s   {whole / n * 1e6:5.1f} us per task"
              f"   target {TARGET_SECONDS:g} s: {'met' if whole <= TARGET_SECONDS else 'MISSED'}")
        for name, seconds in steps.items():
            per = seconds / n * 1e6
            print(f"  {name:<14} {seconds * 1000:8.1f} ms  {per:5.1f} us per task"
                  + ("  (over the per-step target)" if per > TARGET_STEP_US else ""))
    finally:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
