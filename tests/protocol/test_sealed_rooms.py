"""Issue 32, item 1: sealed rooms, proven by running the attacks for real in bubblewrap.

Every profile's contained Bash (validator, committer, researcher+Bash and now the writer, which
task agents run) is built by the hook's own code and run as the Bash tool would run it.  In
every room:

- nothing git, the engine or the host trusts later can change: the whole ``.git`` (``commondir``,
  ``worktrees/*``, ``info/``, ``objects``), a linked worktree's ``.git`` pointer file,
  ``.agents/`` (config, state, usage) and ``.claude/``; git still reads (status, diff);
- the home folder is an empty private one with an allowlist shown in it: no shell history, no
  host login or transcripts, no docker socket, no relocated configuration folder; git's own
  settings without tokens; a hard link in the project to a home credential reads empty; in a
  linked worktree the main repository's ``.git/config`` shows no token;
- no unix socket outside the room can be reached, wherever it lies (``socketpair`` works);
- no new user or mount namespace.

The committer's git writes run outside the room, with hooks and the file-system monitor off.
The folders live under /var/tmp: the room's /tmp is private.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents_state.hooks import sandbox
from agents_state.hooks.profile_check import subagent_denial
from agents_state.hooks.room import quote
from agents_state.profiles import get_profile

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap")

TOKEN = "sekrit-tok-1"
PROFILES = ("validator", "committer", "researcher+Bash", "writer")
AGENTS = {
    "validator": "subagents:quality-validator",
    "committer": "subagents:git-executor",
    "researcher+Bash": "subagents:code-analyzer",
    "writer": "subagents:domain-writer",
}
PATH = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout


class Box:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.root = base / "proj"
        self.home = base / "home"
        self.xdg = base / "xdg"
        self.linked = base / "linked"  # a linked worktree of the project, elsewhere


def _make(base: Path) -> Box:
    b = Box(base)
    root, home = b.root, b.home
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text(
        json.dumps({"version": 2, "task": "t", "status": "in_progress", "currentPhase": "0"})
    )
    (root / ".agents" / "config.json").write_text("{}\n")
    (root / ".agents" / "usage.json").write_text("{}\n")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{}\n")
    (root / "src.txt").write_text("one\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "T")
    git(root, "config", "user.email", "t@example.com")
    git(root, "remote", "add", "origin", f"https://bot:{TOKEN}@example.com/r.git")
    git(root, "add", "src.txt")
    git(root, "commit", "-qm", "init")
    git(root, "worktree", "add", "-q", "-b", "side", str(b.linked))
    (root / "src.txt").write_text("two\n")  # an unstaged change
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"KEY {TOKEN}\n")
    (home / ".bash_history").write_text(f"export GITHUB_TOKEN={TOKEN}\n")
    (home / ".claude.json").write_text(json.dumps({"oauthAccount": TOKEN}))
    (home / ".claude" / "projects" / "p").mkdir(parents=True)
    (home / ".claude" / "projects" / "p" / "t.jsonl").write_text(json.dumps({"x": TOKEN}) + "\n")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Home User\n"
        f'[url "https://u:{TOKEN}@github.com/"]\n\tinsteadOf = https://github.com/\n'
    )
    (b.xdg / "tool").mkdir(parents=True)
    (b.xdg / "tool" / "creds").write_text(TOKEN)
    os.link(home / ".ssh" / "id_rsa", root / "notes.txt")  # another name for the home key
    return b


@pytest.fixture
def box(monkeypatch: pytest.MonkeyPatch) -> Iterator[Box]:
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is not installed (apt-get install bubblewrap)")
    base = Path(tempfile.mkdtemp(prefix="agents-state-sealed-", dir="/var/tmp"))
    try:
        b = _make(base)
        monkeypatch.setenv("HOME", str(b.home))
        monkeypatch.setenv("XDG_CONFIG_HOME", str(b.xdg))
        monkeypatch.setenv("PATH", PATH)
        monkeypatch.chdir(b.root)
        yield b
    finally:
        shutil.rmtree(base, ignore_errors=True)


def contained(b: Box, profile_name: str, command: str, cwd: Path | None = None) -> str:
    """The hook's rewrite after the first check (which the attacks bypass: the room must hold
    by itself)."""
    profile = get_profile(profile_name)
    assert profile is not None
    answer = sandbox.contain(
        profile, os.path.realpath(b.root), os.path.realpath(cwd or b.root), {"command": command}
    )
    assert isinstance(answer, sandbox.Rewrite), answer
    return answer.command


def run(b: Box, line: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": PATH, "HOME": str(b.home), "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(b.xdg)}
    return subprocess.run(
        ["bash", "-c", line],
        cwd=cwd or b.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _trusted(b: Box) -> dict[str, bytes]:
    git_dir = b.root / ".git"
    files = [p for p in git_dir.rglob("*") if p.is_file()]
    files += [*(b.root / ".agents").rglob("*"), *(b.root / ".claude").rglob("*")]
    files += [b.linked / ".git"]
    return {str(p): p.read_bytes() for p in files if p.is_file()}


WRITES = [
    "echo gitdir > .git/commondir",
    "mkdir -p .git/evil && "
    "printf '[core]\\n\\tfsmonitor = touch /var/tmp/pwned\\n' > .git/evil/config",
    "echo /var/tmp/evil > .git/worktrees/linked/gitdir",
    "echo ../../evil > .git/worktrees/linked/commondir",
    "echo '*' >> .git/info/exclude",
    "rm -rf .git/objects/*; touch .git/objects/x",
    "echo ref: refs/heads/x > .git/HEAD; rm .git/index",
    'echo \'{"agentProfiles": {"quality-validator": "orchestrator"}}\' > .agents/config.json',
    "echo '{}' > .agents/state.json; echo '{}' > .agents/usage.json; rm -f .agents/*",
    "echo '{\"hooks\": {}}' > .claude/settings.json; mkdir -p .claude/agents",
    "mv .git .gitx; mv .agents .agentsx",
    "echo 'gitdir: /var/tmp/evil' > {linked}/.git",
]


@pytest.mark.parametrize("profile", PROFILES)
def test_nothing_git_or_the_engine_trusts_can_change(box: Box, profile: str) -> None:
    contained(box, profile, "true")  # the system call filter's file is written once
    before = _trusted(box)
    for command in WRITES:
        proc = run(box, contained(box, profile, command.replace("{linked}", str(box.linked))))
        assert "bwrap:" not in proc.stderr, (command, proc.stderr)
    assert _trusted(box) == before
    assert not (box.root / ".gitx").exists() and not (box.root / ".git" / "evil").exists()
    assert not Path("/var/tmp/pwned").exists()
    # git still reads in the room, and the project itself is writable (but for the writer's
    # and the committer's own rules, the same for every profile)
    line = "git status --short; git diff --stat; git log --oneline; echo x > made.txt"
    proc = run(box, contained(box, profile, line))
    assert proc.returncode == 0, proc.stderr
    assert " M src.txt" in proc.stdout and "1 file changed" in proc.stdout, proc.stdout
    assert "init" in proc.stdout and (box.root / "made.txt").exists()


def test_in_a_linked_worktree_its_pointer_and_the_main_config_are_sealed(box: Box) -> None:
    """A call whose project is a linked worktree: its ``.git`` file is read-only and the main
    repository's ``.git/config`` shows no token (git still reads it)."""
    pointer = (box.linked / ".git").read_text()
    profile = get_profile("validator")
    assert profile is not None
    line = sandbox.contain(
        profile,
        str(box.linked),
        str(box.linked),
        {"command": f"echo 'gitdir: /x' > .git; cat {box.root}/.git/config; git remote -v"},
    )
    assert isinstance(line, sandbox.Rewrite)
    proc = run(box, line.command, box.linked)
    assert (box.linked / ".git").read_text() == pointer
    assert "https://example.com/r.git" in proc.stdout and TOKEN not in proc.stdout + proc.stderr


