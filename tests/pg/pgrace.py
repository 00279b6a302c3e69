"""Real processes of the installed CLI against the PostgreSQL store, from working directories
that stand for separate hosts (no ``.agents/`` in any of them, nothing shared but the URL)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from killrun import CLI, Reader, Tally, run_writers

__all__ = ["CLI", "Torture", "env_for", "tasks_of", "torture"]


def env_for(url: str, **extra: str) -> dict[str, str]:
    # a loaded machine queues writers and slows connects: generous waits (what the tests prove
    # is what a kill leaves behind, not how fast a connection comes)
    return {
        **os.environ,
        "AGENTS_STATE_STORE": url,
        "AGENTS_STATE_LOCK_TIMEOUT": "600",
        "AGENTS_STATE_CONNECT_TIMEOUT": "120",
        **extra,
    }


def tasks_of(state: Any) -> dict[str, Any]:
    tasks: dict[str, Any] = state.stages["IMPLEMENT"].phases["2.1"].tasks
    return tasks


Torture = Tally  # what ``torture`` returns


def torture(
    url: str,
    hosts: list[Path],
    ids: list[str],
    seconds: float,
    writers: int = 3,
    kill_share: float = 0.6,
    seed: int = 17,
    at_least: int = 5,
    cap: float = 600.0,
) -> Tally:
    """Writers run ``task done`` processes from the hosts in turn for ``seconds`` (the harness:
    ``tests/killrun.py``); a share of them is SIGKILLed at a random moment late in its life; a
    reader loads the state meanwhile.  The run goes on past ``seconds`` until it has ``at_least``
    kills, acknowledged updates and reads (a loaded machine finishes few commands in ``seconds``;
    issue 27), but never past ``cap`` seconds."""
    from agents_state.store.pg import PgStore

    res = Tally()
    start = time.monotonic()
    end, last = start + seconds, start + cap

    def going() -> bool:
        now = time.monotonic()
        short = res.kills < at_least or len(res.acked) < at_least or res.reads <= 2 * at_least
        return now < end or (short and now < last)

    store = PgStore(url, hosts[0])  # connects on the reader's first load, in its thread

    def command(k: int, task: str) -> tuple[list[str], Path | None]:
        return [CLI, "task", "done", task, "--force", "--summary", "ok"], hosts[k % len(hosts)]

    def revision() -> int:
        state = store.load()
        assert state is not None
        assert isinstance(tasks_of(state), dict)
        return state.revision

    with Reader(revision, res, 0.01):
        run_writers(
            res,
            ids,
            command,
            env_for(url),
            writers=writers,
            kill_share=kill_share,
            going=going,
            seed=seed,
            first_guess=0.3,
        )
    return res
