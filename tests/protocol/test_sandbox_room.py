"""Issue 23: the room's edges -- fail closed without bubblewrap, the one-time probe, the hook's
answer as Claude Code reads it, a task's own worktree, a profile granted the network, and the
git configuration shown without its tokens."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agents_state.hooks import run_hook, sandbox, secretscan
from agents_state.hooks.profile_check import subagent_denial
from agents_state.hooks.room import (
    kept_env,
    quote,
    sanitized_git_config,
    shell_command,
    tool_dirs,
)
from agents_state.profiles import get_profile

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap")

VALIDATOR = "subagents:quality-validator"
NOT_INSTALLED = (
    "agents-state: the validator profile runs Bash only inside a sandbox (bubblewrap), and "
    "bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap) and retry; "
    "until then use Read, Grep and Glob, or finish with decision CLARIFY and say so."
)


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="agents-state-room-", dir="/var/tmp"))
    project = base / "proj"
    (project / ".agents").mkdir(parents=True)
    (project / ".agents" / "state.json").write_text(
        json.dumps({"version": 2, "task": "t", "status": "in_progress", "currentPhase": "0"})
    )
    (project / ".env").write_text("TOKEN=sekrit\n")
    monkeypatch.setenv("HOME", str(base / "home"))
    (base / "home").mkdir()
    monkeypatch.chdir(project)
    try:
        yield project
    finally:
        shutil.rmtree(base, ignore_errors=True)


def answer(root: Path, command: str, cwd: Path | None = None, **tool_input: Any) -> Any:
    return subagent_denial(
        {
            "session_id": "s",
            "cwd": str(cwd or root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, **tool_input},
            "agent_id": "a1",
            "agent_type": VALIDATOR,
        },
        None,
    )


def run(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ["HOME"]}
    return subprocess.run(
        ["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def test_without_bubblewrap_the_profile_fails_closed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: None)
    assert answer(root, "pytest -q") == NOT_INSTALLED


def test_a_bubblewrap_that_cannot_build_a_room_fails_closed(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: str(fake))
    assert answer(root, "pytest -q") == (
        "agents-state: the validator profile runs Bash only inside a sandbox (bubblewrap), and "
        "bubblewrap cannot build one here (bwrap: No permissions to create new namespace): "
        "install it (apt-get install bubblewrap) and retry; until then use Read, Grep and "
        "Glob, or finish with decision CLARIFY and say so."
    )
    assert not Path(sandbox._cache_file()).exists()  # a failure is not remembered


def test_the_probe_runs_once(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bwrap = sandbox.find_bwrap()
    assert bwrap is not None
    assert sandbox.probe(bwrap) is None
    assert Path(sandbox._cache_file()).read_text().startswith(f"{bwrap} ")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("probed again")

    monkeypatch.setattr(subprocess, "run", refuse)
    assert isinstance(answer(root, "pytest -q"), sandbox.Rewrite)


def test_the_hook_rewrites_and_never_grants(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    payload = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -a", "description": "list", "timeout": 60000},
        "tool_use_id": "toolu_1",
        "agent_id": "a1",
        "agent_type": VALIDATOR,
    }
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
    assert run_hook("pre-tool-use") == 0
    out = json.loads(capsys.readouterr().out)
    hso = out["hookSpecificOutput"]
    assert set(hso) == {"hookEventName", "updatedInput"}  # no permissionDecision
    new = hso["updatedInput"]
    assert {k: v for k, v in new.items() if k != "command"} == {
        "description": "list",
        "timeout": 60000,
    }
    proc = run(new["command"], root)
    assert proc.returncode == 0 and ".env" in proc.stdout.split(), proc.stderr


def test_writers_are_contained_and_not_judged(root: Path) -> None:
    """Issue 32: a writer's Bash (task agents) is not held to an allowlist, but it runs in a
    room all the same."""
    payload = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat .env; touch made; touch .agents/x"},
        "agent_id": "a1",
        "agent_type": "subagents:task-agent",  # writer
    }
    line = subagent_denial(payload, None)
    assert isinstance(line, sandbox.Rewrite)
    proc = run(line.command, root)
    assert proc.stdout == "TOKEN=sekrit\n"  # a writer may read what its Read tool may
    assert (root / "made").exists() and not (root / ".agents" / "x").exists()
    assert "Read-only file system" in proc.stderr


def test_a_task_worktree_is_the_only_place_written(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    tree = root / ".claude" / "worktrees" / "agent-1"
    tree.mkdir(parents=True)
    profile = get_profile("validator")
    assert profile is not None
    line = sandbox.contain(  # the first check would refuse touch: the room must hold alone
        profile,
        str(root),
        str(tree),
        {"command": "touch mine ../agent-2 ../../../outside; echo x > ../../settings.json"},
    )
    assert isinstance(line, sandbox.Rewrite)
    proc = run(line.command, tree)
    assert (tree / "mine").exists()
    assert "Read-only file system" in proc.stderr
    assert not (root / "outside").exists() and not (root / ".claude" / "settings.json").exists()
    assert not (root / ".claude" / "worktrees" / "agent-2").exists()


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_the_network_only_where_the_profile_grants_it(root: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    fetch = f"curl -s --max-time 3 http://127.0.0.1:{server.server_address[1]}/"
    try:
        config = Path(os.environ["HOME"]) / ".claude" / "subagents-config.json"  # issue 32
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"toolProfiles": {"validator": {"bashAllow": ["curl"]}}}))
        closed = answer(root, fetch)
        config.write_text(
            json.dumps({"toolProfiles": {"validator": {"bashAllow": ["curl"], "network": True}}})
        )
        opened = answer(root, fetch)
        assert isinstance(closed, sandbox.Rewrite) and isinstance(opened, sandbox.Rewrite)
        assert "--unshare-net" in closed.command and "--unshare-net" not in opened.command
        assert run(closed.command, root).stdout == ""
        assert run(opened.command, root).stdout == "hello"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            '[remote "o"]\n\turl = https://bot:tok@example.com/r.git\n',
            '[remote "o"]\n\turl = https://example.com/r.git',
        ),
        ('[remote "o"]\n\turl = ssh://git@host/r\n', '[remote "o"]\n\turl = ssh://host/r'),
        (
            '[http "https://h/"]\n\textraheader = AUTHORIZATION: basic eA==\n[user]\n\tname = T\n',
            '[http "https://h/"]\n[user]\n\tname = T',
        ),
        ("[core]\n\tbare = false\n", None),
    ],
)
def test_git_config_is_shown_without_tokens(text: str, shown: str | None) -> None:
    assert sanitized_git_config(text) == shown


def test_the_rewrite_has_nothing_the_host_cannot_check(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code refuses a command with variables or a here-string it cannot check before it
    runs (2.1.330): outside the quoted original, the rewrite is literal words only; the kept
    environment's values are literal, the rest of the environment is not there at all."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-not-for-the-room")
    monkeypatch.setenv("VIRTUAL_ENV", "/opt/venv")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(
        ["git", "-C", str(root), "remote", "add", "o", "https://u:tok@h/r.git"], check=True
    )
    command = 'echo "$HOME" ${X:-y} $(pwd) <<EOF\nx\nEOF'
    profile = get_profile("validator")
    assert profile is not None
    line = sandbox.contain(profile, str(root), str(root), {"command": command})
    assert isinstance(line, sandbox.Rewrite)
    head, tail = line.command.split(" -- /bin/bash -c ", 1)
    quoted, seccomp = tail.rsplit(" 3<", 1)  # the system call filter, bubblewrap's fd 3
    assert quoted == quote(command)
    assert seccomp.startswith(f"{root}/.agents/seccomp-") and quote(seccomp) == seccomp
    assert not any(c in head for c in "$`<>;&|\n"), head
    assert "--setenv VIRTUAL_ENV /opt/venv" in head and "ANTHROPIC_API_KEY" not in head
    assert "tok" not in head  # the git configuration's copy is a file without the token
    copy = (
        head.split(
            " --ro-bind ",
        )[-1].split()[0]
        if "gitconfig-" in head
        else ""
    )
    assert "gitconfig-" in copy and "tok@" not in Path(copy).read_text()


def _example(pattern: str) -> str:
    """A path the catalogue's ``pattern`` matches."""
    import re

    text = pattern[2:] if pattern.startswith("~/") else pattern
    text = text.replace("/**", "/inner/file")
    text = re.sub(r"\{([^,}]*),[^}]*\}", r"\1", text)
    text = re.sub(r"\[([^]])[^]]*\]", r"\1", text)
    return text.replace("*", "Ab").replace("?", "q")


