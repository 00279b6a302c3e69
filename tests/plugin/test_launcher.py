"""Issue 6: bin/agents-state finds the CLI, says how to install it when it cannot, and keeps hooks
quiet; the dispatch command's shell block passes any task text as data."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pluginfiles import LAUNCHER, PLUGIN_ROOT, read_doc, shell_blocks

VENV_BIN = str(Path(sys.executable).parent)
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
EVENTS = ("session-start", "pre-tool-use", "post-tool-use", "subagent-start", "subagent-stop")
INJECTION = "fix login; rm -rf ~"


def run(
    cmd: list[str], cwd: Path, path: str, stdin: str = "", extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": path, "HOME": os.environ["HOME"], **(extra or {})}
    return subprocess.run(
        cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def lone_launcher(tmp_path: Path) -> Path:
    """A copy of the launcher in a plugin folder with no package and no venv next to it."""
    (tmp_path / "plugin" / "bin").mkdir(parents=True)
    copy = tmp_path / "plugin" / "bin" / "agents-state"
    shutil.copy2(LAUNCHER, copy)
    return copy


@pytest.fixture
def no_python(tmp_path: Path) -> str:
    """PATH without the CLI and with a python3 that lacks its dependencies, on any machine."""
    shim = tmp_path / "no-python"
    shim.mkdir()
    for name in ("python3", "python"):
        (shim / name).write_text("#!/bin/sh\nexit 1\n")
        (shim / name).chmod(0o755)
    return f"{shim}:{SYSTEM_PATH}"


def test_uses_the_cli_on_path(root: Path) -> None:
    proc = run([str(LAUNCHER), "status"], root, f"{VENV_BIN}:{SYSTEM_PATH}")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("No active workflow")


def test_found_on_path_it_skips_itself(root: Path) -> None:
    path = f"{LAUNCHER.parent}:{VENV_BIN}:{SYSTEM_PATH}"
    proc = run(["agents-state", "status"], root, path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("No active workflow")


def test_not_installed_says_how_in_one_line(
    lone_launcher: Path, root: Path, no_python: str
) -> None:
    proc = run([str(lone_launcher), "status"], root, f"{lone_launcher.parent}:{no_python}")
    assert proc.returncode == 127
    assert proc.stdout == ""
    assert proc.stderr == (
        "agents-state: not installed; install it from its source folder: pipx install "
        "/path/to/agents-state\n"
    )


def test_not_installed_names_the_checkout(root: Path, tmp_path: Path, no_python: str) -> None:
    # a launcher inside a source checkout (pyproject.toml next to bin/) also offers that path
    plugin = tmp_path / "checkout"
    (plugin / "bin").mkdir(parents=True)
    (plugin / "pyproject.toml").write_text("[project]\nname = 'agents-state'\n")
    shutil.copy2(LAUNCHER, plugin / "bin" / "agents-state")
    proc = run([str(plugin / "bin" / "agents-state"), "next"], root, no_python)
    assert proc.returncode == 127
    assert proc.stderr == (
        f"agents-state: not installed; run: pipx install '{plugin}' (or, in a Python 3.11+ venv: "
        f"pip install '{plugin}')\n"
    )


def test_two_launchers_on_path_do_not_loop(
    lone_launcher: Path, root: Path, tmp_path: Path, no_python: str
) -> None:
    other = tmp_path / "other" / "bin"
    other.mkdir(parents=True)
    shutil.copy2(LAUNCHER, other / "agents-state")
    proc = run(["agents-state", "status"], root, f"{lone_launcher.parent}:{other}:{no_python}")
    assert proc.returncode == 127
    assert "not installed" in proc.stderr


def test_plugin_data_venv(lone_launcher: Path, root: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "venv" / "bin").mkdir(parents=True)
    os.symlink(Path(VENV_BIN) / "agents-state", data / "venv" / "bin" / "agents-state")
    proc = run(
        [str(lone_launcher), "status"], root, SYSTEM_PATH, extra={"CLAUDE_PLUGIN_DATA": str(data)}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("No active workflow")


def test_package_next_to_the_launcher(root: Path) -> None:
    # python3 -m agents_state with the plugin root on PYTHONPATH, when python3 has the
    # dependencies (here: the test venv's python, found first on PATH; issue 33)
    plugin_like = root.parent / "plugin-src"
    (plugin_like / "bin").mkdir(parents=True)
    shutil.copy2(LAUNCHER, plugin_like / "bin" / "agents-state")
    os.symlink(PLUGIN_ROOT / "agents_state", plugin_like / "agents_state")
    # a script, not a link: a link to the venv's python outside the venv is the base
    # interpreter, which has the dependencies only by chance (not Debian's /usr/bin/python3)
    shim = root.parent / "shim"
    shim.mkdir()
    (shim / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (shim / "python3").chmod(0o755)
    proc = run([str(plugin_like / "bin" / "agents-state"), "status"], root, f"{shim}:{SYSTEM_PATH}")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("No active workflow")


@pytest.mark.parametrize("event", EVENTS)
def test_hooks_are_silent_without_the_cli(
    lone_launcher: Path, root: Path, no_python: str, event: str
) -> None:
    (root / ".agents").mkdir()
    (root / ".agents" / "state.json").write_text("{}")
    proc = run([str(lone_launcher), "hook", event], root, no_python, stdin="{}")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.parametrize("event", EVENTS)
def test_hooks_are_silent_and_start_no_python_without_a_workflow(
    root: Path, tmp_path: Path, event: str
) -> None:
    """Without a workflow a hook exits at once from the shell: neither the engine nor Python
    starts (shown by shims that leave a mark, not by a clock; the same call with a state file
    reaches the shim, so the test can fail)."""
    shims, mark = tmp_path / "shims", tmp_path / "started"
    shims.mkdir()
    for name in ("agents-state", "python3", "python"):
        (shims / name).write_text(f'#!/bin/sh\necho "$0" >> {mark}\n')
        (shims / name).chmod(0o755)
    payload = json.dumps(
        {
            "hook_event_name": event,
            "session_id": "s",
            "cwd": str(root),
            "transcript_path": "/dev/null",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "source": "startup",
        }
    )
    path = f"{shims}:{SYSTEM_PATH}"
    proc = run([str(LAUNCHER), "hook", event], root, path, stdin=payload)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert not mark.exists()
    assert not (root / ".agents").exists()
    (root / ".agents").mkdir()
    (root / ".agents" / "state.json").write_text("{}")
    assert run([str(LAUNCHER), "hook", event], root, path, stdin=payload).returncode == 0
    assert mark.read_text() == f"{shims}/agents-state\n"


@pytest.mark.parametrize("stdin", ["", "not json", "[]", '{"hook_event_name": 3}'])
@pytest.mark.parametrize("event", EVENTS)
def test_hooks_survive_bad_input_during_a_workflow(root: Path, event: str, stdin: str) -> None:
    path = f"{VENV_BIN}:{SYSTEM_PATH}"
    assert run([str(LAUNCHER), "dispatch", "a task"], root, path).returncode == 0
    proc = run([str(LAUNCHER), "hook", event], root, path, stdin=stdin)
    assert proc.returncode == 0


def test_session_start_injects_the_context(root: Path) -> None:
    path = f"{VENV_BIN}:{SYSTEM_PATH}"
    assert run([str(LAUNCHER), "dispatch", "Add OAuth login"], root, path).returncode == 0
    payload = json.dumps(
        {
            "hook_event_name": "SessionStart",
            "source": "compact",
            "session_id": "s",
            "cwd": str(root),
            "transcript_path": "/dev/null",
        }
    )
    proc = run([str(LAUNCHER), "hook", "session-start"], root, path, stdin=payload)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "Add OAuth login" in out["additionalContext"]
    assert "agents-state phase complete 0" in out["additionalContext"]


# -- the dispatch command's shell block, run by bash as Claude Code runs it -------------------


def _dispatch_block(arguments: str) -> str:
    (block,) = shell_blocks(read_doc(PLUGIN_ROOT / "commands" / "dispatch.md").body)
    return block.replace("$ARGUMENTS", arguments)


@pytest.mark.parametrize(
    "task",
    [
        INJECTION,
        'a" ; touch pwned; "',
        "it's $(touch pwned) and `touch pwned`",
        "x && touch pwned || touch pwned | touch pwned",
        "${HOME:?} $((1+1)) \\ \\n <<EOF > pwned",
    ],
)
def test_dispatch_block_passes_the_task_as_data(root: Path, task: str) -> None:
    proc = run(
        ["bash", "-c", _dispatch_block(task)], root, f"{LAUNCHER.parent}:{VENV_BIN}:{SYSTEM_PATH}"
    )
    assert proc.returncode == 0, proc.stderr
    assert not (root / "pwned").exists()
    state = json.loads((root / ".agents" / "state.json").read_text())
    assert state["task"] == task
    assert "NEXT: dispatch" in proc.stdout


# -- issue 23: relative PATH entries name whatever folder the session happens to be in ----------


def _planted(folder: Path) -> Path:
    """An executable ``agents-state`` (and the programs the launcher runs) in ``folder`` that
    leaves a mark when it runs."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("python3", "python", "cat", "head", "grep", "readlink", "dirname", "agents-state"):
        fake = folder / name
        fake.write_text(f"#!/bin/sh\ntouch '{folder}/ran'\necho planted\n")
        fake.chmod(0o755)
    return fake


