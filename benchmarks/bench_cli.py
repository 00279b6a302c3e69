"""Whole-process wall time of the hot commands at 100, 1,000 and 10,000 tasks (issue 8).

``status``, ``next --json``, ``task done`` and ``hook pre-tool-use`` (a sub-agent's Write, the
hook's slow path), each run paired with a ``python -c pass`` in the same loop (alternating, so
the ratio holds on a noisy machine); and the size of ``status --json``.  Targets: the hook within
3x of ``python -c pass``; ``status``, ``next`` and ``task done`` within 6x at 1,000 tasks;
``task done`` at 10,000 tasks within 3x of its time at 100.

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
from pathlib import Path

from common import CLI, chained_tasks, compile_package, fmt_ms, workflow_at_tasks

TARGETS = {"status": 6.0, "next": 6.0, "task done": 6.0, "hook": 3.0}


def _run(argv: list[str], stdin: bytes = b"") -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, input=stdin, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sizes", default="100,1000,10000")
    args = ap.parse_args()
    compile_package()
    base_cmd = [sys.executable, "-c", "pass"]
    print(f"python {sys.version.split()[0]}, {args.runs} paired runs per figure")
    medians: dict[tuple[str, int], float] = {}
    misses = []
    for n in (int(x) for x in args.sizes.split(",")):
        root = Path(tempfile.mkdtemp(prefix="agents-state-bench-"))
        workflow_at_tasks(root, chained_tasks(n), 10)
        size = len(
            subprocess.run(
                [CLI, "--root", str(root), "status", "--json"], check=True, capture_output=True
            ).stdout
        )
        print(
            f"\n{n} tasks (state.json {(root / '.agents/state.json').stat().st_size} bytes, "
            f"status --json {size} bytes)"
        )
        hook_in = json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "cwd": str(root),
                "tool_name": "Write",
                "tool_input": {"file_path": "a.py"},
                "agent_id": "a1",
                "agent_type": "subagents:explore",
            }
        ).encode()
        cmds: dict[str, list[str] | None] = {
            "status": [CLI, "--root", str(root), "status"],
            "next": [CLI, "--root", str(root), "next", "--json"],
            "task done": None,
            "hook": [CLI, "hook", "pre-tool-use"],
        }
        for name, argv in cmds.items():
            base, xs = [], []
            for i in range(args.runs):
                base.append(_run(base_cmd))
                if argv is None:  # a different task each run, all in wave 1
                    xs.append(_run([CLI, "--root", str(root), "task", "done", f"t{i % 10}"]))
                else:
                    xs.append(_run(argv, hook_in if name == "hook" else b""))
            ratio = statistics.median(xs) / statistics.median(base)
            medians[(name, n)] = statistics.median(xs)
            if (n == 1000 or name == "hook") and ratio > TARGETS[name]:
                misses.append(f"{name} at {n} tasks: {ratio:.1f}x")
            target = f" (target {TARGETS[name]:.0f}x)" if n == 1000 or name == "hook" else ""
            print(
                f"  {name:<10} {fmt_ms(xs)}   python -c pass {fmt_ms(base)}   "
                f"ratio {ratio:4.1f}x{target}"
            )
        shutil.rmtree(root)
    sizes = sorted({n for _, n in medians})
    if len(sizes) > 1:
        lo, hi = sizes[0], sizes[-1]
        growth = medians[("task done", hi)] / medians[("task done", lo)]
        print(f"\ntask done at {hi} tasks / at {lo} tasks: {growth:.2f}x (target 3x)")
    print("targets missed: " + (", ".join(misses) if misses else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
