"""Issue 26, start-up: how bin/agents-state hands a hook to the engine it found.

- pip's console script imports ``re`` only to tidy ``sys.argv[0]`` (about 5 ms of every hook):
  for a hook the launcher runs the same entry point on the script's own Python (its ``#!``
  line) when the file is exactly pip's script for this package; anything else runs as it is,
  and commands always run the script;
- a payload the launcher read to filter the call (``permission``, and ``pre-tool-use`` with no
  workflow) reaches the engine through a pipe, unchanged, and the hook exits 0 whatever the
  engine does.

Which program ran, and with what, is shown by shims that write it down (not by a clock).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pluginfiles import LAUNCHER, PLUGIN_ROOT

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
PIP_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from agents_state.__main__ import {entry}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({entry}())
"""
# what pyproject.toml's [project.scripts] names, as pip writes it into the script
ENTRY = tomllib.loads((PLUGIN_ROOT / "pyproject.toml").read_text())["project"]["scripts"][
    "agents-state"
].split(":")[1]
WRITE = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Write",
    "tool_input": {"file_path": "a.py", "content": "x"},
    "agent_id": "a1",
    "agent_type": "subagents:explore-agent",
}


def run(
    args: list[str], cwd: Path, data: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": SYSTEM_PATH,
        "HOME": str(cwd),
        "CLAUDE_PLUGIN_DATA": str(data),
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN_ROOT),
    }
    return subprocess.run(
        [str(LAUNCHER), *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def installed(tmp_path: Path, script: str = PIP_SCRIPT, entry: str = ENTRY) -> tuple[Path, Path]:
    """An engine under CLAUDE_PLUGIN_DATA as hooks/session-start.sh links it: a console script
    whose Python is a shim that writes down its arguments, then runs this test's Python."""
    data, venv = tmp_path / "data", tmp_path / "venvs" / "fp" / "bin"
    venv.mkdir(parents=True)
    (data / "bin").mkdir(parents=True)
    mark = tmp_path / "python-ran"
    python = venv / "python"
    python.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{mark}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (venv / "agents-state").write_text(script.format(python=python, entry=entry))
    (venv / "agents-state").chmod(0o755)
    (data / "bin" / "agents-state").symlink_to(venv / "agents-state")
    return data, mark


@pytest.fixture
def project(root: Path) -> Path:
    (root / ".agents").mkdir(parents=True, exist_ok=True)
    (root / ".agents" / "state.json").write_text('{"status": "in_progress", "currentPhase": "0"}')
    return root


@pytest.mark.parametrize("entry", ["main", "program"])  # before and after issue 26's program()
def test_a_hook_runs_pips_entry_point_without_the_script(
    project: Path, tmp_path: Path, entry: str
) -> None:
    data, mark = installed(tmp_path, entry=entry)
    payload = json.dumps({**WRITE, "cwd": str(project)})
    proc = run(["hook", "pre-tool-use"], project, data, stdin=payload)
    assert (proc.returncode, proc.stderr) == (0, "")
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "Write is not in it" in out["permissionDecisionReason"]
    script = data / "bin" / "agents-state"
    (ran,) = mark.read_text().splitlines()
    assert ran.startswith(
        f"-P -c import sys; sys.argv.pop(0); from agents_state.__main__ import {entry}; "
        f"sys.exit({entry}())"
    )
    assert ran.endswith(f" {script} hook pre-tool-use")


def test_a_command_runs_the_script(project: Path, tmp_path: Path) -> None:
    data, mark = installed(tmp_path)
    proc = run(["--version"], project, data)
    assert proc.returncode == 0, proc.stderr
    (ran,) = mark.read_text().splitlines()
    assert ran == f"{data / 'bin' / 'agents-state'} --version"


def test_a_hook_keeps_the_programs_name(project: Path, tmp_path: Path) -> None:
    """``hook --help`` goes to Click, which names the program after ``sys.argv[0]``."""
    data, mark = installed(tmp_path)
    proc = run(["hook", "--help"], project, data)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: agents-state hook [OPTIONS] EVENT")
    assert mark.read_text().startswith("-P -c ")


@pytest.mark.parametrize(
    "script",
    [
        PIP_SCRIPT.replace("import re\n", "import os\nimport re\n"),
        PIP_SCRIPT.replace("agents_state.__main__", "other.__main__"),
        PIP_SCRIPT.replace("{entry}", "cli_main"),
        PIP_SCRIPT.replace("#!{python}", "#!/usr/bin/env {python}"),
        "#!/bin/sh\n'''exec' \"{python}\" \"$0\" \"$@\"\n' '''\n" + PIP_SCRIPT.split("\n", 1)[1],
    ],
    ids=["another-line", "another-package", "another-function", "env", "sh-trampoline"],
)
def test_any_other_script_runs_as_it_is(project: Path, tmp_path: Path, script: str) -> None:
    data, mark = installed(tmp_path, script)
    payload = json.dumps({**WRITE, "cwd": str(project)})
    proc = run(["hook", "pre-tool-use"], project, data, stdin=payload)
    assert not mark.read_text().startswith("-P -c ")  # the script's own #! line ran the shim
    if "other" not in script and "cli_main" not in script:  # (those fail as they always did)
        assert proc.returncode == 0, proc.stderr
        assert '"permissionDecision":"deny"' in proc.stdout


def _engine_that_echoes(tmp_path: Path, code: int) -> Path:
    """An engine (not pip's script) that writes down its stdin and arguments, then fails."""
    data = tmp_path / "data"
    (data / "bin").mkdir(parents=True)
    engine = data / "bin" / "agents-state"
    seen = tmp_path / "seen"
    engine.write_text(f'#!/bin/sh\n{{ echo "$*"; cat; }} > "{seen}"\nexit {code}\n')
    engine.chmod(0o755)
    return data


@pytest.mark.parametrize(
    ("event", "payload", "workflow"),
    [
        ("permission", {"tool_name": "Bash", "tool_input": {"command": "agents-state next"}}, 0),
        ("pre-tool-use", {**WRITE, "tool_input": {"file_path": "a\\\\b\n\\n 'q' $x"}}, 0),
        ("permission", {"tool_name": "Skill", "tool_input": {"skill": "subagents:dispatch"}}, 1),
    ],
    ids=["permission", "no-workflow", "permission-with-workflow"],
)
def test_a_filtered_payload_reaches_the_engine_unchanged(
    root: Path, tmp_path: Path, event: str, payload: dict[str, object], workflow: int
) -> None:
    root.mkdir(parents=True, exist_ok=True)
    if workflow:
        (root / ".agents").mkdir()
        (root / ".agents" / "state.json").write_text("{}")
    data = _engine_that_echoes(tmp_path, code=3)
    text = json.dumps({**payload, "cwd": str(root)}, indent=1)
    proc = run(["hook", event], root, data, stdin=text + "\n\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    # $(cat) drops the trailing newlines; one is written back
    assert (tmp_path / "seen").read_text() == f"hook {event}\n{text}\n"


# -- the engine hooks/session-start.sh installs: pip's script without its `re` ------------------

SESSION_START = PLUGIN_ROOT / "hooks" / "session-start.sh"
HEAVY_FOR_A_HOOK = ("re", "json", "enum", "functools", "collections", "typing", "orjson")


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["data", "data with spaces"])  # pip's #! line, or its sh
def test_the_installed_engine_runs_a_hook_without_re(
    project: Path, tmp_path: Path, folder: str
) -> None:
    data = tmp_path / folder
    env = {"PATH": SYSTEM_PATH, "HOME": str(project), "CLAUDE_PLUGIN_DATA": str(data)}
    subprocess.run(
        ["sh", str(SESSION_START)],
        cwd=project,
        env=env,
        input="{}",
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    engine = data / "bin" / "agents-state"
    script = engine.resolve().read_text().splitlines()
    assert script[-5:] == [
        "# -*- coding: utf-8 -*-",
        "import sys",
        f"from agents_state.__main__ import {ENTRY}",
        "if __name__ == '__main__':",
        f"    sys.exit({ENTRY}())",
    ]
    assert ("'''exec'" in script[1]) is (" " in folder)  # pip's own first lines are kept
    payload = json.dumps({**WRITE, "cwd": str(project)})
    for cmd in ([str(engine)], [str(LAUNCHER)]):
        proc = subprocess.run(
            [*cmd, "hook", "pre-tool-use"],
            cwd=project,
            env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
            input=payload,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0
        assert '"permissionDecision":"deny"' in proc.stdout
        lines = proc.stderr.splitlines()
        assert [ln for ln in lines if not ln.startswith("import time:")] == []
        modules = {ln.split("|")[-1].strip() for ln in lines}
        assert "agents_state.hooks.agentmap" in modules  # judged
        assert sorted(m for m in HEAVY_FOR_A_HOOK if m in modules) == [], cmd
    version = subprocess.run(
        [str(engine), "--version"], env=env, capture_output=True, text=True, check=True
    )
    assert version.stdout.startswith("agents-state, version ")