def test_the_scan_prefilter_lets_every_credential_through(tmp_path: Path) -> None:
    """``find_secrets`` asks ``credential_entry`` only about files its quick test passes: that
    test must pass every file the catalogue names, upper case too."""
    from agents_state.credentials import CATALOGUE, credential_entry

    root = str(tmp_path / "proj")
    from agents_state.hooks.scancache import _prefilter

    maybe = _prefilter(root, "/home/u")
    examples = [_example(p) for p, _ in CATALOGUE if not p.startswith("~/")]
    examples += [e.upper() for e in examples] + [f"sub/dir/{e}" for e in examples]
    checked = 0
    for rel in examples:
        if credential_entry(f"{root}/{rel}", "/home/u"):
            checked += 1
            assert maybe(rel, rel.rsplit("/", 1)[-1]), rel
    assert checked >= 2 * len(CATALOGUE)
    assert not maybe("src/app.py", "app.py") and not maybe("README.md", "README.md")


def _settle(root: Path) -> None:
    """Folder times older than the scan's two seconds of doubt."""
    old = time.time() - 60
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        os.utime(folder, (old, old))


def test_the_scan_is_remembered_until_a_folder_changes(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "a.py").write_text("x = 1\n")
    _settle(root)
    home = os.environ["HOME"]
    real = str(root.resolve())
    first = secretscan.find_secrets(real, home)
    assert f"{real}/.env" in first and list(Path(secretscan.cache_dir()).glob("scan-*.json"))

    def no_walk(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("walked again")

    with monkeypatch.context() as m:
        m.setattr(secretscan, "walk", no_walk)
        assert secretscan.find_secrets(real, home) == first  # one stat per folder
    (root / "src" / "deep" / "server.pem").write_text("key\n")  # its folder's time changes
    assert f"{real}/src/deep/server.pem" in secretscan.find_secrets(real, home)


def test_a_fresh_folder_or_a_cache_in_the_project_is_not_remembered(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = str(root.resolve())
    secretscan.find_secrets(real, os.environ["HOME"])  # folders just made: not settled
    assert not list(Path(secretscan.cache_dir()).glob("scan-*.json"))
    _settle(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / ".cache"))  # where the room writes
    secretscan.find_secrets(real, os.environ["HOME"])
    assert not (root / ".cache").exists()


def test_sockets_under_run_are_out_of_reach(root: Path) -> None:
    """A unix socket is not network: docker's, the database's, the ssh agent's would be reached
    through the file system.  /run is an empty folder in the room."""
    import socket

    if not os.access("/run", os.W_OK):
        pytest.skip("needs a writable /run (CI runs as root)")
    path = f"/run/agents-state-test-{os.getpid()}.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    try:
        profile = get_profile("validator")
        assert profile is not None
        probe = (
            'python3 -c "import socket; s = socket.socket(socket.AF_UNIX); '
            f"s.connect('{path}'); print('connected')\"; "
            "ls -A /run/ | wc -l; ls -A /var/run/ | wc -l"
        )
        plain = run(probe, root)
        assert "connected" in plain.stdout
        line = sandbox.contain(profile, str(root), str(root), {"command": probe})
        assert isinstance(line, sandbox.Rewrite)
        boxed = run(line.command, root)
        assert "connected" not in boxed.stdout and boxed.stdout.split() == ["0", "0"], boxed
    finally:
        server.close()
        os.unlink(path)


@pytest.mark.parametrize(
    ("command", "git_write", "outside"),
    [
        ("agents-state task done t1 --summary 'x y'", False, True),
        ("agents-state handoff record --file h.json", False, True),
        ("agents-state phase run 3.1", False, False),  # runs the project's test command
        ("agents-state status && cat README.md", False, False),
        ("agents-state status > /dev/null", False, False),
        ("git push -u origin feat", True, True),
        ("gh pr create --title t --body b", True, True),
        ("git push origin x; gh pr view", True, True),
        ("git push origin x", False, False),  # only the committer pushes
        ("git commit -m x && git push origin x", True, True),  # the committer's git: issue 32
        ("git add a* && git commit -m x", True, False),  # a word bash would expand: inside
        ("git add ~/x", True, False),
        ("git add x=~/y", True, False),
        ("git commit -m 'a ~ b'", True, True),
        ("git status && git commit -m x", True, False),
        ("git -C . push", True, True),
        ("pytest -q", True, False),
    ],
)
def test_what_runs_outside_the_room(command: str, git_write: bool, outside: bool) -> None:
    assert sandbox.runs_outside(command, git_write) is outside


def test_a_repository_without_hooks_or_config_gets_neither(root: Path) -> None:
    """What is missing cannot be created: an empty read-only hooks folder, a config whose
    writes go nowhere (git still runs)."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    shutil.rmtree(root / ".git" / "hooks")
    (root / ".git" / "config").unlink()
    profile = get_profile("validator")
    assert profile is not None
    attack = (
        "printf '#!/bin/sh\\n' > .git/hooks/pre-commit; "
        "printf '[core]\\n\\tfsmonitor = x\\n' >> .git/config; git status --short; echo done"
    )
    line = sandbox.contain(profile, str(root), str(root), {"command": attack})
    assert isinstance(line, sandbox.Rewrite)
    proc = run(line.command, root)
    assert proc.stdout.endswith("done\n"), proc
    assert not (root / ".git" / "hooks").exists()  # .git is read-only, all of it
    assert not (root / ".git" / "config").exists()


@pytest.mark.parametrize(
    ("timed_out", "why"),
    [
        (False, "more than 1,000,000 files and folders under /p"),
        (True, "the project could not be listed in time"),
    ],
)
def test_a_project_too_large_to_scan_fails_closed(
    root: Path, monkeypatch: pytest.MonkeyPatch, timed_out: bool, why: str
) -> None:
    from agents_state.hooks.walk import WalkCapError

    def too_many(*args: Any, **kwargs: Any) -> list[str]:
        raise WalkCapError("/p", 1_000_000, timed_out=timed_out)

    monkeypatch.setattr(sandbox, "find_secrets", too_many)
    assert answer(root, "pytest -q") == (
        "agents-state: the validator profile runs Bash in a sandbox that hides the project's "
        f"credential files, and {why}, so they cannot all be found; denied."
    )


def test_the_kept_environment(tmp_path: Path) -> None:
    (tmp_path / "data" / "bin").mkdir(parents=True)
    environ = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": "sk-x",
        "GITHUB_TOKEN": "ghp_x",
        "DATABASE_URL": "postgresql://u:p@h/d",
        "AGENTS_STATE_STORE": "postgresql://u:p@h/d",
        "CLAUDE_PLUGIN_DATA": str(tmp_path / "data"),
        "CLAUDE_PLUGIN_ROOT": str(tmp_path / "missing"),
    }
    assert kept_env(environ) == {
        "PATH": f"/usr/bin:/bin:{tmp_path}/data/bin",  # the engine the plugin installed
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "GOCACHE": "/tmp/go-build",  # the home is read-only in the room
    }
    assert kept_env({"GOCACHE": "/c", "PATH": "/b"})["GOCACHE"] == "/c"


def test_tools_on_path_under_tmp_stay_visible_read_only(root: Path) -> None:
    """Found by CI: a clone under /tmp has its venv (pytest) under /tmp, which the room's private
    /tmp hid, so the validator's `python3 -m pytest` found no pytest. PATH's folders under /tmp
    (a venv's whole folder for its bin/) are bound read-only; other /tmp files stay hidden."""
    base = Path(tempfile.mkdtemp(prefix="agents-state-tools-", dir="/tmp"))
    try:
        venv = base / "venv"
        (venv / "bin").mkdir(parents=True)
        (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (venv / "lib").mkdir()
        (venv / "lib" / "mod.txt").write_text("module\n")
        (venv / "bin" / "tool").write_text("#!/bin/sh\necho tool-ran\n")
        (venv / "bin" / "tool").chmod(0o755)
        (base / "other.txt").write_text("hidden\n")
        path = f"{venv / 'bin'}:relative/bin:/usr/bin:/bin"
        assert tool_dirs(path) == (os.path.realpath(venv),)
        room = sandbox.room_for(str(root), str(root), str(root.parent / "home"), False)
        line = shell_command(
            "/usr/bin/bwrap",
            room,
            f"tool; cat {venv}/lib/mod.txt; cat {base}/other.txt; touch {venv}/lib/x",
            {"PATH": path},
        )
        done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=root)
        assert done.stdout == "tool-ran\nmodule\n"
        assert "other.txt: No such file" in done.stderr
        assert "Read-only file system" in done.stderr
        assert not (venv / "lib" / "x").exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_a_folder_shown_inside_one_already_shown_is_not_mounted_again(tmp_path: Path) -> None:
    """Each mount costs bubblewrap's start-up time (issue 32's 15 ms): ``~/.pyenv/shims`` from
    PATH under ``~/.pyenv`` from the allowlist, or a folder named twice, is one mount."""
    from agents_state.hooks.room import Room, bwrap_args

    home = tmp_path / "home"
    for sub in (".pyenv/shims", ".cargo/bin"):
        (home / sub).mkdir(parents=True)
    pyenv, shims, cargo = (str(home / s) for s in (".pyenv", ".pyenv/shims", ".cargo/bin"))
    room = Room((), (), (), False, hidden=(str(home),), binds=((pyenv, pyenv), (cargo, cargo)))
    args = bwrap_args(room, (shims, cargo, str(tmp_path / "tmpbin")))
    shown = [args[i + 2] for i, a in enumerate(args) if a == "--ro-bind" and args[i + 1] != "/"]
    assert shown == [pyenv, cargo, str(tmp_path / "tmpbin")]
