"""Issue 7: the N-th write, fsync, replace or directory fsync fails (ENOSPC, EIO; once or from
then on) for N = 1, 2, ... until the command succeeds: until then the exit code is 7, the message
names the file and the step, and state.json, its backup and events.jsonl stay byte-identical.
The write-order test traces the calls of a commit up to the printed acknowledgement.  Faults are
injected in process through the test seam (``seams.install``: no switch in the package), and
one real process proves the same through the installed entry point."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import seams
from clitools import run_cli, run_proc

STRERROR = {"ENOSPC": "No space left on device", "EIO": "Input/output error"}
STEP = {"write": "write", "fsync": "fsync", "replace": "replace", "fsync_dir": "fsync directory"}
KEPT = ("state.json", "state.json.bak", "events.jsonl")

# (command, files the command writes in order of the ops, how it is set up)
COMMANDS = {
    "dispatch": (("dispatch", "fault"), [".agents/state.json"], False),
    "phase start": (("phase", "start", "0"), [".agents/state.json"], True),
    "phase complete": (
        ("phase", "complete", "0", "--artifact", "-"),
        [".agents/phases/0-explore.md", ".agents/phases/EXPLORE-output.md", ".agents/state.json"],
        True,
    ),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("fault-template")
    proc = run_cli(base, "dispatch", "fault")
    assert proc.returncode == 0, proc.stderr
    return base


def _faulty(
    root: Path, *args: str, fault: str = "", trace: bool = False, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one command in process with the fault (or the trace) installed for this run only."""
    with pytest.MonkeyPatch.context() as mp:
        seams.install(mp.setattr, fault=fault, trace=trace)
        return run_cli(root, *args, stdin=stdin)


def _fresh(root: Path, template: Path, started: bool) -> None:
    shutil.rmtree(root / ".agents", ignore_errors=True)
    if started:
        shutil.copytree(template / ".agents", root / ".agents")


def _snapshot(root: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for name in KEPT:
        p = root / ".agents" / name
        out[name] = p.read_bytes() if p.exists() else None
    return out


def _fault_loop(root: Path, template: Path, command: str, op: str, code: str, always: bool) -> int:
    """Returns the number of failed runs before the command succeeded."""
    args, files, started = COMMANDS[command]
    for n in range(1, 10):
        _fresh(root, template, started)
        before = _snapshot(root)
        fault = f"{op}:{n}:{code}" + (":always" if always else "")
        proc = _faulty(root, *args, stdin="# notes\n", fault=fault)
        if proc.returncode == 0:
            return n - 1
        shown = files[n - 1]  # once or from then on, the N-th call is the first to fail
        assert (proc.returncode, proc.stderr) == (
            7,
            f"agents-state: error: {shown}: "
            f"{STEP[op]} failed: {STRERROR[code]}; the "
            "previous state is unchanged\n",
        ), fault
        assert proc.stdout == ""
        assert _snapshot(root) == before, fault  # byte-identical
        agents = root / ".agents"
        leftovers = [
            n
            for d in (agents, agents / "phases")
            if d.is_dir()
            for n in os.listdir(d)
            if n.startswith(".tmp-")
        ]
        assert leftovers == [], fault
    raise AssertionError(f"{command} never succeeded under {op} faults")


@pytest.mark.parametrize("op", list(STEP))
def test_issue_7_first_call_of_each_op_fails_cleanly(root: Path, template: Path, op: str) -> None:
    _fresh(root, template, True)
    before = _snapshot(root)
    proc = _faulty(root, "phase", "start", "0", fault=f"{op}:1:ENOSPC")
    assert (proc.returncode, proc.stderr) == (
        7,
        f"agents-state: error: .agents/state.json: {STEP[op]} failed: No space left on "
        "device; the previous state is unchanged\n",
    )
    assert _snapshot(root) == before


def test_issue_7_a_fault_in_a_real_process(root: Path, template: Path) -> None:
    """The seam reaches a real process of the entry point (boot script, no environment)."""
    _fresh(root, template, True)
    before = _snapshot(root)
    proc = subprocess.run(
        seams.command("--root", str(root), "phase", "start", "0", fault="replace:1:EIO"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (
        7,
        "agents-state: error: .agents/state.json: replace failed: Input/output error; the "
        "previous state is unchanged\n",
    )
    assert _snapshot(root) == before
    # the old environment switches are gone: a user's process cannot turn them on
    env_only = run_proc(
        root,
        "phase",
        "start",
        "0",
        env={"AGENTS_STATE_FAULT": "write:1:EIO", "AGENTS_STATE_TRACE": "/dev/stdout"},
    )
    assert (env_only.returncode, env_only.stderr) == (0, "")
    assert env_only.stdout.startswith("phase 0 Parallel Explore started\n")


@pytest.mark.parametrize("always", [False, True], ids=["once", "always"])
@pytest.mark.parametrize("code", list(STRERROR))
@pytest.mark.parametrize("op", list(STEP))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_issue_7_fault_loop(
    root: Path, template: Path, command: str, op: str, code: str, always: bool
) -> None:
    failures = _fault_loop(root, template, command, op, code, always)
    # every call of this op in the command failed once before it succeeded
    assert failures == len(COMMANDS[command][1])


def _trace(root: Path, *args: str, stdin: str | None = None) -> list[str]:
    # the trace goes to stdout, so it interleaves with the acknowledgement
    proc = _faulty(root, *args, stdin=stdin, trace=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


COMMIT = ["write", "fsync", "replace", "fsync_dir"]
# the state's commit: the hooks' view is replaced before the directory fsync that makes both
# durable (issue 35, ``store.hookview``)
STATE = ["write", "fsync", "replace", "view_write", "view_fsync", "view_replace", "fsync_dir"]
# the last-good copy: the commit's change appended to the backup's journal (issue 35)
AFTER = ["journal_write", "journal_fsync", "append_write", "append_fsync"]


def test_issue_7_write_order_of_a_commit(root: Path, template: Path) -> None:
    _fresh(root, template, True)
    lines = _trace(root, "phase", "start", "0")
    assert lines[:11] == STATE + AFTER
    assert lines[11] == "phase 0 Parallel Explore started"  # the acknowledgement comes last
    assert not set(lines[12:]) & set(STATE + AFTER)


def test_issue_7_write_order_artifact_before_state(root: Path, template: Path) -> None:
    _fresh(root, template, True)
    lines = _trace(root, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n")
    # the artifact, then EXPLORE-output.md (the stage ends; issue 15), then the state
    assert lines[:19] == COMMIT + COMMIT + STATE + AFTER
    assert lines[19].startswith("phase 0 Parallel Explore completed")


@pytest.mark.parametrize(
    ("op", "warning"),
    [
        (
            "journal_write",
            ".agents/state.json.journal: write failed: No space left on device; the state "
            "was saved, but its last-good copy is older (agents-state doctor will say by how much)",
        ),
        (
            "append_fsync",
            ".agents/events.jsonl: append failed: No space left on device; the state "
            "was saved (revision 2) but this event is missing from the log",
        ),
    ],
)
def test_issue_7_faults_after_the_state_is_durable_only_warn(
    root: Path, template: Path, op: str, warning: str
) -> None:
    _fresh(root, template, True)
    before = _snapshot(root)
    proc = _faulty(root, "phase", "start", "0", fault=f"{op}:1:ENOSPC")
    assert proc.returncode == 0 and proc.stderr == f"agents-state: warning: {warning}\n"
    assert b'"revision": 2' in (root / ".agents/state.json").read_bytes()
    after = _snapshot(root)
    assert after["state.json"] != before["state.json"]
