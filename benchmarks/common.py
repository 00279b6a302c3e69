"""Shared by the benchmarks: a workflow at phase 2.1 written straight through the engine, and
the figures each script prints (median, min, max)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CLI = str(Path(sys.executable).parent / "agents-state")


def compile_package() -> None:
    """Write the package's bytecode first, as installing a wheel does: an editable install with
    ``PYTHONDONTWRITEBYTECODE`` set would otherwise compile every module in every timed run."""
    import compileall

    import agents_state

    compileall.compile_dir(str(Path(agents_state.__file__).parent), quiet=1)


REPO = Path(__file__).resolve().parent.parent


def time_ms(cmd: list[str], stdin: bytes, cwd: str, env: dict[str, str] | None) -> float:
    """Wall time of one whole process, in milliseconds (its output discarded)."""
    import time

    start = time.perf_counter()
    subprocess.run(
        cmd,
        input=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
        check=False,
    )
    return (time.perf_counter() - start) * 1000


def plugin_engine(workdir: Path) -> tuple[Path, Path, dict[str, str]]:
    """The engine as the plugin installs it: ``hooks/session-start.sh`` builds a venv under
    ``CLAUDE_PLUGIN_DATA`` (``pip install`` of this checkout: not editable, bytecode written) and
    links ``bin/agents-state`` to it.  Returns that link, the venv's python (the baseline) and
    the environment hooks run in (no other ``agents-state`` on ``PATH``)."""
    print("installing the engine as the plugin does (hooks/session-start.sh) ...")
    data = workdir / "plugin-data"
    workdir.mkdir(parents=True, exist_ok=True)
    path = os.pathsep.join(
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not os.path.exists(os.path.join(d, "agents-state"))
    )
    env = {**os.environ, "PATH": path, "CLAUDE_PLUGIN_DATA": str(data)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("AGENTS_STATE_ROOT", None)
    subprocess.run(
        ["sh", str(REPO / "hooks" / "session-start.sh")],
        input=b"{}",
        env=env,
        cwd=workdir,
        capture_output=True,
        check=False,
    )
    engine = data / "bin" / "agents-state"
    if not engine.exists():
        log = data / "install.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else "(no install.log)"
        raise SystemExit(f"hooks/session-start.sh did not install the engine:\n{tail}")
    return engine, engine.resolve().parent / "python", env


def pre_tool_use(cwd: str, tool: str, tool_input: dict[str, str], agent: bool = True) -> bytes:
    """A PreToolUse payload as Claude Code sends it; ``agent``: from a sub-agent of the plugin
    (judged against its profile), else from the main conversation."""
    import json

    data: dict[str, object] = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "t",
    }
    if agent:
        data |= {"agent_id": "a1", "agent_type": "subagents:explore"}
    return json.dumps(data).encode()


def workflow_at_tasks(root: Path, tasks: list[dict[str, Any]], wave_size: int) -> None:
    """A workflow in phase 2.1 with ``tasks`` loaded in waves of ``wave_size``, wave 1 running."""
    from agents_state.engine import events as ev
    from agents_state.engine.phases import Outcome, apply, new_state
    from agents_state.engine.waves import parse_tasks, plan_waves
    from agents_state.store.files import Store

    now = datetime.now(UTC)
    state = new_state(ev.Start(task="bench"), now)
    for pid in ("0", "1.1", "1.2", "1.3"):
        state.phase(pid).status = "completed"
    state.currentPhase, state.currentStage = "2.1", "IMPLEMENT"
    defs = parse_tasks({"tasks": tasks}, "bench")
    load = ev.TasksLoad(
        tasks=tuple((d.id, d.as_state()) for d in defs),
        waves=tuple(tuple(w) for w in plan_waves(defs, wave_size)),
    )
    state = apply(state, load, now).state
    Store(root).commit(lambda _: Outcome(state, "bench", True, {}))


def chained_tasks(n: int, width: int = 10) -> list[dict[str, Any]]:
    """``n`` tasks in layers of ``width``, each depending on the one ``width`` before it."""
    return [
        {"id": f"t{i}", "dependencies": [f"t{i - width}"] if i >= width else []} for i in range(n)
    ]


def fmt_ms(xs: list[float]) -> str:
    """Median, min and max of seconds, in milliseconds."""
    return (
        f"median {statistics.median(xs) * 1000:7.1f} ms  min {min(xs) * 1000:7.1f}  "
        f"max {max(xs) * 1000:7.1f}"
    )
