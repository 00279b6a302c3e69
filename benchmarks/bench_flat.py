"""Is the per-step cost flat as the plan grows? (issue 35, item 4)

Times, as whole processes of the engine in this environment (``.venv``):
  hook read   ``hook pre-tool-use`` for an explore agent's Read, at 10 and 10,000 tasks
              (target: 10,000 within 1.5x of 10)
  task done   ``task done`` of a different task each run, at 100 and 10,000 tasks
              (target: 10,000 within 2x of 100)
and the bytes one ``task done`` writes under ``.agents/`` at each size (the state, its backup
or journal, the hooks' view).  Each figure is the median of ``--runs`` runs.

    .venv/bin/python benchmarks/bench_flat.py [--runs 15] [--big 10000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from common import CLI, chained_tasks, compile_package, pre_tool_use, time_ms, workflow_at_tasks

HOOK_TARGET = 1.5
DONE_TARGET = 2.0


def _sizes(agents: Path) -> dict[str, tuple[int, int]]:
    return {
        p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in agents.iterdir() if p.is_file()
    }


def _hook(root: Path, runs: int) -> float:
    payload = pre_tool_use(str(root), "Read", {"file_path": f"{root}/src/a.py"})
    cmd = [CLI, "hook", "pre-tool-use"]
    for _ in range(3):
        time_ms(cmd, payload, str(root), None)
    return statistics.median(time_ms(cmd, payload, str(root), None) for _ in range(runs))


def _done(root: Path, runs: int) -> tuple[float, int]:
    agents = root / ".agents"
    times, written = [], 0
    for i in range(runs):
        before = _sizes(agents)
        cmd = [CLI, "--root", str(root), "task", "done", f"t{i}", "--force"]
        times.append(time_ms(cmd, b"", "/", None))
        after = _sizes(agents)
        for name, (n, _) in after.items():  # appended logs: what grew; the rest: rewritten
            if after[name] != before.get(name):
                grown = name.endswith((".journal", ".jsonl")) and name in before
                written += n - before[name][0] if grown else n
    return statistics.median(times), written // runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--big", type=int, default=10000)
    args = ap.parse_args()
    compile_package()
    print(f"python {sys.version.split()[0]}, {args.runs} runs per figure, engine: {CLI}")
    hook: dict[int, float] = {}
    done: dict[int, float] = {}
    for n in sorted({10, 100, args.big}):
        root = Path(tempfile.mkdtemp(prefix="agents-state-flat-"))
        try:
            workflow_at_tasks(root, chained_tasks(n), 10)
            size = os.path.getsize(root / ".agents" / "state.json")
            if n != 100:
                hook[n] = _hook(root, args.runs)
                print(f"{n:>6} tasks ({size:>8} B state): hook read {hook[n]:6.1f} ms")
            if n != 10:
                done[n], wrote = _done(root, args.runs)
                print(
                    f"{n:>6} tasks ({size:>8} B state): task done {done[n]:6.1f} ms, "
                    f"writes ~{wrote} B per update"
                )
        finally:
            shutil.rmtree(root)
    h = hook[args.big] / hook[10]
    d = done[args.big] / done[100]
    print(f"hook read at {args.big} / at 10 tasks: {h:.2f}x (target {HOOK_TARGET}x)")
    print(f"task done at {args.big} / at 100 tasks: {d:.2f}x (target {DONE_TARGET}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
