"""How soon ``watch`` draws an update (issue 9; measured here since issue 18 took the timed
assertions out of tests/views/test_watch.py).

Usage: .venv/bin/python benchmarks/bench_watch.py [--runs 20] [--poll]

Starts ``agents-state watch --plain`` on a workflow at phase 2.1, then one ``task done`` at a
time; for each, the delay from the moment the state file was replaced (its mtime) to the moment
the frame with the new revision arrived on the watcher's stdout.  ``--poll`` disables file
system events (the network file system fallback, 0.2 s interval).
"""

from __future__ import annotations

import argparse
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import CLI, compile_package, fmt_ms, workflow_at_tasks


def _frame_of(proc: subprocess.Popen[bytes], revision: int, timeout: float = 30) -> float:
    """The arrival time of the line that shows ``revision``."""
    assert proc.stdout is not None
    fd, buf, want = proc.stdout.fileno(), b"", f"revision {revision} ".encode()
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        now = time.time()
        buf += chunk
        if want in buf:
            return now
        buf = buf[-4096:]
    raise SystemExit(f"revision {revision} not shown within {timeout}s")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--poll", action="store_true")
    args = ap.parse_args()
    compile_package()
    delays: list[float] = []
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        workflow_at_tasks(
            root, [{"id": f"t{i}", "dependencies": []} for i in range(args.runs)], args.runs
        )
        env = {**os.environ, **({"AGENTS_STATE_WATCH_POLL": "1"} if args.poll else {})}
        cmd = [CLI, "--root", str(root), "watch", "--plain", "--interval", "0.2"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        try:
            state = root / ".agents" / "state.json"
            revision = _revision(state)
            _frame_of(proc, revision)
            for i in range(args.runs):
                subprocess.run(
                    [CLI, "--root", str(root), "task", "done", f"t{i}"],
                    check=True,
                    capture_output=True,
                )
                revision += 1
                shown = _frame_of(proc, revision)
                delays.append(shown - os.stat(state).st_mtime)
        finally:
            proc.terminate()
            proc.wait()
    mode = "polling (0.2 s)" if args.poll else "file system events"
    print(
        f"watch, {mode}: state replaced -> frame shown  {fmt_ms(delays)}  ({len(delays)} updates)"
    )
    return 0


def _revision(path: Path) -> int:
    import json

    revision: int = json.loads(path.read_bytes())["revision"]
    return revision


if __name__ == "__main__":
    sys.exit(main())
