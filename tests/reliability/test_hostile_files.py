"""Issue 16: nothing inside ``.agents/`` is followed or opened blindly, and inputs given by path
are regular files read with a cap.  A symbolic link (to a file outside the project, or dangling)
and a FIFO are planted at every path the engine opens; each command refuses in one line naming
the path (exit 5), or, for a log a hook appends to, warns and goes on; nothing outside
``.agents/`` changes, no file appears outside, and nothing hangs (every run has a timeout)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from clitools import CLI, run_cli

A = ".agents"
_TEMPLATE: list[Path] = []


def _workflow(root: Path) -> None:
    """A workflow past phase 0, with its artifact (built once, copied per test)."""
    if not _TEMPLATE:
        base = Path(tempfile.mkdtemp(prefix="agents-state-hostile-"))
        assert run_cli(base, "dispatch", "hostile").returncode == 0
        proc = run_cli(base, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n")
        assert proc.returncode == 0, proc.stderr
        _TEMPLATE.append(base)
    shutil.copytree(_TEMPLATE[0] / A, root / A)


def _run(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Like run_cli, with a short timeout: a command that blocks on a FIFO fails the test."""
    return subprocess.run(
        [CLI, "--root", str(root), *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=20,
        check=False,
    )


def _outside(tmp_path: Path) -> tuple[Path, dict[str, tuple[bytes, int]]]:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "target").write_bytes(b"precious\n")
    return out, _seen(out)


def _seen(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def _plant(path: Path, kind: str, outside: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    if kind == "link":
        path.symlink_to(outside / "target")
    elif kind == "dangling":
        path.symlink_to(outside / "new-file")
    elif kind == "dirlink":
        path.symlink_to(outside)
    else:
        os.mkfifo(path)


def _refused(name: str, kind: str) -> str:
    what = {
        "link": "a symbolic link",
        "dangling": "a symbolic link",
        "dirlink": "a symbolic link",
        "fifo": "a FIFO (named pipe)",
    }[kind]
    want = "a directory" if kind == "dirlink" else "a regular file"
    return (
        f"agents-state: error: .agents/{name}: is {what}, not {want}; agents-state does not "
        f"follow links or open special files in .agents/ (replace it with {want})\n"
    )


# (file under .agents/, command, stdin): the command that opens that file
STORE_PATHS = [
    ("state.json", ("status",), None),
    ("lock-owner", ("compact",), None),
    ("events.jsonl", ("compact",), None),
    ("phases/0-explore.md", ("phase", "complete", "0"), None),  # read as the existing artifact
    ("phases/1.1-brainstorm.md", ("phase", "complete", "1.1", "--artifact", "-"), "# plan\n"),
]


@pytest.mark.parametrize("kind", ["link", "dangling", "fifo"])
@pytest.mark.parametrize(("name", "args", "stdin"), STORE_PATHS, ids=[p[0] for p in STORE_PATHS])
def test_issue_16_planted_file_is_refused(
    root: Path, tmp_path: Path, name: str, args: tuple[str, ...], stdin: str | None, kind: str
) -> None:
    _workflow(root)
    outside, before = _outside(tmp_path)
    if name == "phases/0-explore.md":  # reopen phase 0 so that completing it reads the file
        state = json.loads((root / A / "state.json").read_text())
        state["stages"]["EXPLORE"]["phases"]["0"]["status"] = "in_progress"
        state["currentPhase"], state["currentStage"] = "0", "EXPLORE"
        (root / A / "state.json").write_text(json.dumps(state))
    _plant(root / A / name, kind, outside)
    state = (root / A / "state.json").read_bytes() if name != "state.json" else None
    proc = _run(root, *args, stdin=stdin)
    assert (proc.returncode, proc.stderr) == (5, _refused(name, kind))
    assert proc.stdout == ""
    assert _seen(outside) == before  # nothing written, truncated or created outside
    if state is not None:
        assert (root / A / "state.json").read_bytes() == state


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("phases", ("phase", "complete", "1.1", "--artifact", "-")),
        ("archive", ("dispatch", "--replace", "anew")),
        ("chains", ("chain", "start", "code", "feature")),
    ],
)
def test_issue_16_planted_folder_link_is_refused(
    root: Path, tmp_path: Path, name: str, args: tuple[str, ...]
) -> None:
    _workflow(root)
    outside, before = _outside(tmp_path)
    if name == "phases":
        shutil.copytree(root / A / "phases", tmp_path / "kept")
    _plant(root / A / name, "dirlink", outside)
    state = (root / A / "state.json").read_bytes()
    proc = _run(root, *args, stdin="# plan\n")
    assert (proc.returncode, proc.stderr) == (5, _refused(name, "dirlink"))
    assert _seen(outside) == before
    assert (root / A / "state.json").read_bytes() == state


