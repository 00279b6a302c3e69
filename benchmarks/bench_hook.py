"""Wall time of ``agents-state hook pre-tool-use`` against a bare ``python -c pass``.

Runs both in pairs, alternating, in the same environment, with an active workflow and a
sub-agent payload that the hook must check (the slow path: root discovery, state read, profile
lookup, deny output).  Prints median / min / max in milliseconds and the ratio of the medians.

    .venv/bin/python benchmarks/bench_hook.py [--runs 40]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import compile_package


def _time(cmd: list[str], stdin: bytes, cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, check=False
    )
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    compile_package()
    exe = Path(sys.executable).with_name("agents-state")
    hook = [str(exe)] if exe.exists() else [sys.executable, "-m", "agents_state"]
    with tempfile.TemporaryDirectory() as tmp:
        agents = Path(tmp) / ".agents"
        agents.mkdir()
        (agents / "state.json").write_text(
            json.dumps(
                {
                    "version": 2,
                    "task": "Add user authentication",
                    "status": "in_progress",
                    "currentPhase": "0",
                }
            )
        )
        payload = json.dumps(
            {
                "session_id": "s",
                "transcript_path": "/tmp/t.jsonl",
                "cwd": tmp,
                "hook_event_name": "PreToolUse",
                "tool_name": "Write",
                "tool_input": {"file_path": "a.ts", "content": "x"},
                "tool_use_id": "t",
                "agent_id": "a1",
                "agent_type": "subagents:explore",
            }
        ).encode()
        env_note = f"python {sys.version.split()[0]}, {os.uname().sysname} {os.uname().machine}"
        base: list[float] = []
        hooked: list[float] = []
        for _ in range(3):  # warm the file cache
            _time([sys.executable, "-c", "pass"], b"", tmp)
            _time([*hook, "hook", "pre-tool-use"], payload, tmp)
        for _ in range(args.runs):
            base.append(_time([sys.executable, "-c", "pass"], b"", tmp))
            hooked.append(_time([*hook, "hook", "pre-tool-use"], payload, tmp))
    print(f"{args.runs} paired runs ({env_note})")
    for name, xs in (("python -c pass", base), ("hook pre-tool-use", hooked)):
        print(
            f"  {name:<18} median {statistics.median(xs):6.1f} ms   min {min(xs):6.1f} ms   "
            f"max {max(xs):6.1f} ms"
        )
    ratio = statistics.median(hooked) / statistics.median(base)
    print(f"  ratio of medians: {ratio:.2f}x (target: within 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
