"""Issue 23, item 4: Glob and Grep are judged by what they return.

Glob lists names and never opens a file, so no pattern reaches a credential's contents: every
explore agent's first search, ``Glob **/*``, was denied in any project with a ``.env``.  Grep
reads the files it searches (even when it prints only their names, a match tells what is in
them), so a Grep that would read ``.env`` is still denied, and so is a Read of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.hookcase import CRED, ask, make_project

ENV = ".env: a credential file (.env, environment file)"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    return project


@pytest.mark.parametrize(
    "tool_input",
    [
        {"pattern": "**/*"},
        {"pattern": "**/.env*"},
        {"pattern": ".[e]nv"},
        {"pattern": "*", "path": "config"},
        {"pattern": "config/.e*"},
        {"pattern": "*", "path": "~/.ssh"},
    ],
)
def test_glob_lists_names_and_is_allowed(root: Path, tool_input: dict[str, str]) -> None:
    assert ask(root, "Glob", tool_input) is None


@pytest.mark.parametrize(
    ("tool_input", "what"),
    [
        ({"pattern": "KEY"}, f"Grep over '.' would reach {ENV}"),
        (
            {"pattern": "KEY", "output_mode": "files_with_matches"},
            f"Grep over '.' would reach {ENV}",
        ),
        ({"pattern": "KEY", "output_mode": "count"}, f"Grep over '.' would reach {ENV}"),
        (
            {"pattern": "KEY", "glob": "**/*"},
            f"Grep over '.' with glob '**/*' would reach {ENV}",
        ),
    ],
)
def test_grep_that_reads_a_credential_is_denied(
    root: Path, tool_input: dict[str, str], what: str
) -> None:
    assert ask(root, "Grep", tool_input) == CRED.format(profile="researcher", what=what)


def test_read_of_env_is_still_denied(root: Path) -> None:
    assert ask(root, "Read", {"file_path": ".env"}) == CRED.format(profile="researcher", what=ENV)


def test_glob_input_that_is_not_a_string_is_still_refused(root: Path) -> None:
    assert ask(root, "Glob", {"pattern": 3}) == (
        "agents-state: the Glob call's pattern is not a string; denied."
    )
    assert ask(root, "Glob", {}) == "agents-state: the Glob call has no pattern; denied."
