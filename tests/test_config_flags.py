"""Issue 27, item 5: the configuration's last layer, ``--set KEY=VALUE`` on the command line
(PRODUCT.md: defaults, user file, project file, .agents/config.json, environment, command-line
flags; later wins), validated like the file layers with one-line errors (exit 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clitools import cli_json, run_cli

from agents_state.configload import FLAGS_LAYER


def test_set_wins_over_every_other_layer(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / ".agents").mkdir(parents=True)
    (root / ".agents/config.json").write_text('{"retries": {"maxPerPhase": 2, "maxPerTask": 4}}')
    monkeypatch.setenv("AGENTS_STATE_CFG_retries__maxPerPhase", "7")
    data = cli_json(root, "--set", "retries.maxPerPhase=9", "config", "show")
    assert data["config"]["retries"]["maxPerPhase"] == 9
    assert data["sources"]["retries.maxPerPhase"] == FLAGS_LAYER == "command line (--set)"
    assert data["config"]["retries"]["maxPerTask"] == 4  # the file's, untouched
    assert data["sources"]["retries.maxPerTask"] == "agents (.agents/config.json)"


def test_set_before_and_after_the_subcommand_repeatable_later_wins(root: Path) -> None:
    data = cli_json(
        root,
        "--set",
        "defaults.model=opus",
        "config",
        "show",
        "--set",
        "defaults.model=haiku",
        "--set",
        'stages.TEST.commands={"test": "pytest -q"}',
        "--set",
        "stages.FINAL.git.workflow=commit",
    )
    assert data["config"]["defaults"]["model"] == "haiku"
    assert data["config"]["stages"]["TEST"]["commands"] == {"test": "pytest -q"}
    assert data["config"]["stages"]["FINAL"]["git"]["workflow"] == "commit"  # text, not JSON


def test_set_changes_what_the_workflow_does(root: Path) -> None:
    assert run_cli(root, "dispatch", "Add OAuth login").returncode == 0
    plain = cli_json(root, "next")
    sized = cli_json(root, "next", "--set", "stages.EXPLORE.maxParallelAgents=1")
    assert plain["agents"]["count"] > 1 and sized["agents"]["count"] == 1
    assert not (root / ".agents/config.json").exists()  # a flag writes nothing


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        (
            "stages.PLAN.planning.mod=single",
            "--set: stages.PLAN.planning.mod: unknown key (did you mean 'mode'?)",
        ),
        (
            "stages.PLAN.planning.maxParallelAgents=40",
            "--set: stages.PLAN.planning.maxParallelAgents: Input should be less than or equal "
            "to 10 (got 40)",
        ),
        (
            "defaults.model=gpt-5",
            "--set: defaults.model: unknown model 'gpt-5'",
        ),
        (
            "retries",
            "--set: 'retries' is not KEY=VALUE with a dotted key, e.g. --set "
            "stages.PLAN.planning.mode=single",
        ),
        (
            "stages..mode=x",
            "--set: 'stages..mode=x' is not KEY=VALUE with a dotted key, e.g. --set "
            "stages.PLAN.planning.mode=single",
        ),
    ],
)
def test_a_bad_set_is_one_line_exit_5(root: Path, pair: str, message: str) -> None:
    assert run_cli(root, "dispatch", "Add OAuth login").returncode == 0
    before = (root / ".agents/state.json").read_bytes()
    r = run_cli(root, "next", "--set", pair)
    assert r.returncode == 5 and r.stdout == ""
    assert r.stderr.startswith(f"agents-state: error: {message}")
    assert r.stderr.count("\n") == 1
    r = run_cli(root, "--json", "next", "--set", pair)
    assert json.loads(r.stderr)["error"]["exit"] == 5
    assert (root / ".agents/state.json").read_bytes() == before
