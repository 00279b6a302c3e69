"""Issue 9: shell completion (Click's own, bash / zsh / fish) with phase and task ids from the
current state, ``--version``, and an example in every command's ``--help``."""

from __future__ import annotations

import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from clitools import invoke, run_cli

from agents_state import __version__
from agents_state.cli import cli

EXAMPLE = Path(__file__).parent.parent.parent / ".agents.example"


def _complete(root: Path, shell: str, words: str, cword: str) -> str:
    env = {"COMP_WORDS": words, "COMP_CWORD": cword, "_AGENTS_STATE_COMPLETE": f"{shell}_complete"}
    proc = invoke([], env=env, cwd=root)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "_AGENTS_STATE_COMPLETE=bash_complete"),
        ("zsh", "#compdef agents-state"),
        ("fish", "complete --no-files --command agents-state"),
    ],
)
def test_completion_scripts(root: Path, shell: str, marker: str) -> None:
    proc = run_cli(root, "completion", shell)
    assert proc.returncode == 0 and marker in proc.stdout
    own = invoke([], env={"_AGENTS_STATE_COMPLETE": f"{shell}_source"})
    assert own.stdout == proc.stdout  # the same script as Click's own environment variable


def test_task_ids_complete_from_the_state(root: Path) -> None:
    shutil.copytree(EXAMPLE, root / ".agents")
    out = _complete(root, "bash", "agents-state task done t", "3")
    assert out.split() == ["plain,task-4", "plain,task-5", "plain,task-6"]  # not the done ones
    out = _complete(root, "fish", f"agents-state --root {root} task fail task-", "task-")
    assert out.splitlines() == [
        "plain,task-4\tCallback routes (in_progress)",
        "plain,task-5\tAccount linking (pending)",
        "plain,task-6\tTests (pending)",
    ]


def test_phase_ids_complete_with_their_status(root: Path) -> None:
    shutil.copytree(EXAMPLE, root / ".agents")
    out = _complete(root, "zsh", "agents-state phase start 2", "3")
    assert out.splitlines() == [
        "plain",
        "2.1",
        "Parallel Task Execution (in_progress)",
        "plain",
        "2.2",
        "Simplify (pending)",
        "plain",
        "2.3",
        "Implementation Review (pending)",
    ]
    assert _complete(root, "bash", "agents-state gr", "1").split() == ["plain,graph"]


def test_completion_never_fails_on_a_broken_state(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/state.json").write_text("{not json")
    assert _complete(root, "bash", "agents-state task done ", "3").split() == []
    assert _complete(root, "bash", "agents-state phase complete 4.", "3").split() == [
        "plain,4.1",
        "plain,4.2",
        "plain,4.3",
    ]


def test_version(root: Path) -> None:
    proc = run_cli(root, "--version")
    assert proc.returncode == 0 and proc.stdout == f"agents-state, version {__version__}\n"


def _commands(group: click.Group, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    ctx = click.Context(group)
    out = [path]
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, f"{' '.join(path)} {name} is declared but missing"
        out += _commands(cmd, (*path, name)) if isinstance(cmd, click.Group) else [(*path, name)]
    return out


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    missing = []
    commands = _commands(cli, ())
    assert {("watch",), ("graph",), ("schema",), ("completion",)} <= set(commands)
    for path in commands:
        result = runner.invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        if "Example" not in result.output or "agents-state " not in result.output:
            missing.append(" ".join(path) or "(top level)")
    assert missing == []
