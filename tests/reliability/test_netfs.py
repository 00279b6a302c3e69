"""Issue 7: on NFS, CIFS or FUSE the first update warns once, clearly; doctor always says so."""

from __future__ import annotations

from pathlib import Path

import pytest
import seams
from clitools import run_cli

from agents_state.store import netfs

LOCAL = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"


def _mountinfo(tmp_path: Path, point: str, fstype: str) -> Path:
    p = tmp_path / "mountinfo"
    p.write_text(LOCAL + f"90 27 0:50 / {point} rw,relatime - {fstype} server:/x rw\n")
    return p


@pytest.mark.parametrize(
    ("fstype", "network"),
    [
        ("nfs4", True),
        ("nfs", True),
        ("cifs", True),
        ("smb3", True),
        ("fuse.sshfs", True),
        ("fuse.rclone", True),
        ("ext4", False),
        ("tmpfs", False),
        ("fuse.fuse-overlayfs", False),
    ],
)
def test_issue_7_fs_type_from_mountinfo(tmp_path: Path, fstype: str, network: bool) -> None:
    (tmp_path / "my proj").mkdir()
    info = _mountinfo(tmp_path, str(tmp_path / "my proj").replace(" ", "\\040"), fstype)
    assert netfs.fs_type(tmp_path / "my proj", str(info)) == fstype
    assert netfs.fs_type(tmp_path, str(info)) == "ext4"  # the longest mount point wins
    assert netfs.is_network(fstype) is network


def test_issue_7_network_fs_warns_once(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _mountinfo(tmp_path, str(root), "nfs4")
    seams.install(monkeypatch.setattr, mountinfo=str(info))
    first = run_cli(root, "dispatch", "nfs")
    assert first.returncode == 0
    assert first.stderr == (
        f"agents-state: warning: {root}/.agents is on a network file system (nfs4): its locks "
        "may not be seen by processes on other machines, so run every agent that updates this "
        "workflow on one machine (see docs/reliability.md)\n"
    )
    second = run_cli(root, "phase", "start", "0")
    assert (second.returncode, second.stderr) == (0, "")
    doctor = run_cli(root, "doctor")
    assert doctor.returncode == 0
    assert f"warning: {root}/.agents is on a network file system (nfs4)" in doctor.stdout


def test_issue_7_local_fs_is_silent(root: Path) -> None:
    proc = run_cli(root, "dispatch", "local")
    assert (proc.returncode, proc.stderr) == (0, "")
