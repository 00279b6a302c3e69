"""Writer processes of the installed CLI, a share of them killed with SIGKILL, and a reader that
loads the state without a lock meanwhile: the harness of the kill -9 tortures of the file store
(``reliability/torture.py``) and of the PostgreSQL store (``pg/pgrace.py``).

Writer threads each run ``agents-state task done <id>`` processes one after another and count an
update as acknowledged only when its process exits 0.  A process chosen for a kill (``kill_share``)
is killed at a random moment late in its life (0.3 to 1.1 times the median time of the recent
completed ones: where the commit is); its task is tried again while the run goes on, since a
killed update may or may not have landed.
"""

from __future__ import annotations

import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CLI = str(Path(sys.executable).parent / "agents-state")

__all__ = ["CLI", "Reader", "Tally", "run_writers"]


@dataclass
class Tally:
    kills: int = 0
    commands: int = 0
    acked: set[str] = field(default_factory=set)
    attempted: set[str] = field(default_factory=set)
    unexpected: list[str] = field(default_factory=list)
    reads: int = 0
    torn: list[str] = field(default_factory=list)
    backwards: int = 0


# the command line (and working directory) of writer ``k``'s ``task done`` for a task
Command = Callable[[int, str], tuple[list[str], Path | None]]


def run_writers(
    tally: Tally,
    ids: list[str],
    command: Command,
    env: dict[str, str],
    *,
    writers: int,
    kill_share: float,
    going: Callable[[], bool],
    seed: int | None = None,
    first_guess: float = 0.25,
) -> None:
    """Run ``writers`` threads over ``ids`` while ``going()`` (asked under the tally's lock)."""
    rng = random.Random(seed)
    todo = list(ids)
    mutex = threading.Lock()
    durations = [first_guess]

    def next_task() -> str | None:
        with mutex:
            return todo.pop(0) if todo and going() else None

    def one(k: int, task: str) -> int:
        with mutex:
            kill = rng.random() < kill_share
            delay = rng.uniform(0.3, 1.1) * statistics.median(durations[-50:])
            tally.commands += 1
            tally.attempted.add(task)
        argv, cwd = command(k, task)
        start = time.monotonic()
        proc = subprocess.Popen(
            argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        try:
            _out, err = proc.communicate(timeout=delay if kill else 900)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            _out, err = proc.communicate()
        with mutex:
            if proc.returncode == -signal.SIGKILL:
                tally.kills += 1
            elif proc.returncode == 0:
                tally.acked.add(task)  # the acknowledgement: counted only after exit 0
                durations.append(time.monotonic() - start)
            elif not (proc.returncode == 4 and "already completed" in err):
                tally.unexpected.append(f"{task}: exit {proc.returncode}: {err.strip()}")
        return proc.returncode

    def writer(k: int) -> None:
        task = next_task()
        while task is not None:
            if one(k, task) != -signal.SIGKILL:
                task = next_task()
            else:
                with mutex:  # a killed update may or may not have landed: try it again
                    task = task if going() else None

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


class Reader(threading.Thread):
    """Calls ``load`` (which returns the state's revision, or raises on a torn read) until
    stopped, every ``pause`` seconds, and counts reads, torn reads and revisions going back."""

    def __init__(self, load: Callable[[], int], tally: Tally, pause: float) -> None:
        super().__init__(daemon=True)
        self.load, self.tally, self.pause = load, tally, pause
        self.stop = threading.Event()

    def run(self) -> None:
        last = 0
        while not self.stop.is_set():
            try:
                rev = self.load()
            except Exception as e:
                self.tally.torn.append(f"{type(e).__name__}: {e}"[:200])
            else:
                self.tally.backwards += rev < last
                last = max(last, rev)
            self.tally.reads += 1
            time.sleep(self.pause)

    def __enter__(self) -> Reader:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.join()
