"""Tests never touch the real home or a real .agents/: every test runs in its own folders."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Variables of a development shell that change what a user's run does (buffering, bytecode,
# the streams' encoding); .ci/run unsets them too.
_DEV_ENVIRONMENT = (
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "PYTHONWARNINGS",
    "PYTHONDEVMODE",
)


@pytest.fixture(autouse=True)
def isolate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in list(os.environ):
        if name.startswith("AGENTS_STATE_"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)  # the PreToolUse hook looks there
    monkeypatch.delenv("CLAUDECODE", raising=False)  # set in Claude Code's commands
    # issue 25: a run under Claude Code (AI_AGENT) or with its switches would choose the path
    for name in ("AI_AGENT", "CLAUDE_CODE_DISABLE_WORKFLOWS", "CLAUDE_CODE_WORKFLOWS"):
        monkeypatch.delenv(name, raising=False)
    # issue 33: a user's shell has none of the development environment's switches; with them the
    # installed CLI's output is unbuffered and hid exit 120 for a failed flush at exit
    for name in _DEV_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "work"
