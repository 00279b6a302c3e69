"""Is the per-step cost flat as the plan grows? (issue 35, item 4)

Times, as whole processes of the engine in this environment (``.venv``), the sizes run in
turn (interleaved, so that other load on the machine falls on both alike):
  hook read   ``hook pre-tool-use`` for an explore agent's Read, at 10 and 10,000 tasks
              (target: 10,000 within 1.5x of 10)
  task done   ``task done --force`` of a different task each run, at 100 and 10,000 tasks
              (target: 10,000 within 2x of 100)
each as the median wall time and the median processor time (user + system) of the process;
and the bytes one ``task done`` writes under ``.agents/`` (the state, its backup or journal,
the hooks' view, the event line).

    .venv/bin/python benchmarks/bench_flat.py [--runs 21] [--big 10000]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import CLI, chained_tasks, compile_package, pre_tool_use, workflow_at_tasks

HOOK_TARGET = 1.5
DONE_TARGET = 2.0


def _run(cmd: list[str], stdin: bytes, cwd: str) -> tuple[float, float]:
    """(wall, processor) milliseconds of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True, check=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu * 1000


def _sizes(agents: Path) -> dict[str, tuple[int, int]]:
    return {
        p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in agents.iterdir() if p.is_file()
    }


def _written(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> int:
    total = 0
    for name, (n, _) in after.items():  # appended logs: what grew; the rest: rewritten
        if after[name] != before.get(name) and name != "lock-owner":
            grown = name.endswith((".journal", ".jsonl")) and name in before
            total += n - before[name][0] if grown else n
    return total


def _median(xs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(x for x, _ in xs), statistics.median(y for _, y in xs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--big", type=int, default=10000)
    args = ap.parse_args()
    compile_package()
    print(f"python {sys.version.split()[0]}, {args.runs} runs per figure, engine: {CLI}")
    tmp = Path(tempfile.mkdtemp(prefix="agents-state-flat-"))
    try:
        roots = {}
        for n in sorted({10, 100, args.big}):
            roots[n] = tmp / str(n)
            roots[n].mkdir()
            workflow_at_tasks(roots[n], chained_tasks(n), 10)
        hook: dict[int, list[tuple[float, float]]] = {10: [], args.big: []}
        done: dict[int, list[tuple[float, float]]] = {100: [], args.big: []}
        wrote: dict[int, list[int]] = {100: [], args.big: []}
        cmd = [CLI, "hook", "pre-tool-use"]
        for i in range(-2, args.runs):  # two runs first to warm the file cache
            for n in hook:
                root = str(roots[n])
                took = _run(cmd, pre_tool_use(root, "Read", {"file_path": f"{root}/a.py"}), root)
                if i >= 0:
                    hook[n].append(took)
            for n in done:
                agents = roots[n] / ".agents"
                before = _sizes(agents)
                argv = [CLI, "--root", str(roots[n]), "task", "done", f"t{i + 2}", "--force"]
                took = _run(argv, b"", "/")
                if i >= 0:
                    done[n].append(took)
                    wrote[n].append(_written(before, _sizes(agents)))
        for n, xs in hook.items():
            wall, cpu = _median(xs)
            print(f"hook read  {n:>6} tasks: wall {wall:6.1f} ms, processor {cpu:6.1f} ms")
        for n, xs in done.items():
            wall, cpu = _median(xs)
            size = (roots[n] / ".agents" / "state.json").stat().st_size
            print(
                f"task done  {n:>6} tasks: wall {wall:6.1f} ms, processor {cpu:6.1f} ms; "
                f"state.json {size} B, written per update {statistics.median(wrote[n]):.0f} B"
            )
        big = args.big
        for what, table, lo, target in (
            ("hook read", hook, 10, HOOK_TARGET),
            ("task done", done, 100, DONE_TARGET),
        ):
            (w_hi, c_hi), (w_lo, c_lo) = _median(table[big]), _median(table[lo])
            print(
                f"{what} at {big} / at {lo} tasks: wall {w_hi / w_lo:.2f}x, processor "
                f"{c_hi / c_lo:.2f}x (target {target}x)"
            )
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
