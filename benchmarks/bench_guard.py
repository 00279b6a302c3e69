"""Cost of the PreToolUse profile decision on what a call touches (issue 16), in process.

Builds a project of N source files (default 5,000, in 250 folders) with a ``.env`` at its top,
then times ``subagent_denial`` for a reader's Read, Grep and Glob and a validator's Bash, and
the real ``agents-state hook pre-tool-use`` process for a reader's Grep over the whole tree.
Prints median / min / max in milliseconds.

    .venv/bin/python benchmarks/bench_guard.py [--files 5000] [--runs 30]
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
from typing import Any

from common import compile_package


def _project(root: Path, files: int) -> None:
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text(json.dumps({"status": "in_progress"}))
    (root / ".env").write_text("KEY=1\n")
    for i in range(files):
        folder = root / "src" / f"m{i % 250}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.ts").write_text("export {}\n")


def _payload(root: Path, tool: str, tool_input: dict[str, Any], agent: str) -> dict[str, Any]:
    return {
        "cwd": str(root),
        "tool_name": tool,
        "tool_input": tool_input,
        "agent_id": "a",
        "agent_type": agent,
        "hook_event_name": "PreToolUse",
    }


def _line(name: str, xs: list[float]) -> str:
    return (
        f"  {name:<44} median {statistics.median(xs):7.2f} ms   min {min(xs):7.2f}   "
        f"max {max(xs):7.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    compile_package()
    from agents_state.hooks.profile_check import subagent_denial

    cases = [
        ("Read src/m1/f1.ts (reader)", "Read", {"file_path": "src/m1/f1.ts"}, "subagents:explore"),
        (
            "Grep path=src/m1 (reader)",
            "Grep",
            {"pattern": "x", "path": "src/m1"},
            "subagents:explore",
        ),
        (
            "Grep glob=*.ts over the tree (reader)",
            "Grep",
            {"pattern": "x", "glob": "*.ts"},
            "subagents:explore",
        ),
        ("Glob **/*.ts (reader)", "Glob", {"pattern": "**/*.ts"}, "subagents:explore"),
        (
            "Bash 'pytest -q 2>&1 | tail' (validator)",
            "Bash",
            {"command": "pytest -q 2>&1 | tail -5"},
            "subagents:quality-checker",
        ),
        (
            "Bash 'cat src/m1/*.ts' (validator)",
            "Bash",
            {"command": "cat src/m1/*.ts"},
            "subagents:quality-checker",
        ),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        _project(root, args.files)
        os.chdir(root)
        print(f"{args.files:,} files in 250 folders, {args.runs} runs each, in process")
        for name, tool, tool_input, agent in cases:
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                reason = subagent_denial(_payload(root, tool, tool_input, agent), None)
                times.append((time.perf_counter() - start) * 1000)
            assert not isinstance(reason, str), reason  # allowed (a Bash call: contained)
            print(_line(name, times))
        exe = Path(sys.executable).with_name("agents-state")
        hook = [str(exe)] if exe.exists() else [sys.executable, "-m", "agents_state"]
        stdin = json.dumps(
            _payload(root, "Grep", {"pattern": "x", "glob": "*.ts"}, "subagents:explore")
        ).encode()
        proc_times = []
        for _ in range(max(5, args.runs // 3)):
            start = time.perf_counter()
            subprocess.run(
                [*hook, "hook", "pre-tool-use"],
                input=stdin,
                capture_output=True,
                cwd=root,
                check=True,
            )
            proc_times.append((time.perf_counter() - start) * 1000)
        print("real process:")
        print(_line("hook pre-tool-use, Grep glob=*.ts (reader)", proc_times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
