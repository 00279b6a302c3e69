"""Under worktree isolation a task agent's Write / Edit outside a task worktree is denied by
the PreToolUse profile check (issue 22); other agents and other tools are not affected."""

from __future__ import annotations

from pathlib import Path

import pytest
from protocol.hookcase import ask, make_project

DENY = (
    "agents-state: worktree isolation is on: a task agent writes only inside its task's "
    "worktree (.agents/worktrees/<task-id>/, printed by agents-state task start); {target} "
    "is outside it; denied."
)


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = make_project(tmp_path)
    (root / ".agents" / "worktrees" / "t1" / "src").mkdir(parents=True)
    (root / ".agents" / "worktrees" / "_integration").mkdir()
    return root


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit", "NotebookEdit"])
def test_task_agent_writes_outside_its_worktree_are_denied(proj: Path, tool: str) -> None:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    inside = proj / ".agents" / "worktrees" / "t1" / "src" / "auth.ts"
    agent = "subagents:task-agent"
    assert ask(proj, tool, {key: str(inside)}, agent) is None
    assert ask(proj, tool, {key: "src/auth.ts"}, agent, cwd=inside.parent) is None
    for target in (
        str(proj / "src" / "auth.ts"),
        str(proj / ".agents" / "worktrees" / "_integration" / "x.py"),
        str(proj / ".agents" / "worktrees" / "t1"),
        "../../../src/auth.ts",
    ):
        where = inside.parent if target.startswith("..") else proj
        assert ask(proj, tool, {key: target}, agent, cwd=where) == DENY.format(target=target)


def test_other_agents_and_tools_and_no_isolation_are_unaffected(proj: Path, tmp_path: Path) -> None:
    target = str(proj / "src" / "auth.ts")
    assert ask(proj, "Write", {"file_path": target}, "subagents:code-writer") is None
    assert ask(proj, "Read", {"file_path": target}, "subagents:task-agent") is None
    plain = make_project(tmp_path / "plain")
    assert ask(plain, "Write", {"file_path": str(plain / "x")}, "subagents:task-agent") is None
