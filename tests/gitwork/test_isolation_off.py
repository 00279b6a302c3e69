"""Without git, or with ``isolation: "none"`` (issue 22): no worktrees, and tasks whose files
overlap never share a wave."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clitools import cli_json, run_cli, walk_to
from gitrepo import git, load, make_repo

from agents_state.engine.waves import TaskDef, files_overlap, plan_waves, plan_waves_apart

TASKS: list[dict[str, Any]] = [
    {"id": "a", "files": ["src/app.py"]},
    {"id": "b", "files": ["src/*.py"]},
    {"id": "c", "files": ["docs/readme.md"]},
    {"id": "d", "files": ["src/app.py", "tests/test_app.py"]},
    {"id": "e", "files": []},
    {"id": "f", "dependencies": ["a"], "files": ["src/app.py"]},
]


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        ("src/app.py", "src/app.py", True),
        ("./src/app.py", "src/app.py", True),
        ("src", "src/app.py", True),
        ("src/*.py", "src/app.py", True),
        ("src/**", "src/a/b.py", True),
        ("src/*.py", "src/a/b.py", False),
        ("src/*.py", "docs/*.md", False),
        ("src/**/*.py", "src/api/*.py", True),
        ("src/app.py", "src/app.pyc", False),
        ("{src,lib}/x.py", "lib/x.py", True),
    ],
)
def test_files_overlap(a: str, b: str, overlap: bool) -> None:
    assert files_overlap(a, b) is overlap
    assert files_overlap(b, a) is overlap


def test_overlapping_tasks_never_share_a_wave() -> None:
    defs = [
        TaskDef(t["id"], dependencies=tuple(t.get("dependencies", [])), files=tuple(t["files"]))
        for t in TASKS
    ]
    assert plan_waves(defs, 10) == [["a", "b", "c", "d", "e"], ["f"]]
    assert plan_waves_apart(defs, 10) == [["a", "c", "e"], ["b"], ["d"], ["f"]]
    assert plan_waves_apart(defs, 2) == [["a", "c"], ["b", "e"], ["d"], ["f"]]


def _expect_off(root: Path) -> None:
    walk_to(root, "2.1")
    out = load(root, TASKS)
    assert out["message"] == (
        "6 tasks in 4 wave(s) loaded; wave 1 has 3 task(s); isolation off: tasks share the "
        "working tree, so tasks whose files overlap run in different waves"
    )
    assert out["waves"] == [["a", "c", "e"], ["b"], ["d"], ["f"]]
    state = json.loads((root / ".agents" / "state.json").read_text())
    assert "git" not in state
    assert not (root / ".agents" / "worktrees").exists()
    status = run_cli(root, "status")
    assert (
        "isolation: off (tasks share the working tree; tasks whose files overlap run in "
        "different waves)" in status.stdout
    )
    phase = cli_json(root, "status")["workflow"]["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert phase["isolation"] == {"mode": "off"}
    claim = cli_json(root, "task", "claim", "a")
    assert "worktree" not in claim and "branch" not in claim
    done = run_cli(root, "task", "done", "a", "--summary", "x")
    assert done.stdout == "a completed\n"


def test_outside_git_isolation_is_off(root: Path) -> None:
    _expect_off(root)


def test_isolation_none_in_a_git_repository(root: Path) -> None:
    make_repo(root)
    (root / ".agents").mkdir(exist_ok=True)
    (root / ".agents" / "config.json").write_text(
        json.dumps({"stages": {"IMPLEMENT": {"tasks": {"isolation": "none"}}}})
    )
    _expect_off(root)
    assert git(root, "branch", "--list", "agents/*") == ""


def test_a_repository_without_a_commit_has_no_isolation(root: Path) -> None:
    git(root, "init", "-q")
    _expect_off(root)
