"""Issue 16: ``dispatch --replace`` leaves the old workflow whole on any failure.

The installed CLI runs under ``strace``, which makes the N-th call of one system call fail with
EIO (``-e inject=SYSCALL:error=EIO:when=N``) or kills the process with SIGKILL as it makes it
(``signal=KILL``), for N = 1, 2, ... until the command runs past its last such call.  After each
run, exactly one of these holds:

- the old workflow is whole: ``state.json`` byte-identical and every artifact in ``phases/``,
  with exit 7 (or 5) and one line naming the file, or a kill;
- the new workflow is saved, and ``archive/`` holds a complete copy of the old one (state and
  artifacts), with exit 0, 8 (saved, not reported), or a kill.

After a kill, the next ``dispatch --replace`` succeeds (nothing is left locked or half-made).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from clitools import run_cli
from faultinject import STRACE, inject, phases

A = ".agents"
SYSCALLS = {
    "write": "write",
    "fsync": "fsync",
    "rename": "rename,renameat,renameat2",
    "mkdir": "mkdir,mkdirat",
    "unlink": "unlink,unlinkat",
}
_TEMPLATE: list[Path] = []

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(STRACE is None, reason="needs strace (.ci/run installs it)"),
]


def _old(root: Path) -> None:
    """A workflow past phases 0 and 1.1, with both artifacts (built once, copied per run)."""
    if not _TEMPLATE:
        base = Path(tempfile.mkdtemp(prefix="agents-state-replace-"))
        assert run_cli(base, "dispatch", "old").returncode == 0
        for phase in ("0", "1.1"):
            proc = run_cli(
                base, "phase", "complete", phase, "--artifact", "-", stdin=f"# {phase}\n"
            )
            assert proc.returncode == 0, proc.stderr
        _TEMPLATE.append(base)
    shutil.rmtree(root / A, ignore_errors=True)
    shutil.copytree(_TEMPLATE[0] / A, root / A)


def _strace(
    root: Path, log: Path, syscall: str, action: str, n: int
) -> subprocess.CompletedProcess[str]:
    return inject(
        log, SYSCALLS[syscall], action, n, "--root", str(root), "dispatch", "--replace", "new"
    )


def _archives(root: Path) -> list[Path]:
    top = root / A / "archive"
    return [p for p in top.iterdir() if not p.name.startswith(".tmp-")] if top.is_dir() else []


def _is_old(root: Path, state: bytes, artifacts: dict[str, bytes]) -> bool:
    return (root / A / "state.json").read_bytes() == state and phases(
        root / A / "phases"
    ) == artifacts


def _is_new(root: Path, state: bytes, artifacts: dict[str, bytes]) -> bool:
    now = json.loads((root / A / "state.json").read_text())
    if now["task"] != "new":
        return False
    copies = [
        a
        for a in _archives(root)
        if (a / "state.json").read_bytes() == state and phases(a / "phases") == artifacts
    ]
    return len(copies) == 1


def _one_line_error(stderr: str) -> bool:
    return (
        stderr.startswith("agents-state: error: ")
        and stderr.count("\n") == 1
        and "Traceback" not in stderr
    )


@pytest.mark.parametrize("syscall", list(SYSCALLS))
def test_issue_16_replace_under_injected_io_errors(
    root: Path, tmp_path: Path, syscall: str
) -> None:
    seen = {"old": 0, "new": 0}
    for n in range(1, 80):
        _old(root)
        state = (root / A / "state.json").read_bytes()
        artifacts = phases(root / A / "phases")
        log = tmp_path / f"strace-{syscall}-{n}.log"
        proc = _strace(root, log, syscall, "error=EIO", n)
        trace = log.read_text()
        injected = [line for line in trace.splitlines() if "(INJECTED)" in line]
        where = f"{syscall} #{n}: rc {proc.returncode}: {proc.stderr!r}: {injected}"
        if proc.returncode in (0, 8):
            assert _is_new(root, state, artifacts), where
            seen["new"] += 1
            if proc.returncode == 0 and "could not be removed" not in proc.stderr:
                assert phases(root / A / "phases") == {}, where
        else:
            assert proc.returncode in (5, 7), where
            assert _is_old(root, state, artifacts), where
            assert _archives(root) == [], where  # the copy of a failed replace is dropped
            told_on_stderr = any(line.split(" ", 1)[1].startswith("write(2,") for line in injected)
            assert _one_line_error(proc.stderr) or told_on_stderr, where
            seen["old"] += 1
        if not injected:
            break
    else:
        raise AssertionError(f"dispatch --replace made over 80 {syscall} calls")
    assert seen["old"] > 0 or syscall == "unlink", seen  # some failure happened before commit


@pytest.mark.parametrize("syscall", list(SYSCALLS))
def test_issue_16_replace_killed_at_each_step(root: Path, tmp_path: Path, syscall: str) -> None:
    leftovers = [0]
    for n in range(1, 80):
        _old(root)
        state = (root / A / "state.json").read_bytes()
        artifacts = phases(root / A / "phases")
        log = tmp_path / f"strace-{syscall}-{n}.log"
        proc = _strace(root, log, syscall, "signal=KILL", n)
        killed = "killed by SIGKILL" in log.read_text()
        where = f"{syscall} #{n}: rc {proc.returncode}: {proc.stderr!r}"
        assert _is_old(root, state, artifacts) or _is_new(root, state, artifacts), where
        if not killed:
            assert proc.returncode == 0, where
            break
        if _is_new(root, state, artifacts) and phases(root / A / "phases"):
            # killed after the commit, before phases/ was emptied: doctor finds and clears them
            fix = run_cli(root, "doctor", "--repair")
            assert "artifact(s) of the replaced workflow" in fix.stdout, where + fix.stdout
            assert phases(root / A / "phases") == {}, where
            leftovers[0] += 1
        again = run_cli(
            root, "dispatch", "--replace", "again", env={"AGENTS_STATE_LOCK_TIMEOUT": "5"}
        )
        assert again.returncode == 0, where + again.stderr
    else:
        raise AssertionError(f"dispatch --replace made over 80 {syscall} calls")
    if syscall == "unlink":  # the clean-up of phases/ is the only unlink of a replace
        assert leftovers[0] >= 1


def test_issue_16_a_state_in_place_but_not_durable_is_told_as_saved(root: Path) -> None:
    """Every fsync fails from the directory fsync on: the new state is renamed into place and
    cannot be put back (the undo's fsync fails too).  That is exit 8, naming the revision, never
    exit 7's "unchanged"."""
    _old(root)
    rev = json.loads((root / A / "state.json").read_text())["revision"]
    proc = inject(os.devnull, "fsync", "error=EIO", "2+", "--root", str(root), "compact")
    assert proc.returncode == 8
    assert proc.stderr.endswith(
        f"agents-state: warning: the update was saved (revision {rev + 1}), but reporting it "
        "failed: .agents/state.json: fsync directory failed: Input/output error; the new state "
        "is in place but may not survive a crash; do not repeat it: check with agents-state "
        "status\n"
    )
    assert json.loads((root / A / "state.json").read_text())["revision"] == rev + 1
