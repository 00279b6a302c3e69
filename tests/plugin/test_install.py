"""Issue 14, item 3: the SessionStart hook installs the engine (hooks/session-start.sh).

Real processes of the script: an engine on PATH wins, a missing CLAUDE_PLUGIN_DATA or Python or a
failing pip is one line for the user and the model, a fresh data folder gets a venv built from the
plugin's own source and a PATH line in $CLAUDE_ENV_FILE, and a changed source rebuilds it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pluginfiles import PLUGIN_ROOT

SCRIPT = PLUGIN_ROOT / "hooks" / "session-start.sh"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
VENV_BIN = str(Path(sys.executable).parent)
STARTUP = json.dumps({"hook_event_name": "SessionStart", "source": "startup"})
# agents-state is not on PyPI (issue 27): the fix installs the plugin's own source
FIX = (
    f"; install it with: pipx install '{PLUGIN_ROOT}' (or, in a Python 3.11+ venv: pip install "
    f"'{PLUGIN_ROOT}'), then start a new session"
)


def start(
    root: Path,
    path: str,
    data: Path | None,
    env_file: Path | None = None,
    script: Path = SCRIPT,
    timeout: float = 300,
    **extra: str,
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": path, "HOME": os.environ["HOME"], **extra}
    if data is not None:
        env["CLAUDE_PLUGIN_DATA"] = str(data)
    if env_file is not None:
        env["CLAUDE_ENV_FILE"] = str(env_file)
    proc = subprocess.run(
        [str(script)],
        cwd=root,
        env=env,
        input=STARTUP,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def told(proc: subprocess.CompletedProcess[str]) -> str:
    out = json.loads(proc.stdout)
    line: str = out["systemMessage"]
    assert out["hookSpecificOutput"] == {"hookEventName": "SessionStart", "additionalContext": line}
    assert "\n" not in line
    return line


def test_an_engine_on_path_wins(root: Path, tmp_path: Path) -> None:
    data, env_file = tmp_path / "data", tmp_path / "env"
    proc = start(root, f"{VENV_BIN}:{SYSTEM_PATH}", data, env_file)
    assert (proc.stdout, proc.stderr) == ("", "")  # no workflow: nothing to say
    assert not data.exists() and not env_file.exists()


def test_without_plugin_data_it_says_how_to_install(root: Path) -> None:
    proc = start(root, SYSTEM_PATH, None)
    assert told(proc) == (
        "agents-state: the engine is not installed (CLAUDE_PLUGIN_DATA is not set, so the engine "
        f"cannot be installed for the plugin){FIX}"
    )


def no_python(tmp_path: Path) -> str:
    """A PATH with the shell tools the script uses and no Python."""
    tools = tmp_path / "tools"
    tools.mkdir(parents=True)
    for name in (
        "sh",
        "cat",
        "sed",
        "tr",
        "find",
        "sort",
        "cksum",
        "mkdir",
        "rm",
        "cp",
        "ln",
        "mv",
        "readlink",
        "dirname",
        "head",
        "grep",
        "date",
        "rmdir",
        "sleep",
        "uname",
    ):
        found = shutil.which(name, path=SYSTEM_PATH)
        assert found, name
        (tools / name).symlink_to(found)
    return str(tools)


def test_without_python_it_says_so(root: Path, tmp_path: Path) -> None:
    proc = start(root, no_python(tmp_path), tmp_path / "data")
    assert told(proc).startswith(
        "agents-state: the engine is not installed (no Python 3.11 or newer found on PATH); "
        "install it with: pipx install"
    )


@pytest.mark.slow
def test_a_failing_pip_is_one_line_and_leaves_no_half_venv(root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc = start(
        root,
        SYSTEM_PATH,
        data,
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(tmp_path / "no-wheels"),
    )
    assert told(proc) == (
        f"agents-state: the engine is not installed (pip install failed, see {data}/install.log)"
        + FIX
    )
    assert list((data / "venvs").iterdir()) == []
    assert not (data / "bin" / "agents-state").exists()
    assert "pip install" in (data / "install.log").read_text()
    assert not (data / "install.lock").exists()


def plugin_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "plugin"
    copy.mkdir()
    for name in ("agents_state", "bin", "hooks"):
        shutil.copytree(
            PLUGIN_ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PLUGIN_ROOT / name, copy / name)
    return copy


@pytest.mark.slow
def test_first_session_installs_and_an_update_rebuilds(root: Path, tmp_path: Path) -> None:
    # a data folder whose name pip could read as a requirement with a marker or a fragment
    plugin, data, env_file = plugin_copy(tmp_path), tmp_path / "data; #1 'x'", tmp_path / "env"
    script = plugin / "hooks" / "session-start.sh"
    proc = start(root, SYSTEM_PATH, data, env_file, script=script)
    assert re.fullmatch(
        rf"agents-state: engine built in \d+ s and installed in {re.escape(str(data))} \(the "
        r"subagents plugin's /subagents:dispatch is ready\)",
        told(proc),
    ), told(proc)
    assert "agents-state: building the engine in " in proc.stderr
    assert "(first session after install or update; usually 15-40 s; log: " in proc.stderr
    engine = data / "bin" / "agents-state"
    first = engine.resolve()
    assert env_file.read_text() == f"export PATH='{tmp_path}/data; #1 '\\''x'\\''/bin':\"$PATH\"\n"
    assert not list(plugin.glob("*.egg-info")) and not (plugin / "build").exists()

    # what commands and the Bash tool then run: the engine, through the exported PATH
    shell = subprocess.run(
        ["sh", "-c", f". '{env_file}' && agents-state dispatch 'Add x'"],
        cwd=root,
        env={"PATH": SYSTEM_PATH, "HOME": os.environ["HOME"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shell.returncode == 0 and shell.stdout.startswith("workflow started: Add x"), shell

    # the next session: nothing to build, the workflow comes back
    again = start(root, SYSTEM_PATH, data, env_file, script=script)
    assert "installing" not in again.stderr
    assert "Add x" in json.loads(again.stdout)["hookSpecificOutput"]["additionalContext"]
    assert engine.resolve() == first

    # a plugin update changes the source: a new venv, the old one gone
    (plugin / "agents_state" / "_update_marker.py").write_text("MARK = 1\n")
    start(root, SYSTEM_PATH, data, env_file, script=script)
    assert engine.resolve() != first and engine.resolve().exists()
    assert not first.exists()
    assert [p.name for p in (data / "venvs").iterdir()] == [engine.resolve().parents[1].name]


def test_a_lock_left_by_a_killed_session_is_taken_over(root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "install.lock").mkdir(parents=True)
    stamp = (data / "install.lock").stat().st_mtime - 20 * 60
    os.utime(data / "install.lock", (stamp, stamp))
    # no Python found: the run gets past the lock at once and reports that instead of waiting
    proc = start(root, no_python(tmp_path), data)
    assert "no Python 3.11 or newer found on PATH" in told(proc)
    assert not (data / "install.lock").exists()


@pytest.mark.parametrize("entry", [".", "", "bin"])
def test_relative_path_entries_are_never_searched(root: Path, tmp_path: Path, entry: str) -> None:
    # issue 23: a cloned repository's ./agents-state, ./python3 or ./sed must never run
    for folder in (root, root / "bin"):
        folder.mkdir(exist_ok=True)
        for name in ("agents-state", "python3", "sed", "cksum", "mkdir"):
            (folder / name).write_text(f"#!/bin/sh\ntouch '{folder}/ran'\n")
            (folder / name).chmod(0o755)
    proc = start(root, f"{entry}:{no_python(tmp_path)}", tmp_path / "data")
    assert "no Python 3.11 or newer found on PATH" in told(proc)
    assert not list(root.rglob("ran"))


# -- issue 23: CLAUDE_PLUGIN_DATA is checked before anything is made or run there -------------


def _refused(proc: subprocess.CompletedProcess[str], why: str) -> None:
    assert told(proc) == f"agents-state: the engine is not installed ({why}){FIX}"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ("data", "CLAUDE_PLUGIN_DATA must be an absolute path, not 'data'"),
        ("./data", "CLAUDE_PLUGIN_DATA must be an absolute path, not './data'"),
        (
            "{tmp}/a/../data",
            "CLAUDE_PLUGIN_DATA must not have '.' or '..' in it: '{tmp}/a/../data'",
        ),
        ("{tmp}/./data", "CLAUDE_PLUGIN_DATA must not have '.' or '..' in it: '{tmp}/./data'"),
        ("{tmp}/da\nta", "CLAUDE_PLUGIN_DATA has a control character in it"),
        ("{tmp}/da\tta", "CLAUDE_PLUGIN_DATA has a control character in it"),
        ("{tmp}/da\x1bta", "CLAUDE_PLUGIN_DATA has a control character in it"),
    ],
)
def test_a_data_dir_that_is_no_plain_absolute_path_is_refused(
    root: Path, tmp_path: Path, data: str, why: str
) -> None:
    before = sorted(tmp_path.rglob("*"))
    env = {"PATH": no_python(tmp_path), "HOME": os.environ["HOME"]}
    env["CLAUDE_PLUGIN_DATA"] = data.format(tmp=tmp_path)
    proc = subprocess.run(
        [str(SCRIPT)],
        cwd=root,
        env=env,
        input=STARTUP,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    _refused(proc, why.format(tmp=tmp_path))
    tools = tmp_path / "tools"
    assert [p for p in sorted(tmp_path.rglob("*")) if tools not in (p, *p.parents)] == [
        p for p in before if tools not in (p, *p.parents)
    ]


def test_a_data_dir_that_is_a_link_or_a_file_is_refused(root: Path, tmp_path: Path) -> None:
    tools = no_python(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "data"
    link.symlink_to(elsewhere)
    proc = start(root, tools, link)
    _refused(proc, f"CLAUDE_PLUGIN_DATA '{link}' is a symbolic link")
    assert list(elsewhere.iterdir()) == []
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    proc = start(root, tools, dangling)
    _refused(proc, f"CLAUDE_PLUGIN_DATA '{dangling}' is a symbolic link")
    assert not (tmp_path / "nowhere").exists()
    plain = tmp_path / "file"
    plain.write_text("")
    _refused(start(root, tools, plain), f"CLAUDE_PLUGIN_DATA '{plain}' is not a folder")


def test_a_data_dir_of_another_user_is_refused(root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    if os.geteuid() == 0:
        os.chown(data, 65534, 65534)
    else:  # a user who is not root owns no folder of root's
        data = Path("/usr/share")
    before = sorted(data.iterdir())
    proc = start(root, no_python(tmp_path), data)
    _refused(proc, f"CLAUDE_PLUGIN_DATA '{data}' belongs to another user")
    assert sorted(data.iterdir()) == before


# -- issue 23: the install lock knows its owner ---------------------------------------------------


def _holder(root: Path, tmp_path: Path, data: Path) -> tuple[subprocess.Popen[bytes], list[str]]:
    """A session whose install holds the lock: its python3 never answers."""
    slow = tmp_path / "slow-python"
    slow.mkdir()
    (slow / "python3").write_text("#!/bin/sh\nexec sleep 600\n")
    (slow / "python3").chmod(0o755)
    env = {"PATH": f"{slow}:{no_python(tmp_path)}", "HOME": os.environ["HOME"]}
    proc = subprocess.Popen(
        [str(SCRIPT)],
        cwd=root,
        env={**env, "CLAUDE_PLUGIN_DATA": str(data)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    owner = data / "install.lock" / "owner"
    for _ in range(600):
        if owner.exists():
            break
        assert proc.poll() is None
        time.sleep(0.05)
    lines = owner.read_text().splitlines()
    assert len(lines) == 3 and lines[0].isdigit() and lines[1] == os.uname().nodename, lines
    return proc, lines


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_a_lock_whose_owner_was_killed_is_taken_over_at_once(root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    holder, _ = _holder(root, tmp_path, data)
    _kill(holder)
    assert (data / "install.lock" / "owner").exists()  # left behind
    # well under the 90 s a live owner is waited for: the dead one is not waited for at all
    proc = start(root, no_python(tmp_path / "t"), data, timeout=60)
    assert "no Python 3.11 or newer found on PATH" in told(proc)
    assert not (data / "install.lock").exists()


def test_a_live_owner_is_waited_for_then_named(root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    holder, owner = _holder(root, tmp_path, data)
    try:
        proc = start(
            root, no_python(tmp_path / "t"), data, timeout=60, AGENTS_STATE_INSTALL_WAIT="2"
        )
        assert told(proc) == (
            f"agents-state: the engine is not installed (another session (pid {owner[0]}) is "
            f"still installing the engine; it is ready in the next session){FIX}"
        )
        assert (data / "install.lock" / "owner").read_text().splitlines() == owner
    finally:
        _kill(holder)


def _planted_lock(data: Path, *lines: str) -> None:
    (data / "install.lock").mkdir(parents=True)
    (data / "install.lock" / "owner").write_text("".join(f"{line}\n" for line in lines))


def test_a_reused_pid_is_not_the_owner(root: Path, tmp_path: Path) -> None:
    # the pid lives (this test's own), but it is not the process that took the lock
    data = tmp_path / "data"
    _planted_lock(data, str(os.getpid()), os.uname().nodename, "another-boot 12345")
    proc = start(root, no_python(tmp_path), data, timeout=60)
    assert "no Python 3.11 or newer found on PATH" in told(proc)
    assert not (data / "install.lock").exists()


def test_an_owner_on_another_host_is_not_judged(root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    _planted_lock(data, "4242", "elsewhere.example", "boot 1")
    proc = start(root, no_python(tmp_path), data, timeout=60, AGENTS_STATE_INSTALL_WAIT="1")
    assert f"({data}/install.lock is held by pid 4242 on elsewhere.example; remove it if no " in (
        told(proc)
    )
    assert (data / "install.lock" / "owner").exists()


def test_a_read_only_data_dir_is_one_line_at_once(root: Path, tmp_path: Path) -> None:
    # root writes anywhere on a writable file system: a read-only bind mount refuses even root
    data = tmp_path / "data"
    data.mkdir()
    bwrap = shutil.which("bwrap")
    assert bwrap, "bubblewrap (.ci/run installs it)"
    tools = no_python(tmp_path)
    proc = subprocess.run(
        [bwrap, "--dev-bind", "/", "/", "--ro-bind", str(data), str(data), str(SCRIPT)],
        cwd=root,
        env={"PATH": tools, "HOME": os.environ["HOME"], "CLAUDE_PLUGIN_DATA": str(data)},
        input=STARTUP,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    _refused(proc, f"cannot write to {data}")
    assert list(data.iterdir()) == []


@pytest.mark.slow
def test_the_fix_a_failure_names_installs_a_working_engine(root: Path, tmp_path: Path) -> None:
    """Issue 27: `pip install agents-state` named a package PyPI does not have; the line now
    names the plugin's own source, and that command, run as printed, gives a working engine."""
    plugin = plugin_copy(tmp_path)
    script = plugin / "hooks" / "session-start.sh"
    line = told(start(root, no_python(tmp_path), None, script=script))
    found = re.search(r"in a Python 3\.11\+ venv: (pip install '[^']*')\)", line)
    assert found, line
    assert found.group(1) == f"pip install '{plugin}'"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run(
        ["sh", "-c", f". '{venv}/bin/activate' && {found.group(1)}"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    version = subprocess.run(
        [str(venv / "bin" / "agents-state"), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert version.returncode == 0 and version.stdout.startswith("agents-state"), version
