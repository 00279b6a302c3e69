"""Is the per-step cost flat as the plan grows? (issue 35, item 4)

Times, as whole processes of the engine in this environment (``.venv``), the sizes run in
turn (interleaved, so that other load on the machine falls on both alike):
  hook read   ``hook pre-tool-use`` for an explore agent's Read, at 10 and 10,000 tasks
              (target: 10,000 within 1.5x of 10)
  task done   ``task done --force`` of a different task each run, at 100 and 10,000 tasks
              (target: 10,000 within 2x of 100)
  wave close  ``task done --force`` of the last open task of a wave (the nine before it done
              untimed), which closes the wave and opens the next, at 100 and 10,000 tasks
              (target: 10,000 within 2x of 100)
  agent start ``hook subagent-start`` of an explore agent, at 10 and 10,000 tasks
              (target: 10,000 within 1.5x of 10)
  room check  ``hook pre-tool-use`` for a task agent's Write into its own worktree under
              worktree isolation (the own-room check), at 10 and 10,000 tasks (target 1.5x)
each as the median wall time and the median processor time (user + system) of the process;
and the bytes one ``task done`` writes under ``.agents/`` (the state, its backup or journal,
the hooks' view, the event line).

    .venv/bin/python benchmarks/bench_flat.py [--runs 21] [--big 10000]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import CLI, chained_tasks, compile_package, pre_tool_use, workflow_at_tasks

HOOK_TARGET = 1.5
DONE_TARGET = 2.0
WAVE = 10  # tasks per wave (``workflow_at_tasks``)


def _isolated(root: Path) -> None:
    """Worktree isolation on, and task t0 held by agent a1 (the room check's own task)."""
    from agents_state.engine.phases import Outcome
    from agents_state.models import GitInfo, State
    from agents_state.store.files import Store

    def put(state: State | None) -> Outcome:
        assert state is not None
        state.git = GitInfo(branch="agents-state/integration", base="0" * 40)
        tasks = state.phase("2.1").tasks
        assert tasks is not None
        task = tasks["t0"].model_copy()
        task.status, task.owner = "in_progress", "agent-a1"
        tasks["t0"] = task
        return Outcome(state, "isolated", True, {})

    Store(root).commit(put)


def _agent_start(root: str, i: int) -> bytes:
    import json

    return json.dumps(
        {
            "session_id": "s",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": root,
            "hook_event_name": "SubagentStart",
            "agent_id": f"b{i + 2}",
            "agent_type": "subagents:explore",
        }
    ).encode()


def _write_own_room(root: str) -> bytes:
    import json

    return json.dumps(
        {
            "session_id": "s",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": root,
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": f"{root}/.agents/worktrees/t0/f.txt", "content": "x"},
            "tool_use_id": "t",
            "agent_id": "a1",
            "agent_type": "subagents:task-agent",
        }
    ).encode()


def _run(cmd: list[str], stdin: bytes, cwd: str) -> tuple[float, float]:
    """(wall, processor) milliseconds of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True, check=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu * 1000


def _sizes(agents: Path) -> dict[str, tuple[int, int]]:
    return {
        p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in agents.iterdir() if p.is_file()
    }


def _written(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> int:
    total = 0
    for name, (n, _) in after.items():  # appended logs: what grew; the rest: rewritten
        if after[name] != before.get(name) and name != "lock-owner":
            grown = name.endswith((".journal", ".jsonl")) and name in before
            total += n - before[name][0] if grown else n
    return total


def _median(xs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(x for x, _ in xs), statistics.median(y for _, y in xs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--big", type=int, default=10000)
    args = ap.parse_args()
    compile_package()
    print(f"python {sys.version.split()[0]}, {args.runs} runs per figure, engine: {CLI}")
    tmp = Path(tempfile.mkdtemp(prefix="agents-state-flat-"))
    try:
        roots, closing, rooms = {}, {}, {}
        for n in sorted({10, 100, args.big}):
            roots[n] = tmp / str(n)
            roots[n].mkdir()
            workflow_at_tasks(roots[n], chained_tasks(n), WAVE)
            closing[n] = tmp / f"close-{n}"
            closing[n].mkdir()
            workflow_at_tasks(closing[n], chained_tasks(n), WAVE)
            rooms[n] = tmp / f"room-{n}"
            rooms[n].mkdir()
            workflow_at_tasks(rooms[n], chained_tasks(n), WAVE)
            _isolated(rooms[n])
        hook: dict[int, list[tuple[float, float]]] = {10: [], args.big: []}
        start: dict[int, list[tuple[float, float]]] = {10: [], args.big: []}
        room: dict[int, list[tuple[float, float]]] = {10: [], args.big: []}
        done: dict[int, list[tuple[float, float]]] = {100: [], args.big: []}
        close: dict[int, list[tuple[float, float]]] = {100: [], args.big: []}
        wrote: dict[int, list[int]] = {100: [], args.big: []}
        cmd = [CLI, "hook", "pre-tool-use"]
        for i in range(-2, args.runs):  # two runs first to warm the file cache
            for n in hook:
                root = str(roots[n])
                took = _run(cmd, pre_tool_use(root, "Read", {"file_path": f"{root}/a.py"}), root)
                began = _run([CLI, "hook", "subagent-start"], _agent_start(root, i), root)
                here = str(rooms[n])
                checked = _run(cmd, _write_own_room(here), here)
                if i >= 0:
                    hook[n].append(took)
                    start[n].append(began)
                    room[n].append(checked)
            for n in close:  # the wave's first nine untimed, its last timed
                waves = n // WAVE - 1  # the last wave's close completes the phase: not used
                if i + 2 > 0 and (i + 2) % waves == 0:  # every wave closed: a new workflow
                    closing[n] = tmp / f"close-{n}-{i}"
                    closing[n].mkdir()
                    workflow_at_tasks(closing[n], chained_tasks(n), WAVE)
                first = (i + 2) % waves * WAVE
                for t in range(first, first + WAVE - 1):
                    argv = [CLI, "--root", str(closing[n]), "task", "done", f"t{t}", "--force"]
                    subprocess.run(argv, cwd="/", capture_output=True, check=True)
                argv = [CLI, "--root", str(closing[n]), "task", "done", f"t{first + WAVE - 1}"]
                took = _run([*argv, "--force"], b"", "/")
                if i >= 0:
                    close[n].append(took)
            for n in done:
                agents = roots[n] / ".agents"
                before = _sizes(agents)
                argv = [CLI, "--root", str(roots[n]), "task", "done", f"t{i + 2}", "--force"]
                took = _run(argv, b"", "/")
                if i >= 0:
                    done[n].append(took)
                    wrote[n].append(_written(before, _sizes(agents)))
        for what, table in (("hook read", hook), ("agent start", start), ("room check", room)):
            for n, xs in table.items():
                wall, cpu = _median(xs)
                print(f"{what:<11} {n:>6} tasks: wall {wall:6.1f} ms, processor {cpu:6.1f} ms")
        for n, xs in close.items():
            wall, cpu = _median(xs)
            print(f"wave close  {n:>6} tasks: wall {wall:6.1f} ms, processor {cpu:6.1f} ms")
        for n, xs in done.items():
            wall, cpu = _median(xs)
            size = (roots[n] / ".agents" / "state.json").stat().st_size
            print(
                f"task done  {n:>6} tasks: wall {wall:6.1f} ms, processor {cpu:6.1f} ms; "
                f"state.json {size} B, written per update {statistics.median(wrote[n]):.0f} B"
            )
        big = args.big
        for what, table, lo, target in (
            ("hook read", hook, 10, HOOK_TARGET),
            ("agent start", start, 10, HOOK_TARGET),
            ("room check", room, 10, HOOK_TARGET),
            ("task done", done, 100, DONE_TARGET),
            ("wave close", close, 100, DONE_TARGET),
        ):
            (w_hi, c_hi), (w_lo, c_lo) = _median(table[big]), _median(table[lo])
            print(
                f"{what} at {big} / at {lo} tasks: wall {w_hi / w_lo:.2f}x, processor "
                f"{c_hi / c_lo:.2f}x (target {target}x)"
            )
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
