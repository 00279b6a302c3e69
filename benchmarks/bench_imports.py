"""Import time per module of each hot command, from ``python -X importtime`` (issue 8).

For ``status``, ``next --json``, ``task done`` and ``hook pre-tool-use`` in a workflow at phase
2.1: the total import time, its share per top-level package (agents_state, click, pydantic,
filelock, orjson, the standard library) and the slowest modules by their own time, each the
median over repeated runs.  A heavy module (watchdog, pydantic, the graph or schema code) on a
hot path shows up here first; ``tests/test_imports.py`` fails the suite if one does.

The engine is the one the plugin installs (``hooks/session-start.sh``, not editable);
``--engine here`` measures this environment (``python -m agents_state``) instead.

    .venv/bin/python benchmarks/bench_imports.py [--runs 7] [--top 12] [--engine here]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from common import chained_tasks, compile_package, plugin_engine, pre_tool_use, workflow_at_tasks

THIRD_PARTY = (
    "agents_state",
    "click",
    "pydantic",
    "pydantic_core",
    "filelock",
    "orjson",
    "typing_extensions",
    "annotated_types",
    "watchdog",
)


def _import_times(
    run: list[str], argv: list[str], stdin: bytes, cwd: Path, env: dict[str, str] | None
) -> dict[str, int]:
    """Module -> its own import time in microseconds, for one run."""
    proc = subprocess.run(
        [*run, *argv], input=stdin, capture_output=True, cwd=cwd, check=False, env=env
    )
    out: dict[str, int] = {}
    for line in proc.stderr.decode().splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, _cumulative, name = line[len("import time:") :].split("|")
            out[name.strip()] = int(own)
    return out


def _package(module: str) -> str:
    top = module.split(".")[0]
    return top if top in THIRD_PARTY else "(standard library, site)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--engine", choices=("plugin", "here"), default="plugin")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="agents-state-bench-"))
    env: dict[str, str] | None = None
    try:
        if args.engine == "plugin":  # what the plugin's users run: no editable-install hooks
            engine, python, env = plugin_engine(root / "engine")
            run = [str(python), "-X", "importtime", str(engine.resolve())]
        else:
            compile_package()
            run = [sys.executable, "-X", "importtime", "-m", "agents_state"]
        workflow_at_tasks(root, chained_tasks(1000), 10)
        hook_in = pre_tool_use(str(root), "Write", {"file_path": "a.py"})
        commands = {
            "status": ["status"],
            "next --json": ["next", "--json"],
            "task done": ["task", "done", "t0"],
            "hook pre-tool-use": ["hook", "pre-tool-use"],
        }
        print(
            f"python {sys.version.split()[0]}, median of {args.runs} runs, 1,000-task "
            f"workflow, engine: {args.engine}; times in ms"
        )
        for label, argv in commands.items():
            runs = [
                _import_times(run, argv, hook_in if argv[0] == "hook" else b"", root, env)
                for _ in range(args.runs)
            ]
            modules = {m: statistics.median(r.get(m, 0) for r in runs) for m in runs[0]}
            per_package: dict[str, float] = defaultdict(float)
            for m, us in modules.items():
                per_package[_package(m)] += us
            total = sum(modules.values())
            shares = ", ".join(
                f"{p} {us / 1000:.1f}"
                for p, us in sorted(per_package.items(), key=lambda kv: -kv[1])
            )
            print(f"\n{label}: {len(modules)} modules, {total / 1000:.1f} ms ({shares})")
            for m, us in sorted(modules.items(), key=lambda kv: -kv[1])[: args.top]:
                print(f"  {us / 1000:6.2f}  {m}")
    finally:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
