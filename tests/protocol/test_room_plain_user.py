"""Issue 32: the room as a plain user runs it on a laptop -- bubblewrap unprivileged (it makes its
own user namespace), the same walls: writes only in the project, the home private, no nested
user namespace, no unix socket.

Run as root (CI), the test makes a plain user with ``useradd`` and runs the rewritten command
as that user (``runuser``); run as a plain user, it runs the room as itself.  Under ``CI`` a
missing ``useradd`` or ``runuser`` fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents_state.hooks import sandbox
from agents_state.profiles import get_profile

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap")

USER = "agents-state-room"
SECRET = "sekrit-plain-1"
SBIN = "/usr/sbin:/sbin:/usr/bin:/bin"


def _missing(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{why} (CI runs this test for real)")
    pytest.skip(why)


def _plain_user() -> tuple[list[str], int]:
    """(the prefix that runs a command as a plain user, its uid)."""
    if os.geteuid() != 0:
        return [], os.geteuid()
    runuser, useradd = shutil.which("runuser", path=SBIN), shutil.which("useradd", path=SBIN)
    if runuser is None:
        _missing("runuser is not installed, so the room cannot be run as a plain user")
    try:
        pwd.getpwnam(USER)
    except KeyError:
        if useradd is None:
            _missing("useradd is not installed, so no plain user can be made")
        made = subprocess.run(
            [str(useradd), "--no-create-home", "--shell", "/bin/sh", USER],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode not in (0, 9):  # 9: made meanwhile
            _missing(f"useradd failed: {made.stderr.strip()}")
    return [str(runuser), "-u", USER, "--"], pwd.getpwnam(USER).pw_uid


@pytest.fixture
def base(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is not installed (apt-get install bubblewrap)")
    folder = Path(tempfile.mkdtemp(prefix="agents-state-plain-", dir="/var/tmp"))
    folder.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")  # a plain user's tools
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("profile", ["validator", "writer"])
def test_a_plain_user_gets_the_same_room(
    base: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    prefix, uid = _plain_user()
    root, home, outside = base / "proj", base / "home", base / "outside"
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "config.json").write_text("{}\n")
    home.mkdir()
    (home / ".bash_history").write_text(f"export TOKEN={SECRET}\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Plain\n")
    outside.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.setenv("HOME", str(home))
    spec = get_profile(profile)
    assert spec is not None
    answer = sandbox.contain(
        spec,
        str(root),
        str(root),
        {
            "command": (
                "id -u; touch made; touch ../outside/x; echo '{}' > .agents/config.json; "
                "cat ~/.bash_history; git config user.name; unshare -U true; echo user=$?; "
                "python3 -c 'import socket; socket.socket(socket.AF_UNIX)' 2>/dev/null; "
                "echo unix=$?"
            )
        },
    )
    assert isinstance(answer, sandbox.Rewrite), answer
    for path in (base, *base.rglob("*")):
        os.chown(path, uid, -1)
    sock = socket.socket(socket.AF_UNIX)  # a socket the plain user could reach outside
    sock.bind(str(outside / "s.sock"))
    sock.listen(1)
    try:
        proc = subprocess.run(
            [*prefix, "bash", "-c", answer.command],
            cwd=root,
            env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        sock.close()
    assert "bwrap:" not in proc.stderr, proc.stderr  # bubblewrap built the room unprivileged
    lines = proc.stdout.split()
    assert lines[0] == str(uid) and uid != 0, proc.stdout
    assert (root / "made").exists() and not (outside / "x").exists()
    assert json.loads((root / ".agents" / "config.json").read_text()) == {}
    assert SECRET not in proc.stdout and "Plain" in lines
    assert "user=1" in lines and "unix=1" in lines, proc.stdout
