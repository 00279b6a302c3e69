"""Issue 27, a fresh clone: the README's commands work as written, in a shell with nothing set up,
its ``.agents/`` list names every file the engine writes there, and it says what the tests need.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clitools import invoke, run_cli

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def blocks(text: str) -> list[str]:
    return re.findall(r"```(?:sh)?\n(.*?)```", text, re.S)


def use_lines() -> list[str]:
    """The Use section's commands up to the first ``agents-state next``, comments dropped."""
    lines = []
    for raw in blocks(section("Use"))[0].splitlines():
        line = re.sub(r"\s+#.*$", "", raw).strip()
        lines.append(line)
        if line.startswith("agents-state next"):
            return lines
    raise AssertionError("the Use section has no `agents-state next`")


def fresh_shell(script: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``bash -c SCRIPT`` with the environment of a new login: no venv active, system PATH."""
    return subprocess.run(
        ["/bin/bash", "-e", "-c", script],
        cwd=cwd,
        env={"PATH": SYSTEM_PATH, "HOME": str(home), "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_the_use_sections_first_commands_work_in_a_fresh_shell(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / ".venv").symlink_to(Path(sys.prefix))  # the set-up's venv (built by this run's)
    lines = use_lines()
    proc = fresh_shell("\n".join(lines), clone, tmp_path)
    assert proc.returncode == 0, (lines, proc.stderr)
    assert "NEXT: dispatch" in proc.stdout
    assert (clone / ".agents/state.json").is_file()


@pytest.mark.slow  # a real pip install into a new venv (the package index must be reachable)
def test_a_fresh_clone_runs_the_readmes_set_up_and_use_commands_as_written(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "clone"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file() and not name.startswith(".ci/node"):
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, clone / name)
    fresh = section("On a fresh machine")
    set_up = blocks(fresh)[0].strip()
    assert set_up.startswith("python3 -m venv .venv && .venv/bin/pip install -e '.[mcp]'")
    proc = fresh_shell(set_up, clone, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "completed" in proc.stdout  # the demo ran to its end
    proc = fresh_shell("\n".join(use_lines()), clone, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "NEXT: dispatch" in proc.stdout
    proc = fresh_shell(".venv/bin/python -c 'import mcp.server'", clone, tmp_path)  # issue 36
    assert proc.returncode == 0, proc.stderr


def test_the_readmes_set_up_and_ci_install_the_mcp_extra() -> None:
    """Issue 36: the MCP server's SDK is an extra; both set-up commands and CI install it."""
    fresh = blocks(section("On a fresh machine"))
    assert "pip install -e '.[mcp]'" in fresh[0]
    assert "-e '.[test,postgres,mcp]'" in fresh[1]
    ci_run = (REPO / ".ci/run").read_text()
    assert "-c constraints.txt -e '.[test,postgres,mcp]'" in ci_run
    pins = (REPO / "constraints.txt").read_text().splitlines()
    assert any(line.startswith("mcp==") for line in pins)


def _readme_agents_names() -> set[str]:
    files = section("Files")
    block = next(b for b in blocks(files) if b.startswith(".agents/"))
    return {m.group(1).rstrip("/") for m in re.finditer(r"^  (\S+)\s", block, re.M) if m.group(1)}


def test_the_readmes_agents_list_names_every_entry_the_engine_writes(tmp_path: Path) -> None:
    """A workflow, a replaced one, a chain, the hooks: every entry of ``.agents/`` is listed."""
    assert run_cli(tmp_path, "dispatch", "first task").returncode == 0
    assert run_cli(tmp_path, "dispatch", "--replace", "second task").returncode == 0
    assert run_cli(tmp_path, "chain", "start", "code", "Add /auth/login").returncode == 0
    (tmp_path / ".agents/config.json").write_text("{}")
    transcript = str(tmp_path / "t.jsonl")
    write = {"tool_name": "Write", "tool_input": {"file_path": "a.py"}, "agent_id": "a1"}
    hook_calls: list[tuple[str, dict[str, Any]]] = [
        ("post-tool-use", {"hook_event_name": "PostToolUse", "tool_name": "Read"}),
        ("post-tool-use", {"tool_name": "Read", "transcript_path": transcript}),
        ("subagent-start", {"agent_id": "a1", "agent_type": "subagents:explore"}),
        ("session-start", {"source": "resume", "session_id": "s"}),
        ("permission-request", {"hook_event_name": "PermissionRequest", **write}),
    ]
    for event, data in hook_calls:
        data = {"cwd": str(tmp_path), **data}
        r = invoke(["hook", event], stdin=json.dumps(data), cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    written = {p.name for p in (tmp_path / ".agents").iterdir()}
    hooks = {"toolcalls.log", "subagents.jsonl", "transcript-path", "session-start.json"}
    assert {"archive", "chains", "refusals.json"} | hooks <= written, written
    listed = _readme_agents_names()
    assert written - listed == set(), "named nowhere in the README's Files section"
    assert "state.lock" in listed  # not POSIX: the one entry this run cannot show


@pytest.mark.parametrize(
    "hint",
    [
        "bash .ci/plugin.sh",  # tests/plugin/claude_cli.py
        "apt-get install postgresql",  # tests/pg/conftest.py
        "strace",  # tests/reliability/test_replace_faults.py
        "cd tests/views/mermaid && npm ci",  # tests/views/test_graph.py
        "iproute2",  # tests/pg/test_pg_netns.py
    ],
)
def test_the_readme_says_what_each_skipped_test_needs(hint: str) -> None:
    tests_dir = REPO / "tests"
    here = Path(__file__).resolve()
    said = [p for p in tests_dir.rglob("*.py") if p.resolve() != here and hint in p.read_text()]
    assert said, f"no test names {hint!r} any more: update this list"
    assert hint in section("On a fresh machine")


def test_the_readme_says_what_ci_run_does_to_the_machine() -> None:
    ci_run = (REPO / ".ci/run").read_text()
    fresh = " ".join(section("On a fresh machine").split())
    assert "rm -rf .venv" in ci_run and "deletes `.venv`" in fresh
    assert "apt-get" in ci_run and "needs root and network" in fresh
    assert "pg_ctlcluster" in ci_run and "stops the clusters" in fresh


def test_ci_run_drops_the_development_variables_before_it_does_anything() -> None:
    """Issue 33: `.ci/run` runs as a user's shell would, without the `PYTHON*` switches of the
    development environment (they hid exit codes and bytecode): what it runs before its first
    step leaves none of them set."""
    ci_run = (REPO / ".ci/run").read_text()
    prelude = ci_run[: ci_run.index("\nPY=")]  # everything before the first real step
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    proc = subprocess.run(
        ["bash", "-c", prelude + "\nenv"],
        cwd=REPO / ".ci",
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert [v for v in proc.stdout.splitlines() if v.startswith("PYTHON")] == []
    assert "CI=1" in proc.stdout.splitlines()
