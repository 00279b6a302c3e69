"""Issue 7: doctor finds each corruption, explains it, and --repair restores the workflow,
saying exactly what, if anything, was lost; a corrupt state never reads as "no workflow"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import seams
from clitools import cli_json, run_cli

A = ".agents"


_TEMPLATE: list[Path] = []


def _workflow(root: Path) -> None:
    """A workflow past phase 0 (revision 2), with its artifact and backup (built once)."""
    if not _TEMPLATE:
        base = Path(tempfile.mkdtemp(prefix="agents-state-doctor-"))
        assert run_cli(base, "dispatch", "doctor").returncode == 0
        proc = run_cli(base, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n")
        assert proc.returncode == 0, proc.stderr
        _TEMPLATE.append(base)
    shutil.copytree(_TEMPLATE[0] / A, root / A)


def _doctor(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(root, "doctor", *args)


def _healthy(root: Path) -> None:
    proc = _doctor(root)
    assert (proc.returncode, proc.stdout) == (0, "doctor: no problems found\n"), proc.stdout
    assert run_cli(root, "status").returncode == 0


def test_issue_7_healthy_folder(root: Path) -> None:
    _workflow(root)
    _healthy(root)
    assert cli_json(root, "doctor") == {
        "ok": True,
        "findings": [],
        "repaired": [],
        "lost": [],
        "remaining": None,
    }


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (b"", "is empty (a write was interrupted?)"),
        (
            b'{"version": 2, "task": "doc',
            "not valid JSON (unexpected end of data: line 1 column 28 (char 27))",
        ),
        (
            b'{"version": 2, "task": "doctor", "revision": "x"}',
            "revision: Input should be a valid integer, unable to parse string as an integer (got "
            "'x')",
        ),
    ],
)
def test_issue_7_bad_state_is_restored_from_backup(root: Path, damage: bytes, problem: str) -> None:
    _workflow(root)
    (root / A / "state.json").write_bytes(damage)
    proc = _doctor(root)
    assert proc.returncode == 5
    assert proc.stdout == (
        f"error: .agents/state.json: {problem}\n"
        "  repair: restore revision 2 from .agents/state.json.bak; nothing is lost: "
        "events.jsonl records nothing after it\nrun: agents-state doctor --repair\n"
    )
    assert (root / A / "state.json").read_bytes() == damage  # doctor alone writes nothing
    proc = _doctor(root, "--repair")
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.endswith(
        "repaired: restored .agents/state.json from .agents/state.json.bak (revision 2, now "
        "revision 3); the damaged file is kept as .agents/state.json.corrupt\nlost: nothing\n"
    )
    assert (root / A / "state.json.corrupt").read_bytes() == damage
    assert cli_json(root, "status")["workflow"]["currentPhase"] == "1.1"
    assert (
        json.loads((root / A / "events.jsonl").read_text().splitlines()[-1])["event"]
        == "doctor_restore"
    )
    _healthy(root)


def test_issue_7_restore_names_what_was_lost(root: Path) -> None:
    _workflow(root)
    assert run_cli(root, "compact").returncode == 0
    # the journal append of the next update fails: the backup stays one revision behind
    with pytest.MonkeyPatch.context() as mp:
        seams.install(mp.setattr, fault="journal_write:1:ENOSPC")
        proc = run_cli(root, "phase", "start", "1.1")
    assert proc.returncode == 0 and "warning" in proc.stderr
    assert "old_backup" in [f["code"] for f in cli_json(root, "doctor")["findings"]]
    (root / A / "state.json").write_bytes(b"{")
    proc = _doctor(root, "--repair")
    assert proc.returncode == 0
    assert (
        "repaired: restored .agents/state.json from .agents/state.json.bak (revision 3, "
        "now revision 5)" in proc.stdout
    )
    assert proc.stdout.endswith(
        "lost: revision 4 (phase_start 1.1): recorded in events.jsonl "
        "after the backup; do them again\n"
    )
    state = cli_json(root, "status")["workflow"]
    assert state["revision"] == 5 and state["currentPhase"] == "1.1"


def test_issue_7_deleted_state_is_not_no_workflow(root: Path) -> None:
    _workflow(root)
    (root / A / "state.json").unlink()
    for args in (["status"], ["next"], ["dispatch", "new"], ["task", "claim"]):
        proc = run_cli(root, *args)
        assert (proc.returncode, proc.stderr) == (
            5,
            (
                "agents-state: error: .agents/state.json: is missing, but "
                ".agents/state.json.bak (a "
                "copy of the last state written) is there; run: agents-state doctor --repair to "
                "restore it, or delete .agents/state.json.bak to start anew\n"
            ),
        ), args
    proc = _doctor(root, "--repair")
    assert proc.returncode == 0 and proc.stdout.startswith(
        "error: .agents/state.json is missing, but .agents/state.json.bak holds revision 2 of "
        "the workflow 'doctor'\n"
    )
    assert "lost: nothing\n" in proc.stdout
    _healthy(root)


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["next"],
        ["dispatch", "x"],
        ["dispatch", "--replace", "x"],
        ["task", "claim"],
        ["compact"],
        ["stop"],
        ["resume"],
        ["context"],
        ["phase", "start", "1.1"],
    ],
)
def test_issue_7_corrupt_state_never_reads_as_no_workflow(root: Path, args: list[str]) -> None:
    _workflow(root)
    (root / A / "state.json").write_bytes(b"{oops")
    proc = run_cli(root, *args)
    assert proc.returncode == 5 and "run: agents-state doctor" in proc.stderr, proc.stderr
    assert (root / A / "state.json").read_bytes() == b"{oops"


def test_issue_7_no_backup_cannot_be_repaired(root: Path) -> None:
    _workflow(root)
    (root / A / "state.json.bak").unlink()
    (root / A / "state.json").write_bytes(b"[")
    proc = _doctor(root, "--repair")
    assert proc.returncode == 5
    assert (
        "fix: by hand: no good copy to restore from (.agents/state.json.bak is missing)"
        in proc.stdout
    )
    assert (root / A / "state.json").read_bytes() == b"["


def test_issue_7_missing_backup_is_written_again(root: Path) -> None:
    _workflow(root)
    (root / A / "state.json.bak").unlink()
    proc = _doctor(root, "--repair")
    assert proc.returncode == 0
    assert (
        "repaired: wrote .agents/state.json.bak from .agents/state.json (revision 2)" in proc.stdout
    )
    _healthy(root)


def test_issue_7_missing_artifact_reopens_its_phase(root: Path) -> None:
    _workflow(root)
    assert run_cli(root, "compact").returncode == 0
    proc = run_cli(root, "phase", "complete", "1.1", "--artifact", "-", stdin="ideas")
    assert proc.returncode == 0, proc.stderr
    (root / A / "phases/0-explore.md").unlink()
    proc = _doctor(root)
    assert proc.returncode == 5 and proc.stdout.startswith(
        "error: phase 0's artifact .agents/phases/0-explore.md is missing (state.files.explore "
        "points at it)\n  repair: reopen phase 0 so that it runs again (its work is lost; later "
        "phases keep theirs)\n"
    )
    proc = _doctor(root, "--repair")
    assert proc.returncode == 0
    assert proc.stdout.endswith(
        "repaired: reopened phase(s) 0 (.agents/phases/0-explore.md): the workflow continues at "
        "phase 0\nlost: the work of phase(s) 0 (artifact missing): they run again\n"
    )
    assert cli_json(root, "next")["phase"] == "0"
    proc = run_cli(root, "phase", "complete", "0", "--artifact", "-", stdin="# again\n")
    assert proc.returncode == 0, proc.stderr
    assert cli_json(root, "status")["workflow"]["currentPhase"] == "1.2"  # 1.1 is kept
    _healthy(root)


def test_issue_7_dead_owner_and_temp_files(root: Path, tmp_path: Path) -> None:
    _workflow(root)
    # a writer takes the lock, starts its temp file and dies by SIGKILL
    script = (
        "import os, signal, time, fcntl\n"
        f"fd = os.open({str(root / A)!r}, os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)\n"
        f"open({str(root / A / 'lock-owner')!r}, 'w')"
        ".write(f'{os.getpid()} {time.time():.0f}')\n"
        f"open({str(root / A)!r} + f'/.tmp-state.json.{{os.getpid()}}.1', 'w').write('{{\"ver')\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    dead = subprocess.run([sys.executable, "-c", script], check=False)
    assert dead.returncode == -9
    proc = _doctor(root)
    assert proc.returncode == 0  # nothing blocks the next update: notes and warnings only
    assert (
        "the last holder of the lock, pid" in proc.stdout and "died during a write" in proc.stdout
    )
    assert (
        "1 leftover temp file(s) from an interrupted write: .agents/.tmp-state.json." in proc.stdout
    )
    proc = _doctor(root, "--repair")
    assert "repaired: deleted 1 leftover temp file(s)\n" in proc.stdout
    assert "repaired: cleared .agents/lock-owner" in proc.stdout
    assert not [n for n in os.listdir(root / A) if n.startswith(".tmp-")]
    proc = run_cli(root, "compact", env={"AGENTS_STATE_LOCK_TIMEOUT": "2"})
    assert proc.returncode == 0, proc.stderr
    _healthy(root)


def test_issue_7_half_migrated_folder(root: Path) -> None:
    (root / A).mkdir()
    v1 = {
        "version": 1,
        "task": "old",
        "currentStage": "PLAN",
        "currentPhase": "1.1",
        "stages": {"PLAN": {"status": "in_progress"}},
    }
    (root / A / "subagents-state.json").write_text(json.dumps(v1))
    assert run_cli(root, "migrate").returncode == 0
    # as if the process died before its last step, the rename of the old file
    os.replace(root / A / "subagents-state.json.migrated", root / A / "subagents-state.json")
    proc = _doctor(root)
    assert (
        "warning: .agents/subagents-state.json is still in place next to .agents/state.json:"
        " a migration was interrupted after writing the state\n" in proc.stdout
    )
    proc = _doctor(root, "--repair")
    assert (
        "repaired: renamed .agents/subagents-state.json to .agents/subagents-state.json."
        "migrated (the migration is complete)" in proc.stdout
    )
    assert (root / A / "subagents-state.json.migrated").is_file()
    _healthy(root)


def test_issue_7_torn_event_line(root: Path) -> None:
    _workflow(root)
    with open(root / A / "events.jsonl", "ab") as f:
        f.write(b'{"rev": 3, "eve')
    proc = _doctor(root)
    assert (
        "warning: .agents/events.jsonl: line(s) 3 are not valid JSON (a write was cut short)"
        in proc.stdout
    )
    proc = _doctor(root, "--repair")
    assert (
        "lost: 1 events.jsonl line(s) that could not be read (the log only; the state is "
        "not affected)\n" in proc.stdout
    )
    assert len((root / A / "events.jsonl").read_text().splitlines()) == 2
    _healthy(root)


def test_issue_7_state_symlink_out_of_tree(root: Path, tmp_path: Path) -> None:
    _workflow(root)
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    (root / A / "state.json").unlink()
    (root / A / "state.json").symlink_to(outside)
    assert run_cli(root, "status").returncode == 5
    proc = _doctor(root, "--repair")
    assert proc.returncode == 0 and "restored .agents/state.json from" in proc.stdout
    assert outside.read_text() == "{}" and not (root / A / "state.json").is_symlink()
    _healthy(root)


def test_issue_7_agents_folder_symlink_out_of_tree(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "other"
    outside.mkdir()
    (root / A).symlink_to(outside)
    proc = _doctor(root, "--repair")
    assert proc.returncode == 5
    assert proc.stdout.startswith(
        f"error: .agents is a symbolic link out of the project (to "
        f"{outside}); agents-state refuses to write there\n"
    )
    assert os.listdir(outside) == []