@pytest.mark.parametrize("profile", PROFILES)
def test_the_home_is_private(box: Box, profile: str) -> None:
    sock = box.home / ".docker" / "desktop" / "docker.sock"
    sock.parent.mkdir(parents=True)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    server.listen(1)
    try:
        attack = (
            "cat ~/.bash_history ~/.claude.json ~/.claude/projects/*/*.jsonl ~/.ssh/id_rsa; "
            f"cat {box.xdg}/tool/creds $XDG_CONFIG_HOME/tool/creds; "
            f"grep -rs sekrit ~ {box.xdg}; "
            "curl -s --max-time 3 --unix-socket ~/.docker/desktop/docker.sock http://x/; "
            "git config --global --list; ls -A ~"
        )
        proc = run(box, contained(box, profile, attack))
    finally:
        server.close()
    assert TOKEN not in proc.stdout + proc.stderr
    assert "user.name=Home User" in proc.stdout  # git's own settings, without the token
    assert "url.https://github.com/.insteadof=https://github.com/" in proc.stdout
    assert proc.stdout.split()[-1] == ".gitconfig", proc.stdout  # the home is empty but that


def test_a_hard_link_to_a_home_credential_reads_empty(box: Box) -> None:
    for profile in ("validator", "committer", "researcher+Bash"):
        proc = run(box, contained(box, profile, "cat notes.txt; wc -c < notes.txt"))
        assert TOKEN not in proc.stdout and proc.stdout.split() == ["0"], proc


