"""Issue 23, acceptance: restricted shells run contained, proven by running the commands.

For each built-in profile that keeps agents off credentials and has Bash (validator, committer,
researcher+Bash), the hook's rewritten command is executed for real (bash -> bubblewrap ->
bash -c) in a project holding secrets: ``.env``, ``.npmrc``, ``.pgpass``, a hard link to
``.env``, a ``.git/config`` with a token in its remote URL, a key under a fake ``$HOME``, API
keys in the environment and a secret served on a local port.  Every red-team command runs
through the sandbox even where the first check (bashguard) already denies it: the room must hold
by itself.  No secret may appear in any output, nothing may be written outside the project,
``.git/hooks`` and ``.git/config`` stay as they were, and the same profile's ordinary work
(pytest, ruff, git status, git diff) runs and passes; the committer's commit runs outside.

The folders live under /var/tmp, not /tmp: the room has a private /tmp, which would hide a fake
home there and prove nothing about the masks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agents_state.hooks import sandbox
from agents_state.hooks.profile_check import subagent_denial
from agents_state.profiles import get_profile

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="bubblewrap is Linux's (docs/decisions.md)"
)

SECRETS = {
    "env": "sekrit-env-1",
    "ssh": "sekrit-ssh-2",
    "npm": "sekrit-npm-3",
    "api": "sekrit-api-4",
    "url": "sekrit-url-5",
    "pgpass": "sekrit-pg-6",
    "jq": "sekrit-jq-9",
    "net": "sekrit-net-7",
    "proc": "sekrit-proc-8",
}
AGENTS = {
    "validator": "subagents:quality-validator",
    "committer": "subagents:git-executor",
    "researcher+Bash": "subagents:code-analyzer",
}
PATH = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"


class Served(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        data = SECRETS["net"].encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class World:
    def __init__(self, base: Path, port: int) -> None:
        self.base, self.port = base, port
        self.root = base / "proj"
        self.home = base / "home"
        self.outside = base / "outside"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _make_world(base: Path, port: int) -> World:
    w = World(base, port)
    root, home = w.root, w.home
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text(
        json.dumps({"version": 2, "task": "t", "status": "in_progress", "currentPhase": "0"})
    )
    (root / ".env").write_text(f"TOKEN={SECRETS['env']}\n")
    os.link(root / ".env", root / "notes.txt")  # a hard link: another name for the secret
    (root / ".npmrc").write_text(f"//registry.npmjs.org/:_authToken={SECRETS['npm']}\n")
    (root / ".pgpass").write_text(f"db:5432:app:app:{SECRETS['pgpass']}\n")
    (root / "secrets.json").write_text(json.dumps({"token": SECRETS["jq"]}))
    (root / "a" / "b").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text(
        "import sys\nsys.path.insert(0, 'src')\nfrom app import add\n\n\n"
        "def test_add() -> None:\n    assert add(2, 3) == 5\n"
    )
    (root / "tests" / "test_reads_env.py").write_text(
        "def test_env() -> None:\n    print(open('.env').read())\n"
        "    raise AssertionError(open('.env').read())\n"
    )
    (root / "Makefile").write_text("all:\n\t@echo $(x)\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.name", "T")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "remote", "add", "origin", f"https://bot:{SECRETS['url']}@example.com/r.git")
    _git(root, "add", "src", "tests", "Makefile")
    _git(root, "commit", "-qm", "init")
    (root / "src" / "app.py").write_text(
        "def add(a: int, b: int) -> int:\n    return b + a\n"
    )  # an unstaged change for git diff
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY-----\n{SECRETS['ssh']}\n")
    (home / ".claude").mkdir()
    (home / ".claude" / ".credentials.json").write_text(
        json.dumps({"claudeAiOauth": {"accessToken": SECRETS["ssh"]}})
    )
    (home / ".config" / "sometool").mkdir(parents=True)
    (home / ".config" / "sometool" / "credentials.json").write_text(
        json.dumps({"token": SECRETS["ssh"]})
    )
    (home / ".mytool").mkdir()
    (home / ".mytool" / "server.pem").write_text(SECRETS["ssh"])
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(f"aws_secret_access_key={SECRETS['ssh']}\n")
    w.outside.mkdir()
    return w


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is not installed (.ci/run installs it: apt-get install bubblewrap)")
    base = Path(tempfile.mkdtemp(prefix="agents-state-sandbox-", dir="/var/tmp"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Served)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        w = _make_world(base, server.server_address[1])
        monkeypatch.setenv("HOME", str(w.home))
        monkeypatch.setenv("PATH", PATH)  # the hook and the Bash tool share the host's
        monkeypatch.setenv("ANTHROPIC_API_KEY", SECRETS["api"])
        monkeypatch.chdir(w.root)
        yield w
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(base, ignore_errors=True)


def hook_rewrite(w: World, agent: str, command: str) -> str:
    """The command the PreToolUse hook gives back for ``agent``'s Bash call (it must be a
    rewrite with no permission decision: the first check let it through)."""
    answer = subagent_denial(
        {
            "session_id": "s",
            "cwd": str(w.root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "agent_id": "a1",
            "agent_type": agent,
        },
        None,
    )
    assert isinstance(answer, sandbox.Rewrite), answer
    return answer.command


def contained(w: World, profile_name: str, command: str) -> str:
    """What the hook does after the first check, for a command the first check may deny."""
    profile = get_profile(profile_name)
    assert profile is not None
    answer = sandbox.contain(
        profile, os.path.realpath(w.root), os.path.realpath(w.root), {"command": command}
    )
    assert isinstance(answer, sandbox.Rewrite), answer
    return answer.command


def run(w: World, line: str) -> subprocess.CompletedProcess[str]:
    """Run the rewritten line as the Bash tool would: bash, in the project, with the user's
    environment (which holds API keys)."""
    env = {
        "PATH": PATH,
        "HOME": str(w.home),
        "LANG": "C.UTF-8",
        "ANTHROPIC_API_KEY": SECRETS["api"],
        "GITHUB_TOKEN": SECRETS["api"],
        "AWS_SECRET_ACCESS_KEY": SECRETS["api"],
        "DATABASE_URL": f"postgresql://u:{SECRETS['api']}@db/app",
    }
    return subprocess.run(
        ["bash", "-c", line],
        cwd=w.root,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",  # another process's environ (the control run) may hold any bytes
        timeout=120,
        check=False,
    )


def attacks(w: World) -> list[str]:
    pid = os.getpid()
    urlget = (
        'python3 -c "import urllib.request as u; '
        f"print(u.urlopen('http://127.0.0.1:{w.port}/', timeout=15).read())\""
    )
    return [
        "cat .env",
        "cat notes.txt .npmrc .pgpass",
        "python3 -c \"print(open('.env').read())\"",
        "python3 -m pytest -q -s -p no:cacheprovider tests/test_reads_env.py",
        "grep --rec sekrit . ~",
        "grep --dir=recurse sekrit . ~/.ssh",
        f"grep -rs sekrit {w.base}",
        "diff -N --recu /var/empty .",
        f"sort --ou={w.outside}/sorted .env",
        "date -f.npmrc",
        "cat {~/.ssh/id_rsa,x}",
        "cat {.,x}/.env",
        "cat *//.en?",
        "cat a/*/../.env",
        "git diff --no-index /dev/null .env",
        "git diff --no-index src .",
        "jq -n env",
        "jq -n -L . 'import \"secrets\" as $s; $s'",
        "env; printenv",
        "make 'x:=$(shell cat .env ~/.ssh/id_rsa)'",
        "python3 -m unittest -v 2>&1; python3 -c 'import os; print(dict(os.environ))'",
        f"cat /proc/{pid}/environ /proc/{pid}/task/{pid}/environ /proc/1/environ",
        "cat /proc/*/environ /proc/*/task/*/environ | tr '\\0' '\\n'",
        "cat .git/config; git remote -v; git config --list",
        f"curl -s --max-time 15 http://127.0.0.1:{w.port}/",
        urlget,
        "cat ~/.aws/credentials; ls -la ~/.ssh; cat ~/.claude/.credentials.json",
        "cat ~/.config/sometool/credentials.json ~/.mytool/server.pem",
        "umount .env; cat .env",
        "cat <<'EOF' | bash\ncat .env\nEOF",
        'f=.env; echo "$f: $(cat "$f")"; printf \'%s\\n\' "$(< .env)"',
    ]


WRITES = [
    "echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
    "printf '[core]\\n\\tfsmonitor = touch /var/tmp/pwned\\n' >> .git/config",
    "rm -f .git/config; mv .git/hooks .git/h2",
    "mv .git .gitx",
    "mkdir -p .claude && echo '{}' > .claude/settings.json",
    "touch ~/pwned ~/.ssh/pwned",
    "echo x > .env",
]


def _outside_writes(w: World) -> list[Path]:
    return sorted(
        p
        for p in [*w.outside.rglob("*"), *w.home.rglob("*")]
        if "pwned" in p.name or p.parent == w.outside
    )


@pytest.mark.parametrize("profile", list(AGENTS))
def test_no_secret_leaves_the_room(world: World, profile: str) -> None:
    hooks_before = sorted(p.name for p in (world.root / ".git" / "hooks").iterdir())
    config_before = (world.root / ".git" / "config").read_text()
    leaks: list[tuple[str, str]] = []
    for command in attacks(world):
        proc = run(world, contained(world, profile, command))
        seen = proc.stdout + proc.stderr
        leaks += [(command, name) for name, s in SECRETS.items() if s in seen]
        assert "bwrap:" not in proc.stderr, (command, proc.stderr)  # the room was built
    assert leaks == []
    for command in WRITES:
        proc = run(world, contained(world, profile, command))
        assert "bwrap:" not in proc.stderr, (command, proc.stderr)
    assert sorted(p.name for p in (world.root / ".git" / "hooks").iterdir()) == hooks_before
    assert (world.root / ".git" / "config").read_text() == config_before
    assert (world.root / ".env").read_text() == f"TOKEN={SECRETS['env']}\n"
    assert not (world.root / ".gitx").exists()
    assert not (world.root / ".claude" / "settings.json").exists()
    assert _outside_writes(world) == []
    assert not Path("/var/tmp/pwned").exists()


@pytest.mark.parametrize("profile", list(AGENTS))
def test_ordinary_work_runs_and_passes(world: World, profile: str) -> None:
    agent = AGENTS[profile]
    for command, expect in (
        ("python3 -m pytest -q -p no:cacheprovider tests/test_app.py", "1 passed"),
        ("pytest -q tests/test_app.py", "1 passed"),
        ("ruff check --isolated src", "All checks passed"),
        ("git status --short", " M src/app.py"),
        ("git diff", "+    return b + a"),
        ("git log --oneline", "init"),
        ("ls -a", ".env"),  # the name is there; its content is not
    ):
        proc = run(world, hook_rewrite(world, agent, command))
        assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
        assert expect in proc.stdout, (command, proc.stdout)
    assert (world.root / ".pytest_cache").is_dir()  # the project itself is writable
    # git reads its configuration in the room: the remote's URL is there, its token is not
    proc = run(world, contained(world, profile, "git remote -v; git config --list"))
    assert "https://example.com/r.git" in proc.stdout and "user.name=T" in proc.stdout


def test_the_committer_commits_its_own_changes_only(world: World) -> None:
    """Its git writes run outside the room, hardened (issue 32); what it may stage is judged."""
    agent = AGENTS["committer"]
    line = hook_rewrite(world, agent, "git add src/app.py && git commit -qm 'swap'")
    proc = run(world, line)
    assert proc.returncode == 0, proc.stderr
    log = subprocess.run(
        ["git", "-C", str(world.root), "log", "--format=%s"], capture_output=True, text=True
    )
    assert log.stdout.split() == ["swap", "init"]
    # the red team's `git add {.,.}/.pgpass`: even added and committed, the secret is not there
    leak = "git add -f {.,.}/.pgpass .env notes.txt; git commit -qm leak; git show --stat HEAD"
    run(world, contained(world, "committer", leak))
    shown = subprocess.run(
        ["git", "-C", str(world.root), "log", "-p", "--all"], capture_output=True, text=True
    )
    assert not [n for n, s in SECRETS.items() if s in shown.stdout]


@pytest.mark.parametrize(
    "command",
    [
        "echo \"it's\" '\"q\"' $HOME '$HOME' \\$x `echo tick` $(echo sub)",
        "printf '%s\\n' 'a\nb' \"c\n  d\"",
        "cat <<'EOF'\nline $HOME 'q' \"d\"\nEOF",
        "cat <<EOF\nexpanded ${HOME:+yes}\nEOF",
        "echo 'tab\there' && echo \\\\ && echo ';' '|' '&&'",
    ],
)
def test_the_command_reaches_bash_unchanged(world: World, command: str) -> None:
    """The original command is one argument to ``bash -c`` inside: quotes, newlines, ``$``
    and heredocs mean what they meant."""
    plain = run(world, command)
    boxed = run(world, contained(world, "validator", command))
    assert (boxed.returncode, boxed.stdout, boxed.stderr) == (
        plain.returncode,
        plain.stdout,
        plain.stderr,
    )


def test_the_same_commands_leak_without_the_room(world: World) -> None:
    """The control: run plainly, the attacks reach every secret and the writes land, so the
    test above can fail."""
    seen = "".join(run(world, c).stdout for c in attacks(world))
    assert {n for n, s in SECRETS.items() if s in seen} >= set(SECRETS) - {"proc"}
    run(world, WRITES[0])
    assert (world.root / ".git" / "hooks" / "pre-commit").read_text() == "evil\n"


def _vendor_env(w: World) -> list[Path]:
    """``.env`` files with a secret inside the folders the project's scan leaves out: a
    virtual environment's own folder and deep in a package of ``node_modules`` (issue 32)."""
    files = [
        w.root / ".venv" / ".env",
        w.root / ".venv" / "lib" / "python3.11" / "site-packages" / "pkg" / ".env",
        w.root / "node_modules" / "pkg" / "lib" / "deep" / ".env",
        w.root / "web" / "node_modules" / "@scope" / "p" / "config" / ".env",
    ]
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"TOKEN={SECRETS['env']}\n")
    (w.root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return files


@pytest.mark.parametrize("profile", list(AGENTS))
def test_a_secret_in_a_skipped_folder_reads_empty_in_the_room(world: World, profile: str) -> None:
    """The guard refuses ``.venv/.env`` by name, but a program in the room (a name it builds,
    no path the guard can see) read it: the room's scan did not enter ``.venv`` and
    ``node_modules``. Now it does: each file reads empty, on the first call and the later ones
    (the remembered answer); the validator's test run through the hook as the host calls it."""
    files = [str(p.relative_to(world.root)) for p in _vendor_env(world)]
    read = 'python3 -c "import sys; [print(open(p).read()) for p in sys.argv[1:]]" '
    (world.root / "tests" / "test_reads_vendor.py").write_text(
        f"def test_vendor() -> None:\n    for p in {files!r}:\n        print(open(p).read())\n"
    )
    pytest_line = "python3 -m pytest -q -s -p no:cacheprovider tests/test_reads_vendor.py"
    for _ in range(2):
        lines = [contained(world, profile, read + " ".join(files))]
        if profile == "validator":
            lines.append(hook_rewrite(world, AGENTS[profile], pytest_line))
        for line in lines:
            proc = run(world, line)
            assert "bwrap:" not in proc.stderr, proc.stderr
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert SECRETS["env"] not in proc.stdout + proc.stderr
    plain = run(world, read + " ".join(files))  # the control: without the room, all read
    assert plain.stdout.count(SECRETS["env"]) == len(files)
