"""Issue 9: ``watch`` as a real process (plain output and a pseudo-terminal), driven by 50
concurrent CLI updates plus a phase change; the poll fallback with events disabled."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from clitools import CLI, run_cli

from agents_state.store.codec import encode_state
from agents_state.views.watch import StateWatcher, signature
from views.states import fresh, until_phase

DEFAULT_SIGINT = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


class Watch:
    """``agents-state watch`` in a child process; every output line with its arrival time."""

    def __init__(
        self, root: Path, *args: str, tty: bool = False, env: dict[str, str] | None = None
    ) -> None:
        self.lines: list[tuple[float, str]] = []
        self.raw = b""
        # Ctrl-C at a terminal reaches a foreground job whose SIGINT is at its default; a
        # parent that ignores SIGINT (``trap '' INT``, a background job of a script) would
        # hand its children SIG_IGN, so the child starts through a shim that restores it.
        cmd = [*DEFAULT_SIGINT, CLI, "--root", str(root), "watch", *args]
        full_env = {**os.environ, **(env or {})}
        if tty:
            master, slave = pty.openpty()
            self.proc = subprocess.Popen(
                cmd, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL, env=full_env
            )
            os.close(slave)
            self._fd = master
        else:
            self.proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=full_env
            )
            assert self.proc.stdout is not None
            self._fd = self.proc.stdout.fileno()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buf = b""
        while True:
            ready, _, _ = select.select([self._fd], [], [], 0.5)
            if not ready:
                if self.proc.poll() is not None:
                    return
                continue
            try:
                chunk = os.read(self._fd, 65536)
            except OSError:  # the pty closes with EIO when the child exits
                return
            if not chunk:
                return
            now = time.time()
            self.raw += chunk
            buf += chunk
            *done, buf = buf.split(b"\n")
            self.lines += [(now, line.decode(errors="replace")) for line in done]

    def wait_for(self, text: str, timeout: float = 15) -> float:
        """The arrival time of the first line containing ``text``."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for t, line in list(self.lines):
                if text in line:
                    return t
            time.sleep(0.01)
        raise AssertionError(
            f"{text!r} not shown within {timeout}s; output tail: "
            f"{[ln for _, ln in self.lines[-30:]]}"
        )

    def interrupt(self, timeout: float = 10) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._thread.join(timeout=2)
        if self.proc.stdout is None:
            os.close(self._fd)
        else:
            self.proc.stdout.close()


def _at_tasks_phase(root: Path, n: int) -> None:
    """A workflow at phase 2.1 (built in-process), then ``tasks load`` of n independent tasks."""
    (root / ".agents/phases").mkdir(parents=True)
    state = until_phase(fresh(), "2.1")
    (root / ".agents/state.json").write_bytes(encode_state(state, "state.json"))
    tasks = {"tasks": [{"id": f"t{i}", "title": f"task {i}"} for i in range(n)]}
    (root / "tasks.json").write_text(json.dumps(tasks))
    proc = run_cli(root, "tasks", "load", "tasks.json", "--wave-size", str(n))
    assert proc.returncode == 0, proc.stderr


