"""In-process command runs (Click's isolation + the one error handler) for issue 15's tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from agents_state.cli import cli
from agents_state.cli.runner import run
from agents_state.workflow import artifact_path

PASSING = '{"commands": [{"name": "test", "command": "pytest", "exitCode": 0}]}'
FAILING = (
    '{"commands": [{"name": "lint", "command": "ruff", "exitCode": 0}, '
    '{"name": "test", "command": "pytest", "exitCode": 1, "outputTail": "FAILED x"}]}'
)


def sh(root: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run one command in process: (exit code, stdout, stderr)."""
    runner = CliRunner()
    with runner.isolation(input=stdin) as (out, err, _):
        code = run(cli, ["--root", str(root), *args])
        sys.stdout.flush()
        sys.stderr.flush()
    return code, out.getvalue().decode(), err.getvalue().decode()


def js(root: Path, *args: str, stdin: str | None = None) -> Any:
    code, out, err = sh(root, *args, "--json", stdin=stdin)
    assert code == 0, err
    return json.loads(out)


def state_bytes(root: Path) -> bytes:
    return (root / ".agents/state.json").read_bytes()


def body_for(write: str) -> str:
    if write.endswith("3.1-test-results.json"):
        return PASSING
    return '{"issues": []}' if write.endswith(".json") else "# notes\n"


def walk_to(root: Path, phase: str, task: str = "Add a health endpoint") -> dict[str, Any]:
    """Dispatch and follow ``next`` until the action is for ``phase``; returns that action."""
    if not (root / ".agents/state.json").exists():
        assert sh(root, "dispatch", task)[0] == 0
    for _ in range(60):
        a = js(root, "next")
        if a["kind"] == "compact":
            assert sh(root, "compact")[0] == 0
            continue
        if a["phase"] == phase and a["kind"] != "wait":
            return dict(a)
        if a.get("tasks"):
            for t in a["tasks"]:
                assert sh(root, "task", "start", t["id"])[0] == 0
                assert sh(root, "task", "done", t["id"], "--summary", f"did {t['id']}")[0] == 0
            continue
        if a["command"].startswith("agents-state tasks load"):
            (root / "t.json").write_text(
                '{"tasks": [{"id": "a", "title": "A"}, '
                '{"id": "b", "title": "B", "dependencies": ["a"]}]}'
            )
            assert sh(root, "tasks", "load", str(root / "t.json"))[0] == 0
            continue
        write = a["write"] or artifact_path(a["phase"])  # a Codex review writes its own
        code, _, err = sh(
            root, "phase", "complete", a["phase"], "--artifact", "-", stdin=body_for(write)
        )
        assert code == 0, err
    raise AssertionError(f"phase {phase} not reached")
