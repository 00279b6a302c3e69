"""Tests never touch the real home or a real .agents/: every test runs in its own folders."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


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
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "work"
