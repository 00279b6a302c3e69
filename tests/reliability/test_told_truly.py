"""Issue 16: every failure is told truly, and inputs are bounded before they are committed.

- After the commit, a failure to report (stdout to ``/dev/full``, a log) exits 8 with a warning
  naming the saved revision, never "unchanged"; before it, exit 7 and the state is unchanged.
- An artifact is published with the state: taken back when the state write fails.
- events.jsonl: an append that fails is cut back; a fragment left by a crash never joins the
  next event.
- Hostile but parseable states (nesting, year 9999, 2**64 - 1), undecodable bytes in arguments,
  files and environment values, and a state that would pass the read cap: exit 5, one line, the
  state on disk untouched.
- A claim's time is taken once the lock is held, not before the wait.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import pytest
import seams
from clitools import CLI, cli_json, run_cli, wave_of

A = ".agents"
_TEMPLATE: list[Path] = []


def _faulty(
    root: Path, *args: str, fault: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one command in process with ``fault`` installed through the test seam."""
    with pytest.MonkeyPatch.context() as mp:
        seams.install(mp.setattr, fault=fault)
        return run_cli(root, *args, stdin=stdin)


def _workflow(root: Path) -> None:
    if not _TEMPLATE:
        base = Path(tempfile.mkdtemp(prefix="agents-state-told-"))
        assert run_cli(base, "dispatch", "told").returncode == 0
        _TEMPLATE.append(base)
    shutil.copytree(_TEMPLATE[0] / A, root / A)


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / A).rglob("*"))
        if p.is_file() and p.name != "lock-owner"
    }


def _revision(root: Path) -> int:
    return int(json.loads((root / A / "state.json").read_text())["revision"])


# -- after the commit: exit 8, never "unchanged" ---------------------------------------------


def test_issue_16_stdout_to_dev_full_after_a_commit_exits_8(root: Path) -> None:
    _workflow(root)
    rev = _revision(root)
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [CLI, "--root", str(root), "compact"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
            check=False,
        )
    assert proc.returncode == 8
    assert proc.stderr == (
        f"agents-state: warning: the update was saved (revision {rev + 1}), "
        "but reporting it failed: No space left on device; do not repeat it: "
        "check with agents-state status\n"
    )
    assert _revision(root) == rev + 1
    events = (root / A / "events.jsonl").read_text().splitlines()
    assert json.loads(events[-1])["rev"] == rev + 1


def test_issue_16_stdout_to_dev_full_without_a_commit_exits_7(root: Path) -> None:
    _workflow(root)
    before = _files(root)
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [CLI, "--root", str(root), "status"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
            check=False,
        )
    assert (proc.returncode, proc.stderr) == (
        7,
        "agents-state: error: standard output: write failed: No space left on device; the "
        "previous state is unchanged\n",
    )
    assert _files(root) == before


def test_issue_33_buffered_streams_keep_the_exit_code(root: Path) -> None:
    """Without ``PYTHONUNBUFFERED`` (an ordinary shell) a failed write left its text in the
    buffer and the interpreter's flush at exit turned the code into 120."""
    _workflow(root)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        out = subprocess.run(
            [CLI, "--root", str(root), "status"], stdout=full, env=env, timeout=30, check=False
        )
        err = subprocess.run(
            [CLI, "--root", str(root), "phase", "complete", "9"],
            stdout=subprocess.DEVNULL,
            stderr=full,
            env=env,
            timeout=30,
            check=False,
        )
        saved = subprocess.run(
            [CLI, "--root", str(root), "compact"],
            stdout=full,
            stderr=subprocess.DEVNULL,
            env=env,
            timeout=30,
            check=False,
        )
    assert (out.returncode, err.returncode, saved.returncode) == (7, 3, 8)


def test_issue_16_json_warning_after_a_commit(root: Path) -> None:
    _workflow(root)
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [CLI, "--root", str(root), "compact", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
            check=False,
        )
    assert proc.returncode == 8
    body = json.loads(proc.stderr)
    assert body["warning"]["code"] == "not_reported" and body["warning"]["exit"] == 8


def test_issue_16_artifact_is_taken_back_when_the_state_write_fails(root: Path) -> None:
    _workflow(root)
    before = _files(root)
    # the 1st replace publishes the artifact, the 2nd the EXPLORE stage output, the 3rd would
    # publish the state
    proc = _faulty(
        root, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n", fault="replace:3:EIO"
    )
    assert (proc.returncode, proc.stderr) == (
        7,
        "agents-state: error: .agents/state.json: replace failed: Input/output error; the "
        "previous state is unchanged\n",
    )
    assert _files(root) == before  # no 0-explore.md left behind


