"""Issue 4: configuration layers, exact errors, sizing, schedule from config, review loops."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clitools import DATA, artifact_body, cli_json, run_cli

from agents_state.configload import load_config
from agents_state.engine.scoring import size_chain


def test_full_config_example_loads(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_bytes((DATA / "design004_config.json").read_bytes())
    cfg = load_config(root)
    assert cfg.config.stages.FINAL.git.workflow == "branch+PR"
    assert cfg.sources["stages.TEST.commands.lint"] == "agents (.agents/config.json)"


def test_layers_later_wins_and_sources(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    (home / ".claude/subagents-config.json").write_text(
        '{"defaults": {"model": "opus"}, "retries": {"maxPerTask": 5}}'
    )
    (root / ".claude").mkdir()
    (root / ".claude/subagents-config.json").write_text('{"defaults": {"model": "haiku"}}')
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text('{"compaction": {"betweenPhases": true}}')
    monkeypatch.setenv("AGENTS_STATE_CFG_retries__maxPerPhase", "7")
    data = cli_json(root, "config", "show")
    assert data["config"]["defaults"]["model"] == "haiku"
    assert data["config"]["retries"] == {
        "maxPerPhase": 7,
        "maxPerTask": 5,
        "backoffSeconds": [5, 15, 30],
    }
    src = data["sources"]
    assert src["defaults.model"] == "project (.claude/subagents-config.json)"
    assert src["retries.maxPerTask"].startswith("user (")
    assert src["compaction.betweenPhases"] == "agents (.agents/config.json)"
    assert src["retries.maxPerPhase"] == "environment"
    assert src["compaction.betweenStages"] == "default"


ALIASES = (
    "sonnet-4.5, sonnet, sonnet-4, opus-4.5, opus, opus-4.1, opus-4, haiku-4.5, haiku, "
    "haiku-3.5, inherit, codex-high, codex-xhigh"
)
P = ".agents/config.json: "
BAD_CONFIGS = [
    (
        {"stages": {"EXPLORE": {"maxParalelAgents": 3}}},
        P + "stages.EXPLORE.maxParalelAgents: unknown key (did you mean 'maxParallelAgents'?)",
    ),
    (
        {"stages": {"EXPLORE": {"maxParallelAgents": 11}}},
        P + "stages.EXPLORE.maxParallelAgents: Input should be less than or equal to 10 (got 11)",
    ),
    (
        {"stages": {"EXPLORE": {"maxParallelAgents": 0}}},
        P + "stages.EXPLORE.maxParallelAgents: Input should be greater than or equal to 1 (got 0)",
    ),
    (
        {"stages": {"EXPLORE": {"maxParallelAgents": -3}}},
        P + "stages.EXPLORE.maxParallelAgents: Input should be greater than or equal to 1 (got -3)",
    ),
    (
        {"stages": {"EXPLORE": {"maxParallelAgents": 10**30}}},
        P + "stages.EXPLORE.maxParallelAgents: Input should be less than or equal to 10 "
        "(got 1000000000000000000000000000000)",
    ),
    (
        {"stages": {"EXPLORE": {"model": "gpt-5"}}},
        P
        + "stages.EXPLORE.model: unknown model 'gpt-5'; use one of "
        + ALIASES
        + " or a full model id such as "
        "claude-sonnet-4-5-20250929 (got 'gpt-5')",
    ),
    (
        {"stages": {"PLAN": {"planning": {"mode": "serial"}}}},
        P + "stages.PLAN.planning.mode: Input should be 'parallel' or 'single' (got 'serial')",
    ),
    (
        {"stages": {"PLAN": {"review": {"maxRetries": 99}}}},
        P + "stages.PLAN.review.maxRetries: Input should be less than or equal to 10 (got 99)",
    ),
    (
        {"stages": {"PLAN": {"review": {"tool": "codex-ultra"}}}},
        P
        + "stages.PLAN.review.tool: unknown model 'codex-ultra'; use one of "
        + ALIASES
        + " or a full model id such as "
        "claude-sonnet-4-5-20250929 (got 'codex-ultra')",
    ),
    (
        {"stages": {"DEPLOY": {}}},
        P + "stages.DEPLOY: unknown key; known keys here: EXPLORE, PLAN, IMPLEMENT, TEST, FINAL",
    ),
    (
        {"stages": {"TEST": {"enabled": "maybe"}}},
        P + "stages.TEST.enabled: Input should be a valid boolean, unable to interpret input "
        "(got 'maybe')",
    ),
    (
        {"stages": {"TEST": {"commands": {"lint": 5}}}},
        P + "stages.TEST.commands.lint: Input should be a valid string (got 5)",
    ),
    (
        {"stages": {"TEST": {"comands": {}}}},
        P + "stages.TEST.comands: unknown key (did you mean 'commands'?)",
    ),
    (
        {"stages": {"FINAL": {"git": {"workflow": "yolo"}}}},
        P + "stages.FINAL.git.workflow: Input should be 'commit', 'branch', 'branch+PR' or 'none' "
        "(got 'yolo')",
    ),
    (
        {"stages": {"FINAL": {"git": {"excludePatterns": ".agents/**"}}}},
        P + "stages.FINAL.git.excludePatterns: Input should be a valid list (got '.agents/**')",
    ),
    (
        {"stages": {"IMPLEMENT": {"tasks": {"complexityModels": {"trivial": "haiku"}}}}},
        P + "stages.IMPLEMENT.tasks.complexityModels.trivial: unknown key; known keys here: easy, "
        "medium, hard",
    ),
    (
        {"stages": {"IMPLEMENT": {"tasks": {"useComplexityScoring": []}}}},
        P + "stages.IMPLEMENT.tasks.useComplexityScoring: Input should be a valid boolean",
    ),
    (
        {"compaction": {"betweenStage": True}},
        P + "compaction.betweenStage: unknown key (did you mean 'betweenStages'?)",
    ),
    (
        {"retries": {"maxPerTask": -1}},
        P + "retries.maxPerTask: Input should be greater than or equal to 0 (got -1)",
    ),
    (
        {"retries": {"backoffSeconds": [5, "soon"]}},
        P + "retries.backoffSeconds.1: Input should be a valid integer, unable to parse string as "
        "an integer (got 'soon')",
    ),
    ({"retrys": {}}, P + "retrys: unknown key (did you mean 'retries'?)"),
    ([1, 2], P + "expected a JSON object"),
]


@pytest.mark.parametrize("doc,message", BAD_CONFIGS)
def test_bad_config_exact_message(root: Path, doc: object, message: str) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    before = (root / ".agents/state.json").read_bytes()
    (root / ".agents/config.json").write_text(json.dumps(doc))
    proc = run_cli(root, "next")
    assert proc.returncode == 5
    assert proc.stderr == f"agents-state: error: {message}\n"
    assert (root / ".agents/state.json").read_bytes() == before


def test_bad_config_json_and_duplicate_keys(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text('{"retries": {}, "retries": {}}')
    proc = run_cli(root, "config", "validate", ".agents/config.json")
    assert proc.returncode == 5
    assert proc.stderr == (
        "agents-state: error: .agents/config.json: not valid JSON: duplicate key 'retries'\n"
    )


@pytest.mark.parametrize(
    "files,tasks,modules,effort,count",
    [
        (1, 1, 1, "small", 1),  # fix typo in README
        (2, 2, 1, "small", 2),  # add simple endpoint
        (3, 5, 2, "medium", 4),  # table says 3: see docs/decisions.md
        (10, 3, 1, "medium", 5),  # table says 4: see docs/decisions.md
        (20, 12, 4, "large", 7),  # large feature: capped at 7
        (0, 0, 0, "small", 1),
        (7, 6, 1, "small", 5),
        (8, 2, 1, "large", 5),
    ],
)
def test_design_000_sizing(files: int, tasks: int, modules: int, effort: str, count: int) -> None:
    assert size_chain(files, tasks, modules, effort).count == count


def _walk(root: Path, review_issues: str = '{"issues": []}', limit: int = 80) -> list[str]:
    phases = []
    for _ in range(limit):
        a = cli_json(root, "next")
        if a["kind"] in ("done", "blocked", "ask_user"):
            phases.append(a["kind"])
            return phases
        if a["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        phases.append(a["phase"])
        if a.get("tasks"):
            for t in a["tasks"]:
                assert run_cli(root, "task", "done", t["id"], "--force").returncode == 0
            continue
        if a["command"].startswith("agents-state tasks load"):
            (root / "t.json").write_text('{"tasks": [{"id": "a"}]}')
            assert run_cli(root, "tasks", "load", str(root / "t.json")).returncode == 0
            continue
        body = review_issues if a["kind"] == "review" else artifact_body(a["write"])
        proc = run_cli(root, "phase", "complete", a["phase"], "--artifact", "-", stdin=body)
        assert proc.returncode == 0, proc.stderr
    raise AssertionError(phases)


def test_walk_with_test_disabled_and_single_planning(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps(
            {"stages": {"TEST": {"enabled": False}, "PLAN": {"planning": {"mode": "single"}}}}
        )
    )
    assert run_cli(root, "dispatch", "Add OAuth authentication across services").returncode == 0
    state = cli_json(root, "status")["workflow"]
    assert state["stages"]["TEST"]["status"] == "skipped"
    assert state["stages"]["PLAN"]["phases"]["1.2"]["agentCount"] == 1
    phases = _walk(root)
    assert "3.1" not in phases and phases[-1] == "done"
    state = cli_json(root, "status")["workflow"]
    assert state["status"] == "completed"
    assert all(p["status"] == "skipped" for p in state["stages"]["TEST"]["phases"].values())


def test_plan_review_keeps_blocking_until_blocked(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps({"stages": {"PLAN": {"review": {"maxRetries": 2}}}})
    )
    assert run_cli(root, "dispatch", "x").returncode == 0
    phases = _walk(root, '{"issues": [{"severity": "critical", "description": "no rollback"}]}')
    assert phases == ["0", "1.1", "1.2", "1.3", "1.2", "1.3", "1.2", "1.3", "ask_user"]
    state = cli_json(root, "status")["workflow"]
    assert state["status"] == "blocked"
    assert state["blockedReason"] == (
        "review 1.3 still finds 1 blocking issue(s) after 2 "
        "rework round(s); see .agents/phases/1.3-plan-review.json"
    )
    assert json.loads((root / ".agents/phases/1.3-plan-review.json").read_text())["issues"]


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_dry_run_leaves_directory_byte_identical(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    before = _tree(root)
    assert run_cli(root, "dispatch", "--dry-run", "Refactor auth").returncode == 0
    assert run_cli(root, "dispatch", "--dry-run", "--json", "Refactor auth").returncode == 0
    assert _tree(root) == before


def test_context_mid_implement_is_small_and_has_next_action(root: Path) -> None:
    import shutil

    shutil.copytree(Path(__file__).parent.parent / ".agents.example", root / ".agents")
    text = run_cli(root, "context").stdout
    # documented estimate: one token per 4 characters (docs/decisions.md)
    assert len(text) / 4 < 400, len(text)
    assert "NEXT: dispatch" in text and "agents-state task done" in text
    assert "read only these files: .agents/phases/1.2-plan.md" in text


def test_phase_run_executes_configured_commands(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps(
            {
                "stages": {
                    "EXPLORE": {"enabled": False},
                    "PLAN": {"enabled": False},
                    "IMPLEMENT": {"enabled": False},
                    "TEST": {
                        "commands": {"lint": "echo lint-ok", "test": "echo boom >&2; exit 3"},
                        "timeoutSeconds": 30,
                    },
                }
            }
        )
    )
    assert run_cli(root, "dispatch", "x").returncode == 0
    action = cli_json(root, "next")
    assert action["kind"] == "run_commands" and action["command"] == "agents-state phase run 3.1"
    proc = run_cli(root, "phase", "run", "3.1")
    assert proc.returncode == 0, proc.stderr
    results = json.loads((root / ".agents/phases/3.1-test-results.json").read_text())
    assert results["passed"] is False
    assert [(c["name"], c["exitCode"], c["outputTail"]) for c in results["commands"]] == [
        ("lint", 0, "lint-ok"),
        ("test", 3, "boom"),
    ]
    assert all(c["durationSeconds"] >= 0 for c in results["commands"])
    assert cli_json(root, "next")["phase"] == "3.2"
