"""Kill -9 torture of the installed CLI (issue 7), shared by the test and the benchmark.

Writer threads each run ``agents-state task done <id>`` processes one after another and log an
acknowledgement only when the process exits 0; a random share of those processes is killed with
SIGKILL at a random moment of its life (late in it, where the commit is); a reader thread parses
``state.json`` without a lock the whole time.  Afterwards every acknowledged task must be
completed, no read may have seen a torn file, and the next command must run.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import seams
from clitools import wave_of

CLI = str(Path(sys.executable).parent / "agents-state")


def prepare(root: Path, n: int) -> list[str]:
    """A workflow at phase 2.1 whose first wave holds ``n`` independent tasks."""
    return wave_of(root, n, "torture")


@dataclass
class Result:
    kills: int = 0
    commands: int = 0
    acked: set[str] = field(default_factory=set)
    attempted: set[str] = field(default_factory=set)
    unexpected: list[str] = field(default_factory=list)
    reads: int = 0
    torn: list[str] = field(default_factory=list)
    backwards: int = 0
    seconds: float = 0.0
    lost: list[str] = field(default_factory=list)
    phantom: list[str] = field(default_factory=list)
    log_gaps: int = 0
    log_disorder: int = 0  # events.jsonl revisions not strictly increasing
    revision: int = 0

    def summary(self) -> str:
        return (
            f"torture: {self.kills} kills, {self.commands} commands, {len(self.acked)} "
            f"acknowledged updates, lost {len(self.lost)}, torn reads {len(self.torn)} of "
            f"{self.reads}, log lines missing {self.log_gaps}, {self.seconds:.0f}s"
        )


class _Reader(threading.Thread):
    """Parses state.json without any lock, as fast as it decently can."""

    def __init__(self, path: Path, result: Result) -> None:
        super().__init__(daemon=True)
        self.path, self.result = path, result
        self.stop = threading.Event()

    def run(self) -> None:
        last = 0
        while not self.stop.is_set():
            try:
                data = self.path.read_bytes()
                doc = json.loads(data)
                rev = doc["revision"]
                tasks = doc["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]
                assert isinstance(rev, int) and isinstance(tasks, dict)
            except Exception as e:
                self.result.torn.append(f"{type(e).__name__}: {e}"[:200])
            else:
                self.result.backwards += rev < last
                last = max(last, rev)
            self.result.reads += 1
            time.sleep(0.005)


def run(
    root: Path,
    ids: list[str],
    *,
    writers: int = 3,
    min_kills: int = 300,
    kill_share: float = 0.7,
    max_commands: int = 100_000,
    env: dict[str, str] | None = None,
    seed: int | None = None,
    lock: bool = True,
) -> Result:
    """Run writers and the killer until ``min_kills`` kills (or ``max_commands`` commands).

    ``lock=False`` runs the writers with the test seam that takes no lock (the control run)."""
    rng = random.Random(seed)
    result = Result()
    todo = list(ids)
    mutex = threading.Lock()
    durations: list[float] = [0.25]
    # a writer waits for the lock while others are killed; never let a busy machine turn the
    # wait into a lock timeout (exit 6), which the accounting would report as unexpected
    full_env = {**os.environ, "AGENTS_STATE_LOCK_TIMEOUT": "600", **(env or {})}

    def next_task() -> str | None:
        with mutex:
            done = result.kills >= min_kills or result.commands >= max_commands
            return None if done or not todo else todo.pop(0)

    def one(task: str) -> int:
        with mutex:
            kill = rng.random() < kill_share
            typical = statistics.median(durations[-50:])
            delay = rng.uniform(0.3, 1.1) * typical
            result.commands += 1
            result.attempted.add(task)
        start = time.monotonic()
        argv = ["--root", str(root), "task", "done", task, "--summary", "ok"]
        cmd = [CLI, *argv] if lock else seams.command(*argv, lock=False)
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env
        )
        try:
            _out, err = proc.communicate(timeout=delay if kill else 900)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            _out, err = proc.communicate()
        with mutex:
            if proc.returncode == -signal.SIGKILL:
                result.kills += 1
            elif proc.returncode == 0:
                result.acked.add(task)  # the acknowledgement: logged only after exit 0
                durations.append(time.monotonic() - start)
            elif not (proc.returncode == 4 and "already completed" in err):
                result.unexpected.append(f"{task}: exit {proc.returncode}: {err.strip()}")
        return proc.returncode

    def writer() -> None:
        task = next_task()
        while task is not None:
            rc = one(task)
            if rc != -signal.SIGKILL:  # a killed update may or may not have landed: retry it
                task = next_task()

    reader = _Reader(root / ".agents/state.json", result)
    t0 = time.monotonic()
    reader.start()
    threads = [threading.Thread(target=writer) for _ in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    reader.stop.set()
    reader.join()
    result.seconds = time.monotonic() - t0
    _account(root, ids, result)
    return result


def _account(root: Path, ids: list[str], result: Result) -> None:
    state = json.loads((root / ".agents/state.json").read_bytes())
    tasks = state["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]
    done = {t for t in ids if tasks[t]["status"] == "completed"}
    result.lost = sorted(result.acked - done)
    result.phantom = sorted(done - result.attempted)
    result.revision = state["revision"]
    revs = [
        json.loads(line)["rev"]
        for line in (root / ".agents/events.jsonl").read_bytes().splitlines()
    ]
    result.log_disorder = sum(a >= b for a, b in itertools.pairwise(revs))
    result.log_gaps = state["revision"] - len(revs)