@pytest.mark.parametrize("kind", ["link", "fifo"])
@pytest.mark.parametrize(
    ("name", "event", "payload"),
    [
        ("toolcalls.log", "post-tool-use", {"tool_name": "Read"}),
        (
            "subagents.jsonl",
            "subagent-start",
            {"agent_id": "a1", "agent_type": "subagents:explore"},
        ),
    ],
)
def test_issue_16_hook_logs_never_follow_or_block(
    root: Path, tmp_path: Path, name: str, event: str, payload: dict[str, str], kind: str
) -> None:
    """A hook must not break the session: it warns, writes nothing outside and never hangs."""
    _workflow(root)
    outside, before = _outside(tmp_path)
    _plant(root / A / name, kind, outside)
    data = {"session_id": "s", "transcript_path": "/tmp/t", "cwd": str(root), **payload}
    proc = subprocess.run(
        [CLI, "hook", event],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=20,
        check=False,
    )
    assert proc.returncode == 0
    assert f".agents/{name}: is " in proc.stderr and proc.stderr.count("\n") == 1
    assert _seen(outside) == before


def test_issue_16_compact_does_not_truncate_a_linked_tool_call_log(
    root: Path, tmp_path: Path
) -> None:
    """compact clears the tool-call log after its update is saved: a link there is refused
    without truncating its target, and the saved update is reported as saved (exit 8)."""
    _workflow(root)
    outside, before = _outside(tmp_path)
    _plant(root / A / "toolcalls.log", "link", outside)
    rev = json.loads((root / A / "state.json").read_text())["revision"]
    proc = _run(root, "compact")
    assert proc.returncode == 8
    assert proc.stderr == (
        f"agents-state: warning: the update was saved (revision {rev + 1}), but reporting it "
        "failed: .agents/toolcalls.log: is a symbolic link, not a regular file; agents-state "
        "does not follow links or open special files in .agents/ (replace it with a regular "
        "file); do not repeat it: check with agents-state status\n"
    )
    assert json.loads((root / A / "state.json").read_text())["revision"] == rev + 1
    assert _seen(outside) == before


@pytest.mark.parametrize("what", ["backup", "doctor"])
def test_issue_16_backup_link_is_replaced_never_followed(
    root: Path, tmp_path: Path, what: str
) -> None:
    """The backup is written by rename, which replaces a link instead of writing through it;
    doctor reads it without following it."""
    _workflow(root)
    outside, before = _outside(tmp_path)
    _plant(root / A / "state.json.bak", "link", outside)
    if what == "backup":
        assert _run(root, "compact").returncode == 0
        assert not (root / A / "state.json.bak").is_symlink()
    else:
        proc = _run(root, "doctor")
        assert proc.returncode == 0 and "state.json.bak" in proc.stdout
    assert _seen(outside) == before


# -- inputs given by path --------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("phase", "complete", "1.1", "--artifact", "{f}"),
        ("tasks", "load", "{f}"),
        ("handoff", "validate", "{f}"),
        ("dispatch", "--replace", "--task-file", "{f}"),
    ],
    ids=["artifact", "tasks", "handoff", "task-file"],
)
def test_issue_16_fifo_input_is_refused_without_waiting(
    root: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    _workflow(root)
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    state = (root / A / "state.json").read_bytes()
    proc = _run(root, *(a.replace("{f}", str(fifo)) for a in args))
    assert (proc.returncode, proc.stderr) == (
        5,
        f"agents-state: error: {fifo}: is a FIFO (named pipe), not a regular file; pass a "
        "file, or - to read standard input\n",
    )
    assert (root / A / "state.json").read_bytes() == state


@pytest.mark.parametrize("name", [".gitignore", ".fstype", "state.json.bak"])
def test_issue_16_dangling_links_never_create_files_outside(
    root: Path, tmp_path: Path, name: str
) -> None:
    """Files an update writes by name (the ignore file, the file-system marker, the backup) are
    created with O_EXCL or by rename: a dangling link there never makes a file outside."""
    _workflow(root)
    outside, before = _outside(tmp_path)
    _plant(root / A / name, "dangling", outside)
    proc = _run(root, "compact")
    assert proc.returncode == 0, proc.stderr
    assert _seen(outside) == before  # no "new-file" appeared outside