def _burst(root: Path, n: int) -> int:
    """n concurrent ``task done`` processes, then a phase change; the final revision."""
    env = {**os.environ, "AGENTS_STATE_LOCK_TIMEOUT": "600"}  # a busy machine queues them
    procs = [
        subprocess.Popen(
            [CLI, "--root", str(root), "task", "done", f"t{i}", "--force", "--summary", "ok"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        for i in range(n)
    ]
    for p in procs:
        assert p.wait(timeout=900) == 0, p.stderr.read() if p.stderr else ""
        if p.stderr:
            p.stderr.close()
    (root / "simplify.md").write_text("# simplified\n")
    proc = run_cli(root, "phase", "complete", "2.2", "--artifact", "simplify.md")
    assert proc.returncode == 0, proc.stderr
    state = json.loads((root / ".agents/state.json").read_text())
    assert state["currentPhase"] == "2.3"
    revision: int = state["revision"]
    return revision


def _final_frame(w: Watch, revision: int, timeout: float = 60) -> None:
    """The last revision is drawn (how soon is measured by benchmarks/, not asserted here)."""
    w.wait_for(f"watch · revision {revision} ·", timeout=timeout)
    w.wait_for("· 2.3  Implementation Review  <- current", timeout=timeout)


@pytest.mark.slow  # 50 CLI processes: ~10 s on 2 idle cores
def test_watch_renders_the_final_revision_of_50_concurrent_writers(root: Path) -> None:
    w = Watch(root, "--plain")
    try:
        w.wait_for("No workflow in")  # started before any workflow exists
        _at_tasks_phase(root, 50)
        w.wait_for("wave 1/1 [")
        _final_frame(w, _burst(root, 50))
        assert any("· events ·" in line for _, line in w.lines)
        assert w.interrupt() == 0
    finally:
        w.close()


def test_watch_poll_fallback_with_events_disabled(root: Path) -> None:
    """Deadlines are generous (it failed once under load at 15 s): this checks what is drawn,
    not how soon (benchmarks/bench_watch.py measures that)."""
    _at_tasks_phase(root, 10)
    w = Watch(root, "--plain", "--interval", "0.2", env={"AGENTS_STATE_WATCH_POLL": "1"})
    try:
        w.wait_for("wave 1/1 [", timeout=120)
        _final_frame(w, _burst(root, 10), timeout=120)
        headers = [line for _, line in w.lines if line.startswith("── agents-state watch")]
        assert headers and all("· polling ·" in h for h in headers)
        assert w.interrupt(timeout=60) == 0
    finally:
        w.close()


@pytest.mark.parametrize("no_color", [True, False])
def test_watch_in_a_pseudo_terminal(
    root: Path, no_color: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    _at_tasks_phase(root, 3)
    env = {"NO_COLOR": "1"} if no_color else {}
    if not no_color:
        monkeypatch.delenv("NO_COLOR", raising=False)
    w = Watch(root, tty=True, env=env)
    try:
        w.wait_for("wave 1/1 [")
        assert run_cli(root, "task", "done", "t0", "--force").returncode == 0
        state = json.loads((root / ".agents/state.json").read_text())
        w.wait_for(f"watch · revision {state['revision']} ·")
        assert b"\x1b[H\x1b[2J" in w.raw  # redraws in place
        assert (b"\x1b[32m" in w.raw) is (not no_color)
        assert w.interrupt() == 0  # Ctrl-C
    finally:
        w.close()


def test_watch_stops_on_ctrl_c_when_the_test_runner_ignores_sigint(root: Path) -> None:
    """Issue 27: the suite ran under a parent that ignores SIGINT (``trap '' INT``) hung here."""
    _at_tasks_phase(root, 3)
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what such a parent hands down
    try:
        w = Watch(root, "--plain")
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        w.wait_for("wave 1/1 [")
        assert w.interrupt() == 0
    finally:
        w.close()


def test_watch_exits_when_the_workflow_ends(root: Path) -> None:
    _at_tasks_phase(root, 3)
    w = Watch(root, "--plain", "--exit-on-done")
    try:
        w.wait_for("wave 1/1 [")
        assert run_cli(root, "resume", "--abort").returncode == 0
        assert w.proc.wait(timeout=10) == 0
        w.wait_for("status: aborted")
    finally:
        w.close()


def _replace(path: Path, data: bytes) -> None:
    tmp = path.parent / f".tmp-{path.name}.x"
    tmp.write_bytes(data)
    os.replace(tmp, path)


def test_a_move_into_state_json_wakes_the_watcher(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{}")
    # the poll comes every 30 s and the wait ends after 10: only an event can wake it
    watcher = StateWatcher(tmp_path, poll_interval=30)
    watcher.start()
    try:
        assert watcher.mode == "events"
        watcher.seen(signature(tmp_path / "state.json"))
        threading.Timer(0.2, _replace, (tmp_path / "state.json", b'{"a": 1}')).start()
        assert watcher.wait(10) == signature(tmp_path / "state.json")
        assert watcher.events_seen >= 1
    finally:
        watcher.stop()


def test_lost_events_are_caught_by_the_safety_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An inotify queue overflow drops events: the signature check still sees the change."""
    (tmp_path / "state.json").write_text("{}")
    watcher = StateWatcher(tmp_path, poll_interval=0.2)
    monkeypatch.setattr(watcher, "on_event", lambda event: None)  # every event lost
    watcher.start()
    try:
        watcher.seen(signature(tmp_path / "state.json"))
        assert watcher.wait(0.3) is None  # nothing changed: times out
        _replace(tmp_path / "state.json", b'{"a": 2}')
        assert watcher.wait(30) == signature(tmp_path / "state.json")  # seen by the poll
        assert watcher.events_seen == 0
    finally:
        watcher.stop()


def test_watch_shows_the_running_total_of_tokens(root: Path) -> None:
    """Issue 24: the tokens booked so far, from the recorded sub-agent's transcript."""
    from clitools import DATA

    from agents_state.usage.record import record_agent

    _at_tasks_phase(root, 3)
    state = json.loads((root / ".agents" / "state.json").read_text())
    record_agent(str(root), state, "a1", "subagents:task-agent", str(DATA / "usage/agent.jsonl"))
    w = Watch(root, "--plain", "--exit-on-done")
    try:
        w.wait_for("Cost: 100k tokens, ")
        # another agent stops: only the usage book changes, and the total is redrawn
        second = root / "a2.jsonl"  # its own transcript
        second.write_bytes((DATA / "usage/agent.jsonl").read_bytes())
        record_agent(str(root), state, "a2", "subagents:task-agent", str(second))
        w.wait_for("Cost: 200k tokens, ")
        assert run_cli(root, "resume", "--abort").returncode == 0
        assert w.proc.wait(timeout=10) == 0
    finally:
        w.close()
