"""What the records cost a command (issue 18): defining them, and generating their functions.

1. In fresh interpreters: importing ``models`` and ``config`` (which checks every field of their
   19 records at definition: annotations resolved, checks built, defaults checked), then the
   first use of ``State`` and ``Config`` (their build functions), each the median of the runs.
2. In a 1,000-task workflow at phase 2.1, per hot command: how many straight-line build and
   dump functions it generates (``codegen.generate``) and how long that takes, in process.

    .venv/bin/python benchmarks/bench_records.py [--runs 15]
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from common import chained_tasks, compile_package, workflow_at_tasks

_FRESH = """
import time
t0 = time.perf_counter()
import agents_state.models, agents_state.config
t1 = time.perf_counter()
from agents_state.config import Config
from agents_state.models import State
State.model_validate({"task": "t", "stages": {"PLAN": {"phases": {"1.1": {}}}}})
Config.model_validate({})
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def _fresh(runs: int) -> None:
    define, first = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True
        ).stdout.split()
        define.append(float(out[0]) * 1e3)
        first.append(float(out[1]) * 1e3)
    d, f = statistics.median(define), statistics.median(first)
    print(
        f"import models + config {d:5.1f} ms   first use of State and Config {f:5.1f} ms   "
        f"together {d + f:5.1f} ms   (median of {runs} fresh interpreters)"
    )


def _generated(argv: list[str], root: Path) -> tuple[int, float]:
    from agents_state.__main__ import main
    from agents_state.records import codegen
    from agents_state.records.base import Record

    stack: list[Any] = [Record]
    while stack:  # as a fresh process: nothing generated yet
        cls = stack.pop()
        stack += cls.__subclasses__()
        cls._spec = None
    made: list[float] = []
    real = codegen.generate

    def timed(lines: list[str], env: dict[str, Any]) -> Any:
        start = time.perf_counter()
        try:
            return real(lines, env)
        finally:
            made.append(time.perf_counter() - start)

    # both names: before issue 18, ``records.base`` imported ``generate`` from ``codegen``
    scopes = [vars(codegen), vars(sys.modules["agents_state.records.base"])]
    scopes = [scope for scope in scopes if "generate" in scope]
    for scope in scopes:
        scope["generate"] = timed
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            main(["--root", str(root), *argv])
    except SystemExit:
        pass
    finally:
        for scope in scopes:
            scope["generate"] = real
    return len(made), sum(made) * 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    compile_package()
    print(f"python {sys.version.split()[0]}")
    _fresh(args.runs)
    root = Path(tempfile.mkdtemp(prefix="agents-state-bench-"))
    try:
        workflow_at_tasks(root, chained_tasks(1000), 10)
        for argv in (["status"], ["next", "--json"], ["task", "done", "t0"]):
            count, ms = _generated(argv, root)
            print(f"{' '.join(argv):12s} generates {count:2d} functions in {ms:5.1f} ms")
    finally:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