@pytest.mark.parametrize("entry", [".", "", "bin", "./bin", "sub/../bin"])
def test_relative_path_entries_are_never_searched(
    lone_launcher: Path, root: Path, no_python: str, entry: str
) -> None:
    for fake in (_planted(root), _planted(root / "bin"), _planted(root / "sub")):
        assert fake.exists()
    # the relative entry comes before the shim folder whose python3 lacks the dependencies
    path = f"{entry}:{lone_launcher.parent}:{no_python}"
    proc = run([str(lone_launcher), "status"], root, path)
    assert (proc.returncode, proc.stdout) == (127, ""), proc.stdout
    assert "not installed" in proc.stderr
    assert not list(root.rglob("ran"))
    # and a hook's fast path (a workflow exists) does not run it either
    (root / ".agents").mkdir(exist_ok=True)
    (root / ".agents" / "state.json").write_text("{}")
    for event in ("pre-tool-use", "permission"):
        payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "agents-state next"}})
        hook = run([str(lone_launcher), "hook", event], root, path, stdin=payload)
        assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    assert not list(root.rglob("ran"))


def test_an_absolute_path_entry_still_wins(lone_launcher: Path, root: Path, no_python: str) -> None:
    # the engine it finds gets PATH as it was, relative entries included (the project's own
    # commands behave as in the user's shell)
    engine = root / "engine" / "agents-state"
    engine.parent.mkdir()
    engine.write_text('#!/bin/sh\nprintf "%s|%s\\n" "$*" "$PATH"\n')
    engine.chmod(0o755)
    path = f".:{engine.parent}::{no_python}"
    proc = run([str(lone_launcher), "status", "--json"], root, path)
    assert (proc.returncode, proc.stdout) == (0, f"status --json|{path}\n")


@pytest.mark.parametrize("data", [".", "", "work", "./"])
def test_a_relative_plugin_data_is_ignored(
    lone_launcher: Path, root: Path, no_python: str, data: str
) -> None:
    _planted(root / "bin")
    (root / "venv" / "bin").mkdir(parents=True)
    (root / "venv" / "bin" / "agents-state").symlink_to(root / "bin" / "agents-state")
    (root / "work").symlink_to(root)
    proc = run([str(lone_launcher), "status"], root, no_python, extra={"CLAUDE_PLUGIN_DATA": data})
    assert (proc.returncode, proc.stdout) == (127, "")
    assert not list(root.rglob("ran"))
