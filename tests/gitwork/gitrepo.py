"""Real git repositories at phase 2.1 for the worktree isolation tests (issue 22)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from clitools import cli_json, run_cli, walk_to

ID = ["-c", "user.name=Test", "-c", "user.email=test@example.com"]
LINES = 200


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *ID, "-C", str(cwd), *args], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout.strip()


def make_repo(root: Path, lines: int = LINES) -> None:
    git(root, "init", "-q", "-b", "main")
    (root / "f.txt").write_text("".join(f"line {i}\n" for i in range(lines)))
    git(root, "add", "f.txt")
    git(root, "commit", "-qm", "init")


def load(root: Path, tasks: list[dict[str, Any]], wave_size: int = 10) -> Any:
    file = ".agents/phases/2.1-tasks.json"  # inside .agents/: git status never shows it
    (root / file).write_text(json.dumps({"tasks": tasks}))
    proc = run_cli(root, "tasks", "load", file, "--wave-size", str(wave_size), "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def at_tasks(root: Path, tasks: list[dict[str, Any]], wave_size: int = 10) -> Any:
    make_repo(root)
    walk_to(root, "2.1")
    return load(root, tasks, wave_size)


def state(root: Path) -> Any:
    return json.loads((root / ".agents" / "state.json").read_text())


def task_of(root: Path, tid: str) -> Any:
    return state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"][tid]


def integration(root: Path) -> str:
    branch: str = state(root)["git"]["branch"]
    return branch


def show(root: Path, ref: str, path: str = "f.txt") -> str:
    return git(root, "show", f"{ref}:{path}")


def trash_gone(root: Path, limit: float = 60.0) -> None:
    """Wait until the detached ``rm -rf`` of merged worktrees is done (a condition, polled;
    failing after ``limit`` seconds)."""
    import time

    base = root / ".agents" / "worktrees"
    end = time.monotonic() + limit
    while list(base.glob(".trash-*")):
        assert time.monotonic() < end, f"{base}/.trash-* still there"
        time.sleep(0.05)


def edit_line(path: Path, n: int, text: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    lines[n] = text + "\n"
    path.write_text("".join(lines))


__all__ = [
    "LINES",
    "at_tasks",
    "cli_json",
    "edit_line",
    "git",
    "integration",
    "load",
    "make_repo",
    "run_cli",
    "show",
    "state",
    "task_of",
    "trash_gone",
]
