"""Issue 18: the catalogue is the one source of phase roles, review phases and defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents_state import workflow
from agents_state.app import App
from agents_state.config import Config, policy_from
from agents_state.errors import AgentsStateError
from agents_state.policy import Policy, default_policy
from agents_state.workflow import (
    COMPLETION_PHASE,
    PHASES,
    REVIEW_PHASES,
    SIZED_PHASE,
    SIZING_PHASE,
    TASK_PHASE,
    TEST_ANALYSIS,
    TEST_RUN,
    PhaseKind,
    PhaseRole,
)


def test_roles_and_kinds_name_the_phases_the_engine_keys_on() -> None:
    assert (TASK_PHASE, TEST_RUN, TEST_ANALYSIS, COMPLETION_PHASE) == ("2.1", "3.1", "3.2", "4.3")
    assert (SIZING_PHASE, SIZED_PHASE) == ("1.1", "1.2")
    assert tuple(p.id for p in PHASES if p.kind is PhaseKind.REVIEW) == REVIEW_PHASES
    for role in PhaseRole:
        assert [p.id for p in PHASES if p.role is role] == [workflow.phase_with_role(role)]


def test_a_role_held_twice_is_refused_at_import() -> None:
    with pytest.raises(RuntimeError) as e:
        workflow._the_one(["3.1", "4.3"], "role test_run")
    assert str(e.value) == (
        "workflow catalogue: exactly one phase must be role test_run; found: 3.1, 4.3"
    )


def test_policy_defaults_are_the_config_defaults() -> None:
    """``Policy()`` (the engine without a config) and the default config agree."""
    default, from_config = Policy(), policy_from(Config.model_validate({}))
    assert {p: default.review_rounds(p) for p in REVIEW_PHASES} == from_config.review_max_retries
    for name in (
        "compact_between_stages",
        "compact_between_phases",
        "max_per_phase",
        "max_per_task",
        "backoff_seconds",
        "lease_seconds",
    ):
        assert getattr(default, name) == getattr(from_config, name), name
    assert default_policy() == from_config  # what a transition takes when no layer exists


def test_a_transition_takes_the_policy_of_every_configuration_layer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``App.policy`` skips loading the configuration only when no layer exists: a file of any
    layer, an ``AGENTS_STATE_CFG_`` variable or ``--set`` is obeyed as before."""
    (tmp_path / ".agents").mkdir()
    assert App(tmp_path).policy == default_policy()
    assert App(tmp_path, sets=("retries.maxPerTask=1",)).policy.max_per_task == 1
    monkeypatch.setenv("AGENTS_STATE_CFG_retries__maxPerTask", "4")
    assert App(tmp_path).policy.max_per_task == 4
    monkeypatch.delenv("AGENTS_STATE_CFG_retries__maxPerTask")
    for where in (".agents/config.json", ".claude/subagents-config.json"):
        (tmp_path / where).parent.mkdir(exist_ok=True)
        (tmp_path / where).write_text('{"retries": {"maxPerTask": 5}}')
        assert App(tmp_path).policy.max_per_task == 5, where
        (tmp_path / where).unlink()
    home = tmp_path / "home" / ".claude"
    home.mkdir(parents=True)
    (home / "subagents-config.json").write_text('{"retries": {"maxPerPhase": 7}}')
    monkeypatch.setenv("HOME", str(home.parent))
    assert App(tmp_path).policy.max_per_phase == 7
    (home / "subagents-config.json").write_text("{not json")  # a broken layer still fails
    with pytest.raises(AgentsStateError):
        App(tmp_path).policy  # noqa: B018 - the property loads the configuration


def test_review_config_is_found_through_the_catalogue() -> None:
    cfg = Config.model_validate({"stages": {"TEST": {"review": {"maxRetries": 1}}}})
    assert cfg.review_for("3.3").maxRetries == 1
    with pytest.raises(KeyError):
        cfg.review_for("3.1")