def test_issue_16_an_overwritten_artifact_is_put_back(root: Path) -> None:
    _workflow(root)
    art = root / A / "phases" / "0-explore.md"
    art.write_text("# my draft\n")
    before = _files(root)
    proc = _faulty(
        root,
        "phase",
        "complete",
        "0",
        "--artifact",
        "-",
        stdin="# notes\n",
        fault="fsync_dir:2:EIO:always",
    )
    assert proc.returncode == 7, proc.stderr
    assert _files(root) == before


# -- events.jsonl ----------------------------------------------------------------------------


def test_issue_16_a_failed_append_is_cut_back(root: Path) -> None:
    _workflow(root)
    log = root / A / "events.jsonl"
    size = log.stat().st_size
    proc = _faulty(root, "compact", fault="append_fsync:1:EIO")
    assert proc.returncode == 0
    assert "events.jsonl: append failed: Input/output error; the state was saved" in proc.stderr
    assert log.stat().st_size == size  # written, then cut back: no unsynced line stays


def test_issue_16_a_torn_last_line_never_joins_the_next_event(root: Path) -> None:
    _workflow(root)
    log = root / A / "events.jsonl"
    with log.open("ab") as f:
        f.write(b'{"rev": 99, "ev')  # a crash in the middle of an append
    proc = run_cli(root, "compact", "--json")
    assert proc.returncode == 0, proc.stderr
    rev = json.loads(proc.stdout)["revision"]
    lines = log.read_bytes().splitlines()
    assert lines[-2] == b'{"rev": 99, "ev'
    assert json.loads(lines[-1])["rev"] == rev  # on its own line
    proc = run_cli(root, "doctor", "--repair")
    assert "dropped 1 torn line(s)" in proc.stdout
    assert json.loads(log.read_bytes().splitlines()[-1])["rev"] == rev  # kept by the repair


# -- bounded input, exit 5 in one line -----------------------------------------------------


def _hostile(state: dict[str, object], case: str) -> None:
    if case == "deep":
        deep: dict[str, object] = {}
        node = deep
        for _ in range(400):
            node["a"] = {}
            node = node["a"]  # type: ignore[assignment]
        state["notes"] = deep
    elif case == "year-9999":
        state["startedAt"] = "9999-12-31T23:59:59Z"
    elif case == "rev-2**64-1":
        state["revision"] = 2**64 - 1
    elif case == "rev-2**53":
        state["revision"] = 2**53


HOSTILE = {
    "deep": "cannot be written back: it is nested too deeply (over 254 levels; a state needs "
    "fewer than 10); run: agents-state doctor",
    "year-9999": "startedAt: Value error, '9999-12-31T23:59:59Z' is out of range (a time "
    "between the years 1970 and 9000) (got '9999-12-31T23:59:59Z')",
    "rev-2**64-1": "revision: Value error, 18446744073709551615 is out of range (a count up to "
    "9007199254740991) (got 18446744073709551615)",
    "rev-2**53": "revision: Value error, 9007199254740992 is out of range (a count up to "
    "9007199254740991) (got 9007199254740992)",
}


@pytest.mark.parametrize("case", list(HOSTILE))
@pytest.mark.parametrize("command", [("status",), ("compact",), ("doctor", "--repair")])
def test_issue_16_hostile_but_parseable_states(
    root: Path, case: str, command: tuple[str, ...]
) -> None:
    _workflow(root)
    path = root / A / "state.json"
    state = json.loads(path.read_text())
    _hostile(state, case)
    path.write_text(json.dumps(state))
    before = _files(root)
    proc = run_cli(root, *command)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    if command[0] == "doctor":  # restored from the backup, or told; never a crash
        assert proc.returncode in (0, 5), proc.stderr
        return
    assert (proc.returncode, proc.stderr) == (
        5,
        f"agents-state: error: .agents/state.json: {HOSTILE[case]}\n",
    )
    assert _files(root) == before


def test_issue_16_the_last_revision_is_refused_before_writing(root: Path) -> None:
    _workflow(root)
    path = root / A / "state.json"
    state = json.loads(path.read_text())
    state["revision"] = 2**53 - 1
    path.write_text(json.dumps(state))
    before = _files(root)
    proc = run_cli(root, "compact")
    assert proc.returncode == 5 and proc.stderr.count("\n") == 1
    assert "refusing to write an invalid state: revision" in proc.stderr
    assert _files(root) == before


