"""Issue 8: the store's lock waits in the kernel (blocking flock with a timer), names the holder
on a timeout (exit 6), and wakes as soon as it is free.  Issue 16: it is the ``.agents/``
directory that is locked, so other threads poll the same lock."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from clitools import cli_json, run_cli

from agents_state.store.lockfile import LockTimeout, acquire

A = ".agents"


def _holder(root: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process takes the lock (flock on .agents/), says so, holds it, then exits."""
    script = (
        "import os, sys, time, fcntl\n"
        f"fd = os.open({str(root / A)!r}, os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)\n"
        f"open({str(root / A / 'lock-owner')!r}, 'w')"
        ".write(f'{os.getpid()} {time.time():.0f}')\n"
        f"print('held', flush=True)\ntime.sleep({seconds})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_a_held_lock_times_out_naming_the_holder(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    before = (root / A / "state.json").read_bytes()
    holder = _holder(root, 30)
    try:
        proc = run_cli(root, "compact", env={"AGENTS_STATE_LOCK_TIMEOUT": "0.5"})
        # the old test switch is gone: nobody turns locking off from the environment
        switched = run_cli(
            root,
            "compact",
            env={"AGENTS_STATE_LOCK_TIMEOUT": "0.5", "AGENTS_STATE_TEST_NO_LOCK": "1"},
        )
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 6
    assert proc.stderr.startswith(
        f"agents-state: error: .agents/: lock still held after 0.5s by pid "
        f"{holder.pid} (running, took it "
    )
    assert proc.stderr.endswith("retry, or run 'agents-state doctor' if that process is gone\n")
    assert (switched.returncode, switched.stderr[:40]) == (6, proc.stderr[:40])
    assert (root / A / "state.json").read_bytes() == before


def test_a_waiting_update_lands_once_the_holder_lets_go(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    revision = cli_json(root, "status")["workflow"]["revision"]
    holder = _holder(root, 1)
    proc = run_cli(root, "stop", env={"AGENTS_STATE_LOCK_TIMEOUT": "30"})
    holder.wait()
    assert proc.returncode == 0, proc.stderr
    assert cli_json(root, "status")["workflow"]["revision"] == revision + 1


@pytest.mark.skipif(os.name != "posix", reason="the kernel wait is POSIX only")
def test_a_wait_ends_with_the_timer_and_handler_as_before(tmp_path: Path) -> None:
    import fcntl
    import signal

    path = tmp_path / "lock"
    handler = signal.getsignal(signal.SIGALRM)
    fd = os.open(path, os.O_RDWR | os.O_CREAT)  # another open file: flock conflicts with it
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(LockTimeout):
            acquire(path, 0.2)  # waits in the kernel until the timer fires
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) == handler
        threading.Timer(0.2, fcntl.flock, (fd, fcntl.LOCK_UN)).start()
        release = acquire(path, 10)  # woken when the other open file lets go
    finally:
        os.close(fd)
    release()
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == handler


def test_other_threads_poll_the_same_lock(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    release = acquire(path, 1)  # main thread: the kernel wait
    outcome: list[str] = []

    def other() -> None:
        try:
            acquire(path, 0.2)()
            outcome.append("took it")
        except LockTimeout:
            outcome.append("timed out")

    t = threading.Thread(target=other)
    t.start()
    t.join()
    release()
    assert outcome == ["timed out"]
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert outcome == ["timed out", "took it"]


@pytest.mark.skipif(os.name != "posix", reason="the kernel wait is POSIX only")
def test_zero_timeout_does_not_wait(tmp_path: Path) -> None:
    # flock locks an open file description: a second open in this process conflicts too
    path = tmp_path / "lock"
    release = acquire(path, 1)
    try:
        with pytest.raises(LockTimeout):
            acquire(path, 0)
    finally:
        release()


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf"])
def test_a_bad_lock_timeout_is_refused_in_one_line(root: Path, value: str) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    before = (root / A / "state.json").read_bytes()
    proc = run_cli(root, "stop", env={"AGENTS_STATE_LOCK_TIMEOUT": value})
    assert proc.returncode == 5
    assert proc.stderr == (
        f"agents-state: error: environment AGENTS_STATE_LOCK_TIMEOUT: "
        f"{value!r} is not a number of seconds to wait for the lock (write "
        "e.g. 10)\n"
    )
    assert (root / A / "state.json").read_bytes() == before


def _silent_holder(root: Path, seconds: float) -> subprocess.Popen[str]:
    """A process that takes the lock without writing ``lock-owner`` (as the session-start
    hook and the refusal log do)."""
    script = (
        "import os, time, fcntl\n"
        f"fd = os.open({str(root / A)!r}, os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)\n"
        f"print('held', flush=True)\ntime.sleep({seconds})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def _dead_pid() -> int:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="the kernel's lock table")
def test_issue_33_a_timeout_names_the_holder_not_the_last_dead_owner(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    dead = _dead_pid()
    (root / A / "lock-owner").write_text(f"{dead:<10} {int(time.time()):<12}\n")
    holder = _silent_holder(root, 30)
    try:
        proc = run_cli(root, "compact", env={"AGENTS_STATE_LOCK_TIMEOUT": "0.5"})
    finally:
        holder.kill()
        holder.wait()
    assert (proc.returncode, proc.stderr) == (
        6,
        f"agents-state: error: .agents/: lock still held after 0.5s by pid {holder.pid} "
        "(running); retry, or run 'agents-state doctor' if that process is gone\n",
    )


@pytest.mark.skipif(not os.path.exists("/proc/locks"), reason="the kernel's lock table")
def test_issue_33_a_wait_past_a_second_says_who_holds_the_lock(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    holder = _holder(root, 2)
    try:
        proc = run_cli(root, "compact", env={"AGENTS_STATE_LOCK_TIMEOUT": "30"})
    finally:
        holder.wait()
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"agents-state: waiting for the lock on .agents/, held by pid {holder.pid} (running, "
        "took it "
    )
    assert lines[0].endswith("s ago); waiting up to 30s")


def test_issue_33_a_short_wait_says_nothing(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    holder = _holder(root, 0.2)
    try:
        proc = run_cli(root, "compact", env={"AGENTS_STATE_LOCK_TIMEOUT": "30"})
    finally:
        holder.wait()
    assert (proc.returncode, proc.stderr) == (0, "")


def test_issue_33_the_command_line_names_an_agents_state_holder(tmp_path: Path) -> None:
    """The console script runs as ``python3 /venv/bin/agents-state compact``."""
    from agents_state.store.lock import _command

    script = tmp_path / "agents-state"
    script.write_text("import time\nprint('up', flush=True)\ntime.sleep(30)\n")
    proc = subprocess.Popen(
        [sys.executable, str(script), "compact"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "up\n"
        assert _command(proc.pid) == "agents-state compact"
        assert _command(_dead_pid()) == ""
    finally:
        proc.kill()
        proc.wait()
