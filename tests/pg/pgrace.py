"""Real processes of the installed CLI against the PostgreSQL store, from working directories
that stand for separate hosts (no ``.agents/`` in any of them, nothing shared but the URL)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLI = str(Path(sys.executable).parent / "agents-state")


def env_for(url: str, **extra: str) -> dict[str, str]:
    return {**os.environ, "AGENTS_STATE_STORE": url, "AGENTS_STATE_LOCK_TIMEOUT": "600", **extra}


def spawn_all(
    hosts: list[Path], argvs: list[list[str]], env: dict[str, str], prefix: list[str] | None = None
) -> list[subprocess.CompletedProcess[str]]:
    """Start every command at once, host ``i % len(hosts)`` as the working directory."""
    procs = [
        subprocess.Popen(
            [*(prefix or []), CLI, *a],
            cwd=hosts[i % len(hosts)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i, a in enumerate(argvs)
    ]
    out = []
    for p, a in zip(procs, argvs, strict=True):
        stdout, stderr = p.communicate(timeout=900)
        out.append(subprocess.CompletedProcess(a, p.returncode, stdout, stderr))
    return out


def tasks_of(state: Any) -> dict[str, Any]:
    tasks: dict[str, Any] = state.stages["IMPLEMENT"].phases["2.1"].tasks
    return tasks


@dataclass
class Torture:
    kills: int = 0
    commands: int = 0
    acked: set[str] = field(default_factory=set)
    attempted: set[str] = field(default_factory=set)
    unexpected: list[str] = field(default_factory=list)
    reads: int = 0
    torn: list[str] = field(default_factory=list)
    backwards: int = 0


def torture(
    url: str,
    hosts: list[Path],
    ids: list[str],
    seconds: float,
    writers: int = 3,
    kill_share: float = 0.6,
    seed: int = 17,
) -> Torture:
    """Writers run ``task done`` processes from the hosts in turn for ``seconds``; a share of
    them is SIGKILLed at a random moment late in its life; a reader loads the state meanwhile."""
    from agents_state.store.pg import PgStore

    rng = random.Random(seed)
    res = Torture()
    todo = list(ids)
    mutex = threading.Lock()
    durations = [0.3]
    env = env_for(url)
    end = time.monotonic() + seconds

    def next_task() -> str | None:
        with mutex:
            return todo.pop(0) if todo and time.monotonic() < end else None

    def one(task: str, host: Path) -> int:
        with mutex:
            kill = rng.random() < kill_share
            durations.sort()
            delay = rng.uniform(0.3, 1.1) * durations[len(durations) // 2]
            res.commands += 1
            res.attempted.add(task)
        start = time.monotonic()
        proc = subprocess.Popen(
            [CLI, "task", "done", task, "--summary", "ok"],
            cwd=host,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            _out, err = proc.communicate(timeout=delay if kill else 600)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            _out, err = proc.communicate()
        with mutex:
            if proc.returncode == -signal.SIGKILL:
                res.kills += 1
            elif proc.returncode == 0:
                res.acked.add(task)  # acknowledged: only after exit 0
                durations.append(time.monotonic() - start)
            elif not (proc.returncode == 4 and "already completed" in err):
                res.unexpected.append(f"{task}: exit {proc.returncode}: {err.strip()}")
        return proc.returncode

    def writer(k: int) -> None:
        task = next_task()
        while task is not None:
            if one(task, hosts[k % len(hosts)]) != -signal.SIGKILL:
                task = next_task()
            elif time.monotonic() >= end:  # a killed update may or may not have landed
                break

    stop = threading.Event()

    def reader() -> None:
        store = PgStore(url, hosts[0])
        last = 0
        while not stop.is_set():
            try:
                state = store.load()
                assert state is not None
                assert isinstance(tasks_of(state), dict)
                res.backwards += state.revision < last
                last = max(last, state.revision)
            except Exception as e:
                res.torn.append(f"{type(e).__name__}: {e}"[:200])
            res.reads += 1
            time.sleep(0.01)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(writers)]
    rt = threading.Thread(target=reader)
    rt.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    rt.join()
    return res