@pytest.mark.parametrize("profile", PROFILES)
def test_no_unix_socket_outside_the_room_is_reachable(box: Box, profile: str) -> None:
    """connect() works through a read-only bind, so the paths are not enough: the room's
    system call filter refuses AF_UNIX sockets (a socket pair between processes still works),
    with or without the network."""
    places = [box.root / "app.sock", Path(f"/var/tmp/agents-state-{os.getpid()}.sock")]
    servers = []
    for place in places:
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(place))
        s.listen(1)
        servers.append(s)
    probe = (
        "import socket, sys\n"
        "a, b = socket.socketpair(); a.send(b'p'); print('pair', b.recv(1).decode())\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n"
        "        s = socket.socket(socket.AF_UNIX); s.connect(p); print('connected', p)\n"
        "    except OSError as e:\n"
        "        print('refused', e.errno)\n"
    )
    line = f"python3 -c {quote(probe)} {' '.join(map(str, places))}"
    try:
        plain = run(box, line)
        assert plain.stdout.count("connected") == 2, plain  # the control
        proc = run(box, contained(box, profile, line))
    finally:
        for s in servers:
            s.close()
        places[1].unlink()
    assert proc.stdout.split("\n")[:3] == ["pair p", "refused 1", "refused 1"], proc


@pytest.mark.parametrize("profile", PROFILES)
def test_no_new_user_or_mount_namespace(box: Box, profile: str) -> None:
    line = (
        "unshare -U true; echo user=$?; unshare -rm true; echo rm=$?; "
        "unshare -rm sh -c 'umount notes.txt; cat notes.txt'; echo umount=$?; "
        "python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).unshare(0x10000000) != 0)'; "
        "echo py=$?"
    )
    plain = run(box, "unshare -U true; echo user=$?")
    assert "user=0" in plain.stdout, plain  # the control: this machine allows it outside
    proc = run(box, contained(box, profile, line))
    assert "user=1" in proc.stdout and "rm=1" in proc.stdout and "py=1" in proc.stdout, proc
    assert TOKEN not in proc.stdout


