"""Whole-process time of the chain and handoff commands (issue 35, item 3: the chain state on the
records, pydantic only where a model's answer is validated), against the Click + orjson floor.

    $ .venv/bin/python benchmarks/bench_chain.py --runs 15

Each round runs every command once, in turn (so load on the machine falls on all alike), in a
fresh git folder holding one ``code`` chain; prints the median, min and max processor time of
each and its ratio to ``python -c "import click, orjson"``; and whether each loaded pydantic.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import CLI, compile_package


def cpu_ms(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Processor time (user + system) of one whole process, in milliseconds: on a machine
    shared with other work, wall time mostly measures the others."""
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return (usage.ru_utime + usage.ru_stime) * 1000


RESPONSE = {
    "task_id": "research-1",
    "phase": "research",
    "status": "complete",
    "decision": "PROCEED",
    "context_summary": "The routes live in src/routes; add health.ts beside them.",
    "findings": {"files": ["src/routes/index.ts"]},
}

COMMANDS = {
    "chain next": ["chain", "next"],
    "chain list": ["chain", "list", "--json"],
    "chain request": ["chain", "request"],
    "handoff validate": ["handoff", "validate", "response.json"],
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(
            [CLI, "chain", "start", "code", "Add a health route"],
            cwd=root,
            check=True,
            capture_output=True,
        )
        (root / "response.json").write_text(json.dumps(RESPONSE))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        floor = [sys.executable, "-c", "import click, orjson"]
        times: dict[str, list[float]] = {name: [] for name in ["floor", *COMMANDS]}
        for _ in range(args.runs):
            times["floor"].append(cpu_ms(floor, root, env))
            for name, argv in COMMANDS.items():
                times[name].append(cpu_ms([CLI, *argv], root, env))
        base = statistics.median(times["floor"])
        for name, got in times.items():
            med = statistics.median(got)
            loaded = ""
            if name in COMMANDS:
                probe = subprocess.run(
                    [sys.executable, "-X", "importtime", "-m", "agents_state", *COMMANDS[name]],
                    cwd=root,
                    capture_output=True,
                    text=True,
                    env=env,
                    check=False,
                )
                loaded = "pydantic" if " pydantic\n" in probe.stderr else "no pydantic"
            print(
                f"{name:17} median {med:6.1f} ms  min {min(got):6.1f}  max {max(got):6.1f}"
                f"  ratio {med / base:4.2f}x  {loaded}"
            )


if __name__ == "__main__":
    main()
