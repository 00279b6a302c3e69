"""Issue 16: no acknowledged update is lost to a repair or to a lock file swapped out.

- ``doctor --repair`` racing 30 writers: it diagnoses again under the lock, so it never writes
  back a state older than one a writer was told is saved.
- The lock holds while ``.agents/state.lock`` and ``lock-owner`` are removed and replaced during
  20 writers: the lock is on the ``.agents/`` directory, which cannot be swapped from under a
  holder.

Every writer is a real process of the installed CLI; each one that exits 0 must be in the final
state (``compaction.history`` grows by one per ``compact``), and the log's revisions run 1, 2,
3 ... with no gap, repeat or step back."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest
from clitools import CLI, run_cli

A = ".agents"
ENV = {**os.environ, "AGENTS_STATE_LOCK_TIMEOUT": "120"}


def _spawn(root: Path, n: int) -> list[subprocess.Popen[str]]:
    return [
        subprocess.Popen(
            [CLI, "--root", str(root), "compact", "--json"],
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(n)
    ]


def _acked(procs: list[subprocess.Popen[str]]) -> list[int]:
    revisions = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        revisions.append(json.loads(out)["revision"])
    return revisions


def _check_log(root: Path) -> dict[str, object]:
    state: dict[str, object] = json.loads((root / A / "state.json").read_text())
    # gap-free, in order, no step back
    revs = [json.loads(x)["rev"] for x in (root / A / "events.jsonl").read_text().splitlines()]
    assert revs == list(range(1, int(str(state["revision"])) + 1))
    return state


@pytest.mark.slow
def test_issue_16_doctor_repair_racing_30_writers(root: Path) -> None:
    assert run_cli(root, "dispatch", "race").returncode == 0
    proc = run_cli(root, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n")
    assert proc.returncode == 0, proc.stderr
    writers = _spawn(root, 30)
    repairs = completes = 0
    while any(w.poll() is None for w in writers) or repairs == 0:
        # lose phase 0's artifact: --repair reopens phase 0 (a state write), then do it again
        (root / A / "phases" / "0-explore.md").unlink(missing_ok=True)
        proc = run_cli(root, "doctor", "--repair", env={"AGENTS_STATE_LOCK_TIMEOUT": "120"})
        assert "Traceback" not in proc.stderr, proc.stderr
        if "reopened phase(s) 0" in proc.stdout:
            repairs += 1
        proc = run_cli(
            root,
            "phase",
            "complete",
            "0",
            "--artifact",
            "-",
            stdin="# again\n",
            env={"AGENTS_STATE_LOCK_TIMEOUT": "120"},
        )
        if proc.returncode == 0:
            completes += 1
        else:
            assert proc.returncode == 4, proc.stderr  # not reopened this round
    acked = _acked(writers)
    assert len(set(acked)) == 30
    state = _check_log(root)
    history = state["compaction"]["history"]  # type: ignore[index]
    assert len(history) == 30  # every acknowledged compact is there
    assert state["revision"] == 2 + 30 + repairs + completes
    assert repairs >= 1


@pytest.mark.slow
def test_issue_16_lock_file_removed_and_replaced_during_20_writers(root: Path) -> None:
    assert run_cli(root, "dispatch", "race").returncode == 0
    stop = threading.Event()
    swaps = [0]

    def vandal() -> None:
        while not stop.is_set():
            for name in ("state.lock", "lock-owner"):
                path = root / A / name
                path.unlink(missing_ok=True)
                tmp = root / A / f"{name}.new"
                tmp.write_text("")
                os.replace(tmp, path)
            swaps[0] += 1

    thread = threading.Thread(target=vandal)
    thread.start()
    try:
        writers = _spawn(root, 20)
        acked = _acked(writers)
    finally:
        stop.set()
        thread.join()
    assert sorted(acked) == list(range(2, 22))
    state = _check_log(root)
    assert len(state["compaction"]["history"]) == 20  # type: ignore[index]
    assert swaps[0] > 0