def test_the_committer_commits_outside_the_room_with_hooks_off(box: Box) -> None:
    """Its git writes cannot run in a room whose ``.git`` is read-only: they run outside, as
    the hook rewrote them, with no hook and no file-system monitor, so nothing the room wrote
    (a hooks folder the repository points at) runs there."""
    git(box.root, "config", "core.hooksPath", ".githooks")  # the user's own setting
    pwned = box.base / "pwned"
    plant = f"mkdir -p .githooks && printf '#!/bin/sh\\ntouch {pwned}\\n' > .githooks/pre-commit"
    run(box, contained(box, "committer", plant + " && chmod +x .githooks/pre-commit"))
    assert (box.root / ".githooks" / "pre-commit").exists()  # the room may write the project
    answer = subagent_denial(
        {
            "session_id": "s",
            "cwd": str(box.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git add src.txt && git commit -qm 'two'"},
            "agent_id": "a1",
            "agent_type": AGENTS["committer"],
        },
        None,
    )
    assert isinstance(answer, sandbox.Rewrite), answer
    assert answer.command == (
        "git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.untrackedCache=false "
        "add src.txt && git -c core.hooksPath=/dev/null -c core.fsmonitor=false "
        "-c core.untrackedCache=false commit -qm two"
    )
    proc = run(box, answer.command)
    assert proc.returncode == 0, proc.stderr
    assert git(box.root, "log", "--format=%s").split() == ["two", "init"]
    assert not pwned.exists()


def test_issue_32_the_committers_git_runs_no_driver_of_any_config(box: Box) -> None:
    """Item 2: no filter, diff, merge or textconv driver from any config or attributes file.
    The user's config and the repository's define drivers (a clean filter, a textconv) that
    run a program; the room writes a ``.gitattributes`` naming them; the committer's ``git
    add`` / ``git commit``, run outside as the hook rewrote them, must run none of them."""
    ran = box.base / "ran"
    prog = f"sh -c 'echo $0 >> {ran}; cat' "
    user = str(box.home / ".gitconfig")
    git(box.root, "config", "--file", user, "filter.u.clean", f"{prog}u")
    git(box.root, "config", "--file", user, "diff.t.textconv", f"{prog}t")
    git(box.root, "config", "filter.r.clean", f"{prog}r")
    git(box.root, "config", "filter.r.required", "true")
    git(box.root, "config", "merge.m.driver", f"{prog}m")
    attrs = "a.txt filter=u diff=t\\nb.md filter=r merge=m\\n"
    run(box, contained(box, "committer", f"printf '{attrs}' > .gitattributes"))
    (box.root / "a.txt").write_text("a\n")
    (box.root / "b.md").write_text("b\n")
    assert "filter=u" in (box.root / ".gitattributes").read_text()
    answer = subagent_denial(
        {
            "session_id": "s",
            "cwd": str(box.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git add a.txt b.md .gitattributes && git commit -qm three"},
            "agent_id": "a1",
            "agent_type": AGENTS["committer"],
        },
        None,
    )
    assert isinstance(answer, sandbox.Rewrite), answer
    proc = run(box, answer.command)
    assert proc.returncode == 0, proc.stderr
    assert git(box.root, "log", "--format=%s").split() == ["three", "init"]
    assert git(box.root, "show", "HEAD:a.txt") == "a\n"
    assert not ran.exists(), ran.read_text()
    run(box, "git add a.txt")  # the control: git as the user runs it runs the filter
    assert "u" in ran.read_text().split()


def test_a_machine_that_cannot_seal_a_room_fails_closed(
    box: Box, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one-time probe builds a room with every kind of option a sealed room uses (a hidden
    folder with a file shown in it, the system call filter): a bubblewrap that cannot, or a
    machine with no filter, denies in one line and is not remembered."""
    from agents_state.hooks import seccomp

    real = shutil.which("bwrap")
    fake = tmp_path / "bwrap"  # an old bubblewrap: no --seccomp
    fake.write_text(
        '#!/bin/sh\nfor a; do [ "$a" = --seccomp ] && '
        "{ echo 'bwrap: Unknown option --seccomp' >&2; exit 1; }; done\n"
        f'exec {real} "$@"\n'
    )
    fake.chmod(0o755)
    profile = get_profile("validator")
    assert profile is not None
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: str(fake))
    said = sandbox.contain(profile, str(box.root), str(box.root), {"command": "true"})
    assert said == sandbox.unavailable(
        "bubblewrap cannot build one here (bwrap: Unknown option --seccomp)", "validator"
    )
    assert not Path(sandbox._cache_file()).exists()
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: real)
    monkeypatch.setattr(seccomp, "_ARCHES", {})
    said = sandbox.contain(profile, str(box.root), str(box.root), {"command": "true"})
    assert said == sandbox.unavailable(
        f"there is no system call filter for this machine ({os.uname().machine})", "validator"
    )
    assert seccomp.filter_bytes("riscv64") is None


def test_the_filter_is_built_for_both_machines() -> None:
    """Classic BPF, eight bytes a line; the architecture is checked first."""
    import struct

    from agents_state.hooks.seccomp import filter_bytes

    for machine, arch in (("x86_64", 0xC000003E), ("aarch64", 0xC00000B7)):
        data = filter_bytes(machine)
        assert data is not None and len(data) % 8 == 0
        lines = [struct.unpack("=HBBI", data[i : i + 8]) for i in range(0, len(data), 8)]
        assert lines[0] == (0x20, 0, 0, 4) and lines[1][0] == 0x15 and lines[1][3] == arch
        assert lines[-1] == (0x06, 0, 0, 0x00050001)  # EPERM


def test_the_filter_file_stays_out_of_git(tmp_path: Path) -> None:
    """A project's first contained call makes ``.agents/`` for the filter's file (Claude Code
    reads a redirect only from the project): ignored by git like the engine's own."""
    from agents_state.hooks.seccomp import filter_file

    git(tmp_path, "init", "-q")
    path = filter_file(str(tmp_path / ".agents"))
    assert path is not None and Path(path).is_file()
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all") == ""


@pytest.mark.parametrize("profile", ["validator", "writer"])
def test_a_submodules_git_pointer_is_read_only(box: Box, profile: str) -> None:
    """The user's `git status` looks into each submodule: a room that pointed a submodule's
    ``.git`` at a git folder of its own would run that folder's fsmonitor outside (tried: it
    did).  The submodules are read from the index, not from ``.gitmodules`` (which the room may
    edit)."""
    lib = box.base / "lib"
    git(box.base, "init", "-q", str(lib))
    ident = ("-c", "user.name=T", "-c", "user.email=t@e")
    git(lib, *ident, "commit", "-q", "--allow-empty", "-m", "i")
    git(box.root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "sub")
    git(box.root, "commit", "-qm", "sub")
    pointer = (box.root / "sub" / ".git").read_text()
    evil = box.base / "evil"
    attack = (
        f"cp -r .git/modules/sub {evil}; rm -f .gitmodules; "
        f"echo 'gitdir: {evil}' > sub/.git; rm -rf sub/.git; echo 'gitdir: {evil}' > sub/.git"
    )
    run(box, contained(box, profile, attack))
    assert (box.root / "sub" / ".git").read_text() == pointer


def test_the_homes_toolchains_still_run(box: Box, monkeypatch: pytest.MonkeyPatch) -> None:
    """What builds need from the home is shown read-only: a tool under ``~/.local/bin`` (on
    PATH) with its modules under ``~/.local/lib``, an interpreter under uv's folder."""
    local = box.home / ".local"
    (local / "bin").mkdir(parents=True)
    (local / "lib").mkdir()
    (local / "lib" / "mod.txt").write_text("module\n")
    (local / "bin" / "mytool").write_text(f"#!/bin/sh\ncat {local}/lib/mod.txt\n")
    (local / "bin" / "mytool").chmod(0o755)
    uv = local / "share" / "uv" / "python" / "cpython" / "bin"
    uv.mkdir(parents=True)
    (uv / "python3").write_text("#!/bin/sh\necho uv-python\n")
    (uv / "python3").chmod(0o755)
    (local / "share" / "keyring").mkdir()
    (local / "share" / "keyring" / "login").write_text(TOKEN)
    monkeypatch.setenv("PATH", f"{local / 'bin'}:{PATH}")
    line = contained(
        box, "writer", f"mytool; {uv}/python3; touch {local}/lib/x; cat ~/.local/share/keyring/*"
    )
    proc = run(box, line)
    assert proc.stdout == "module\nuv-python\n", proc
    assert "Read-only file system" in proc.stderr and not (local / "lib" / "x").exists()
    assert TOKEN not in proc.stdout + proc.stderr
