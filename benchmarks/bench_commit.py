"""The in-process cost of one commit against a bare fsync + replace of the same bytes (issue 8).

A commit takes the lock, re-reads and decodes (validates) the state, applies an event, encodes
(validates again), writes a temporary file, fsyncs it, replaces ``state.json``, fsyncs the
directory, refreshes ``state.json.bak`` and appends to ``events.jsonl``.  The baseline writes the
same bytes to a temporary file, fsyncs, replaces and fsyncs the directory, nothing else.  Also
printed: the decode, apply and encode steps alone, to show where the time goes as tasks grow.

    .venv/bin/python benchmarks/bench_commit.py [--runs 20] [--sizes 100,1000,10000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents_state.engine.phases import Outcome
    from agents_state.models import State

from common import chained_tasks, compile_package, fmt_ms, workflow_at_tasks


def _bare_replace(directory: Path, data: bytes) -> None:
    tmp = directory / ".bench.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, directory / "bare.json")
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _touch(state: State | None) -> Outcome:
    """A commit's mutation that always changes the state (the bytes written grow by nothing)."""
    from agents_state.engine.phases import Outcome

    assert state is not None
    state.revision += 1
    return Outcome(state, "bench", True, {"event": "bench"})


def _timed(fn: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - start)
    return out


def _measure(n: int, runs: int) -> tuple[int, dict[str, list[float]]]:
    from agents_state.engine import events as ev
    from agents_state.engine.phases import apply
    from agents_state.store.codec import decode_state, encode_state
    from agents_state.store.files import Store

    root = Path(tempfile.mkdtemp(prefix="agents-state-bench-"))
    try:
        workflow_at_tasks(root, chained_tasks(n), 10)
        store = Store(root)
        data = store.state_path.read_bytes()
        now = datetime.now(UTC)
        done = ev.TaskDone(task_id="t0")
        state = decode_state(data, "state.json")
        return len(data), {
            "commit": _timed(lambda: store.commit(_touch), runs),
            "bare replace": _timed(lambda: _bare_replace(store.dir, data), runs),
            "decode": _timed(lambda: decode_state(data, "state.json"), runs),
            "apply": _timed(lambda: apply(state, done, now), runs),
            "encode": _timed(lambda: encode_state(state, "state.json"), runs),
        }
    finally:
        shutil.rmtree(root)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--sizes", default="100,1000,10000")
    args = ap.parse_args()
    compile_package()
    print(f"python {sys.version.split()[0]}, {args.runs} runs per figure")
    for n in (int(x) for x in args.sizes.split(",")):
        size, figures = _measure(n, args.runs)
        ratio = statistics.median(figures["commit"]) / statistics.median(figures["bare replace"])
        print(f"\n{n} tasks (state.json {size} bytes)")
        for name, xs in figures.items():
            note = f"   commit / bare replace {ratio:.1f}x" if name == "bare replace" else ""
            print(f"  {name:<13} {fmt_ms(xs)}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
