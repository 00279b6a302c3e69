"""Kill -9 torture of the installed CLI (issue 7), shared by the test and the benchmark.

Writer threads each run ``agents-state task done <id>`` processes one after another and log an
acknowledgement only when the process exits 0; a random share of those processes is killed with
SIGKILL at a random moment of its life (late in it, where the commit is); a reader thread parses
``state.json`` without a lock the whole time (the harness: ``tests/killrun.py``).  Afterwards
every acknowledged task must be completed, no read may have seen a torn file, and the next
command must run.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import seams
from clitools import wave_of
from killrun import CLI, Reader, Tally, run_writers


def prepare(root: Path, n: int) -> list[str]:
    """A workflow at phase 2.1 whose first wave holds ``n`` independent tasks."""
    return wave_of(root, n, "torture")


@dataclass
class Result(Tally):
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


def _read_revision(path: Path) -> int:
    """Parse state.json without any lock; raises on a torn file."""
    doc = json.loads(path.read_bytes())
    rev = doc["revision"]
    tasks = doc["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]
    assert isinstance(rev, int) and isinstance(tasks, dict)
    return rev


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
    result = Result()
    # a writer waits for the lock while others are killed; never let a busy machine turn the
    # wait into a lock timeout (exit 6), which the accounting would report as unexpected
    full_env = {**os.environ, "AGENTS_STATE_LOCK_TIMEOUT": "600", **(env or {})}

    def command(_k: int, task: str) -> tuple[list[str], Path | None]:
        argv = ["--root", str(root), "task", "done", task, "--force", "--summary", "ok"]
        return ([CLI, *argv] if lock else seams.command(*argv, lock=False)), None

    def going() -> bool:
        return result.kills < min_kills and result.commands < max_commands

    t0 = time.monotonic()
    with Reader(lambda: _read_revision(root / ".agents/state.json"), result, 0.005):
        run_writers(
            result,
            ids,
            command,
            full_env,
            writers=writers,
            kill_share=kill_share,
            going=going,
            seed=seed,
        )
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