def test_issue_16_undecodable_argument(root: Path) -> None:
    _workflow(root)
    before = _files(root)
    proc = subprocess.run(
        [os.fsencode(CLI), b"--root", os.fsencode(root), b"dispatch", b"--replace", b"caf\xe9"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (
        5,
        b"agents-state: error: argument 5 ('caf\\xe9'): is not valid UTF-8 (character 3); "
        b"pass UTF-8 text, or a file with --task-file\n",
    )
    assert _files(root) == before


def test_issue_16_undecodable_environment_value(root: Path) -> None:
    _workflow(root)
    env = {**{k: v for k, v in os.environb.items()}, b"AGENTS_STATE_AGENT": b"w\xff"}
    proc = subprocess.run(
        [os.fsencode(CLI), b"--root", os.fsencode(root), b"status"],
        capture_output=True,
        timeout=30,
        env=env,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (
        5,
        b"agents-state: error: environment AGENTS_STATE_AGENT: is not valid UTF-8; set it "
        b"to UTF-8 text\n",
    )


def test_issue_16_latin1_task_file(root: Path, tmp_path: Path) -> None:
    _workflow(root)
    before = _files(root)
    task = tmp_path / "task.txt"
    task.write_bytes(b"caf\xe9 au lait")
    proc = run_cli(root, "dispatch", "--replace", "--task-file", str(task))
    assert (proc.returncode, proc.stderr) == (
        5,
        f"agents-state: error: {task}: is not valid UTF-8 (byte 3); save it as UTF-8\n",
    )
    assert _files(root) == before


def test_issue_16_lone_surrogate_in_a_tasks_file(root: Path, tmp_path: Path) -> None:
    wave_of(root, 1)
    before = _files(root)
    tasks = tmp_path / "tasks.json"
    tasks.write_text('{"tasks": [{"id": "a", "title": "x\\ud800y"}]}')
    proc = run_cli(root, "tasks", "load", str(tasks))
    assert (proc.returncode, proc.stderr) == (
        5,
        f"agents-state: error: {tasks}: holds a lone \\u surrogate escape, which is no "
        "character; write the character itself, as UTF-8\n",
    )
    assert _files(root) == before


@pytest.mark.parametrize("value", ["1e10", "86401"])
def test_issue_16_lock_timeout_out_of_range(root: Path, value: str) -> None:
    _workflow(root)
    proc = run_cli(root, "compact", env={"AGENTS_STATE_LOCK_TIMEOUT": value})
    assert (proc.returncode, proc.stderr) == (
        5,
        f"agents-state: error: environment AGENTS_STATE_LOCK_TIMEOUT: {value!r} seconds is "
        "out of range (at most 86400, a day)\n",
    )


@pytest.mark.slow
def test_issue_16_a_state_over_the_read_cap_is_refused_before_the_commit(
    root: Path, tmp_path: Path
) -> None:
    """12 MB of tasks (under the 32 MiB input cap) would make an 80 MB state, which no later
    command could read: refused before anything is written."""
    wave_of(root, 1)
    before = _files(root)
    big = tmp_path / "tasks.json"
    big.write_text('{"tasks": [{"id": "a", "files": [' + ",".join(['""'] * 4_000_000) + "]}]}")
    proc = run_cli(root, "tasks", "load", str(big))
    assert proc.returncode == 5
    assert proc.stderr.startswith(
        "agents-state: error: .agents/state.json: the new state would be "
    )
    assert proc.stderr.endswith(
        " bytes, over the 67108864-byte limit every later command "
        "reads; nothing was written (split the work into smaller task "
        "files)\n"
    )
    assert _files(root) == before
    assert cli_json(root, "status")["workflow"]["revision"] == _revision(root)


# -- claim times -----------------------------------------------------------------------------


def test_issue_16_a_claim_is_timed_when_the_lock_is_granted(root: Path) -> None:
    """A claim that waited for the lock is stamped after the wait, so its lease starts then."""
    wave_of(root, 1)
    script = (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(root / A)!r}, os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True); time.sleep(2.5)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    asked = time.time()
    proc = run_cli(root, "task", "claim", "t0", "--agent", "w", "--json")
    holder.wait()
    assert proc.returncode == 0, proc.stderr
    state = json.loads((root / A / "state.json").read_text())
    claimed = state["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["t0"]["claimedAt"]
    stamp = datetime.fromisoformat(claimed.replace("Z", "+00:00")).timestamp()
    assert stamp >= int(asked) + 2  # taken after the holder let go, not when asked
