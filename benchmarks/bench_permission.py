"""Wall time of the approvals hook (``bin/agents-state hook permission``, issue 14).

It runs before every Bash, Write, Edit and Skill call, also without a workflow.  Two paths, each
paired with a bare ``python -c pass`` (alternating, so the ratio holds on a noisy machine):

- a call that cannot be an engine step (``make test``): the launcher's shell pre-filter answers
  without starting Python;
- an engine step (``agents-state next --json``): Python decides and prints the allow.

The engine is the one the plugin installs (``hooks/session-start.sh``), as in ``bench_hook.py``.

    .venv/bin/python benchmarks/bench_permission.py [--runs 40]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from common import REPO, plugin_engine, time_ms

LAUNCHER = REPO / "bin" / "agents-state"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        _engine, python, env = plugin_engine(Path(tmp) / "engine")
        (Path(tmp) / ".agents" / "phases").mkdir(parents=True)

        def payload(command: str) -> bytes:
            return json.dumps(
                {
                    "session_id": "s",
                    "cwd": tmp,
                    "hook_event_name": "PreToolUse",
                    "tool_name": "Bash",
                    "tool_input": {"command": command},
                }
            ).encode()

        cases = {
            "python -c pass": ([str(python), "-c", "pass"], b""),
            "filtered (make test)": ([str(LAUNCHER), "hook", "permission"], payload("make test")),
            "approved (engine step)": (
                [str(LAUNCHER), "hook", "permission"],
                payload("agents-state next --json"),
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(3):  # warm the file cache
            for cmd, stdin in cases.values():
                time_ms(cmd, stdin, tmp, env)
        for _ in range(args.runs):
            for name, (cmd, stdin) in cases.items():
                times[name].append(time_ms(cmd, stdin, tmp, env))
    print(f"{args.runs} runs each (python {sys.version.split()[0]}, {os.uname().sysname})")
    base = statistics.median(times["python -c pass"])
    for name, xs in times.items():
        print(
            f"  {name:<24} median {statistics.median(xs):6.1f} ms   min {min(xs):6.1f} ms   "
            f"ratio {statistics.median(xs) / base:4.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
