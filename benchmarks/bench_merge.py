"""The merge queue of worktree isolation (issue 22) against a plain ``git merge`` loop.

For N tasks of one wave (each with its own worktree, branch and one commit changing its own line
of one shared file), time ``gitwork.queue.run_queue`` merging them all into the integration
branch (repair check, intent and result recorded in the state, a ``git merge-tree`` and a
``git commit-tree`` per task, one fast-forward of the integration worktree, the merged worktrees
moved aside for a detached ``rm -rf``), then a plain loop of ``git merge --no-ff`` of the same
branches onto the same base in a worktree of its own (run first, so that both see the same
worktrees registered).  Per task, median of the runs.  Each run waits for the detached deletion
to finish before the next begins (its time after the queue returned is shown: it is off the
merge's path, not free).

    .venv/bin/python benchmarks/bench_merge.py [--tasks 10 100] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

IDENT = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *IDENT, "-C", str(cwd), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def _prepare(root: Path, n: int) -> list[str]:
    """A repository at phase 2.1 with ``n`` tasks done, each with one commit on its branch."""
    from agents_state.app import App
    from agents_state.engine import events as ev
    from agents_state.engine.phases import Outcome, apply, new_state
    from agents_state.engine.waves import parse_tasks, plan_waves
    from agents_state.gitwork.rooms import load_git
    from agents_state.gitwork.steps import after_claim, after_load

    _git(root, "init", "-q", "-b", "main")
    (root / "f.txt").write_text("".join(f"line {i}\n" for i in range(4 * n)))
    _git(root, "add", "f.txt")
    _git(root, "commit", "-qm", "init")
    now = datetime.now(UTC)
    state = new_state(ev.Start(task="bench"), now)
    for pid in ("0", "1.1", "1.2", "1.3"):
        state.phase(pid).status = "completed"
    state.currentPhase, state.currentStage = "2.1", "IMPLEMENT"
    app = App(root)
    defs = parse_tasks({"tasks": [{"id": f"t{i:03d}"} for i in range(n)]}, "bench")
    load = ev.TasksLoad(
        tasks=tuple((d.id, d.as_state()) for d in defs),
        waves=tuple(tuple(w) for w in plan_waves(defs, n)),
        git=load_git(app, state),
    )
    state = apply(state, load, now).state
    app.store.commit(lambda _: Outcome(state, "bench", True, {}))
    after_load(app, state)
    ids = [d.id for d in defs]
    for i, tid in enumerate(ids):
        out = app.run(ev.TaskClaim(agent="bench", task_id=tid))
        wt = Path(after_claim(app, out.state, tid)["worktree"])
        lines = (wt / "f.txt").read_text().splitlines(keepends=True)
        lines[4 * i] = f"by {tid}\n"
        (wt / "f.txt").write_text("".join(lines))
        _git(wt, "commit", "-qam", f"{tid}")
        head = _git(wt, "rev-parse", "HEAD")
        app.run(ev.TaskDone(task_id=tid, branch=f"{state.git.branch}-{tid}", head=head))  # type: ignore[union-attr]
    return ids


def _queue(root: Path) -> tuple[float, float, float]:
    """The whole queue run, the part of it that removed the merged worktrees, and how long
    the detached deletion went on after it returned."""
    from agents_state.app import App
    from agents_state.gitwork import queue

    tidy = queue._tidy
    spent = [0.0]

    def timed(app: Any, git: Any, results: Any) -> None:
        t = time.perf_counter()
        tidy(app, git, results)
        spent[0] += time.perf_counter() - t

    queue._tidy = timed
    try:
        t0 = time.perf_counter()
        out = queue.run_queue(App(root))
        took = time.perf_counter() - t0
    finally:
        queue._tidy = tidy
    assert out is not None and not out.data["conflicts"], out
    base = root / ".agents" / "worktrees"
    while list(base.glob(".trash-*")):  # the detached rm -rf: never overlapping the next run
        time.sleep(0.005)
    spent.append(time.perf_counter() - t0 - took)
    return took, spent[0], spent[1]


def _plain(root: Path, branches: list[str], base: str) -> float:
    wt = root.parent / f"{root.name}-plain"
    _git(root, "worktree", "add", "-q", "-b", f"plain-{root.name}", str(wt), base)
    t0 = time.perf_counter()
    for b in branches:
        subprocess.run(
            ["git", *IDENT, "-C", str(wt), "merge", "--no-ff", "--no-edit", "-m", f"merge {b}", b],
            capture_output=True,
            check=True,
        )
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.com")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.com")
    print(f"git {_git(Path.cwd(), 'version').split()[-1]}, Python {sys.version.split()[0]}")
    for n in args.tasks:
        queue, plain, tidy, after = [], [], [], []
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp) / f"r{run}"
                root.mkdir()
                ids = _prepare(root, n)
                import json

                state = json.loads((root / ".agents" / "state.json").read_text())
                branches = [f"{state['git']['branch']}-{t}" for t in ids]
                # the plain loop first: both then run with the same worktrees registered
                plain.append(_plain(root, branches, state["git"]["base"]) / n)
                took, removing, later = _queue(root)
                queue.append(took / n)
                tidy.append(removing / n)
                after.append(later / n)
        q, p, t = statistics.median(queue), statistics.median(plain), statistics.median(tidy)
        a = statistics.median(after)
        print(
            f"{n:4d} tasks: merge queue {q * 1e3:6.1f} ms/task (of which removing the merged "
            f"worktrees {t * 1e3:4.1f}; detached deletion after it {a * 1e3:4.1f})   plain git "
            f"merge loop {p * 1e3:6.1f} ms/task   ratio {q / p:4.2f}x   "
            f"(median of {args.runs} runs)"
        )


if __name__ == "__main__":
    main()
