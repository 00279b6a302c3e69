"""Configuration of design 004 ("Configuration Schema"), model aliases and the engine policy.

Unknown keys are refused (a misspelt key would otherwise be silently ignored) with a suggestion
of the nearest known key.  Layers are merged in ``configload``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from agents_state.policy import Policy
from agents_state.records.base import After, Record, field
from agents_state.workflow import PHASE_IDS, REVIEW_PHASES, get_phase

__all__ = [
    "CODEX_ALIASES",
    "MODEL_ALIASES",
    "Config",
    "policy_from",
    "resolve_model",
]

# real model ids (docs/decisions.md, issue 15): the bare family names follow Claude Code's own
# aliases (the newest model of the family); a versioned alias pins one model
MODEL_ALIASES: dict[str, str] = {
    "sonnet-4.5": "claude-sonnet-4-5-20250929",
    "sonnet": "claude-sonnet-4-5-20250929",
    "sonnet-4": "claude-sonnet-4-20250514",
    "opus-4.5": "claude-opus-4-5-20251101",
    "opus": "claude-opus-4-5-20251101",
    "opus-4.1": "claude-opus-4-1-20250805",
    "opus-4": "claude-opus-4-20250514",
    "haiku-4.5": "claude-haiku-4-5-20251001",
    "haiku": "claude-haiku-4-5-20251001",
    "haiku-3.5": "claude-3-5-haiku-20241022",
    "inherit": "inherit",
}
# Codex models (issue 37): run by `agents-state review run` through `codex exec`; the model and
# reasoning effort of each come from the configuration's `codex.aliases` table
CODEX_ALIASES: tuple[str, ...] = ("codex-high", "codex-xhigh")


def _check_model(name: str) -> str:
    resolve_model(name)
    return name


ModelName = Annotated[str, After(_check_model)]
Count = int


class _Strict(Record):
    extra = "forbid"


class DefaultsCfg(_Strict):
    model: ModelName = "sonnet-4.5"


class ReviewCfg(_Strict):
    tool: ModelName = "codex-high"
    maxRetries: int = field(default=3, ge=0, le=10)
    blockingSeverity: Literal["critical", "high", "medium", "low"] = "high"


class ExploreStageCfg(_Strict):
    enabled: bool = True
    model: ModelName | None = None
    maxParallelAgents: Count = field(default=10, ge=1, le=10)


class BrainstormCfg(_Strict):
    inline: bool = True  # false: one plan agent brainstorms (design 004 "inline")
    model: ModelName | None = None


class SimplifyCfg(_Strict):
    inline: bool = True  # false: one agent simplifies (design 004: "inline or agent")
    model: ModelName | None = None


class PlanningCfg(_Strict):
    model: ModelName | None = None
    maxParallelAgents: Count = field(default=10, ge=1, le=10)
    mode: Literal["parallel", "single"] = "parallel"


class PlanStageCfg(_Strict):
    enabled: bool = True
    brainstorm: BrainstormCfg = field(default_factory=BrainstormCfg)
    planning: PlanningCfg = field(default_factory=PlanningCfg)
    review: ReviewCfg = field(default_factory=ReviewCfg)


class ComplexityModels(_Strict):
    easy: ModelName = "sonnet-4.5"
    medium: ModelName = "opus-4.5"
    hard: ModelName = "codex-xhigh"


class TasksCfg(_Strict):
    model: ModelName | None = None
    maxParallelAgents: Count = field(default=10, ge=1, le=10)
    useComplexityScoring: bool = True
    complexityModels: ComplexityModels = field(default_factory=ComplexityModels)
    leaseSeconds: int = field(default=900, ge=10, le=86400)
    # issue 22: a git worktree per task (in a git repository) or none at all
    isolation: Literal["worktree", "none"] = "worktree"
    deleteMergedBranches: bool = False


class ImplementStageCfg(_Strict):
    enabled: bool = True
    tasks: TasksCfg = field(default_factory=TasksCfg)
    simplify: SimplifyCfg = field(default_factory=SimplifyCfg)
    review: ReviewCfg = field(default_factory=ReviewCfg)


class TestStageCfg(_Strict):
    enabled: bool = True
    commands: dict[str, str] = field(default_factory=dict)
    timeoutSeconds: int = field(default=900, ge=1, le=86400)
    review: ReviewCfg = field(default_factory=ReviewCfg)


class GitCfg(_Strict):
    workflow: Literal["commit", "branch", "branch+PR", "none"] = "branch+PR"
    excludePatterns: list[str] = field(default_factory=lambda: [".agents/**"])


class FinalStageCfg(_Strict):
    enabled: bool = True
    review: ReviewCfg = field(default_factory=lambda: ReviewCfg(tool="codex-xhigh"))
    git: GitCfg = field(default_factory=GitCfg)


class StagesCfg(_Strict):
    EXPLORE: ExploreStageCfg = field(default_factory=ExploreStageCfg)
    PLAN: PlanStageCfg = field(default_factory=PlanStageCfg)
    IMPLEMENT: ImplementStageCfg = field(default_factory=ImplementStageCfg)
    TEST: TestStageCfg = field(default_factory=TestStageCfg)
    FINAL: FinalStageCfg = field(default_factory=FinalStageCfg)


def _window(v: int | None) -> int | None:
    if v is not None and v < 1000:
        raise ValueError("must be a window of at least 1000 tokens")
    return v


def _windows(v: dict[str, int]) -> dict[str, int]:
    for n in v.values():
        _window(n)
    return v


class CompactionCfg(_Strict):
    betweenStages: bool = True
    betweenPhases: bool = False
    toolCallThreshold: int = field(default=50, ge=1)
    contextPercent: int = field(default=70, ge=1, le=100)  # of the window (design 000)
    # None: the window of the model in use, read from the transcript (issue 24)
    contextWindowTokens: Annotated[int | None, After(_window)] = None
    # model id prefix -> window, over the built-in table (contextsize.MODEL_WINDOWS)
    contextWindows: Annotated[dict[str, int], After(_windows)] = field(default_factory=dict)


def _positive(v: int | None) -> int | None:
    if v is not None and v < 1:
        raise ValueError("must be a number of tokens of at least 1")
    return v


STAGE_NAMES = ("EXPLORE", "PLAN", "IMPLEMENT", "TEST", "FINAL")


def _stage_budgets(v: dict[str, int]) -> dict[str, int]:
    for name, n in v.items():
        if name not in STAGE_NAMES:
            raise ValueError(f"unknown stage {name!r}; use one of {', '.join(STAGE_NAMES)}")
        _positive(n)
    return v


class BudgetCfg(_Strict):
    """Token budgets (issue 24): a wave or fan-out that would start over one asks the user."""

    maxTokens: Annotated[int | None, After(_positive)] = None  # the whole workflow
    stages: Annotated[dict[str, int], After(_stage_budgets)] = field(default_factory=dict)
    warnPercent: int = field(default=80, ge=1, le=100)


class RetriesCfg(_Strict):
    maxPerPhase: int = field(default=3, ge=0, le=100)  # retries after the first attempt
    maxPerTask: int = field(default=2, ge=0, le=100)  # retries after the first attempt
    backoffSeconds: list[int] = field(default_factory=lambda: [5, 15, 30])


class CodexAliasCfg(_Strict):
    """What a ``codex-*`` alias runs: a model id (``None``: Codex's own default model) and a
    reasoning effort (``None``: the alias's own, ``high`` or ``xhigh``), as ``codex exec -m MODEL
    -c model_reasoning_effort=EFFORT``."""

    model: str | None = None
    effort: Literal["minimal", "low", "medium", "high", "xhigh"] | None = None


def _codex_aliases(v: dict[str, CodexAliasCfg]) -> dict[str, CodexAliasCfg]:
    for name in v:
        if name not in CODEX_ALIASES:
            raise ValueError(f"unknown Codex alias {name!r}; use one of {', '.join(CODEX_ALIASES)}")
    return v


class CodexCfg(_Strict):
    """Issue 37: Codex reviews (``agents-state review run``)."""

    aliases: Annotated[dict[str, CodexAliasCfg], After(_codex_aliases)] = field(
        default_factory=dict
    )
    timeoutSeconds: int = field(default=600, ge=1, le=86400)

    def alias(self, name: str) -> tuple[str | None, str]:
        """(model or None, effort) of a Codex alias: the table's values over the defaults."""
        own = self.aliases.get(name) or CodexAliasCfg()
        return own.model, own.effort or name.removeprefix("codex-")


class FanoutCfg(_Strict):
    """Issue 25: a fan-out as the host's own Workflow (``engine.native``)."""

    native: Literal["auto", "on", "off"] = "auto"


def _gates(v: list[str]) -> list[str]:
    unknown = [p for p in v if p not in PHASE_IDS]
    if unknown:
        raise ValueError(
            f"unknown phase {', '.join(map(repr, unknown))}; gates name phase ids, "
            f"one of {', '.join(PHASE_IDS)}"
        )
    return v


class Config(_Strict):
    version: str = "2.0"
    defaults: DefaultsCfg = field(default_factory=DefaultsCfg)
    stages: StagesCfg = field(default_factory=StagesCfg)
    compaction: CompactionCfg = field(default_factory=CompactionCfg)
    retries: RetriesCfg = field(default_factory=RetriesCfg)
    budget: BudgetCfg = field(default_factory=BudgetCfg)
    fanout: FanoutCfg = field(default_factory=FanoutCfg)
    codex: CodexCfg = field(default_factory=CodexCfg)
    # issue 36: phase ids after which the workflow waits for a person (agents-state gate)
    gates: Annotated[list[str], After(_gates)] = field(default_factory=list)
    # permission profiles (issue 5): agent type -> profile, and custom profiles
    agentProfiles: dict[str, str] = field(default_factory=dict)
    toolProfiles: dict[str, dict[str, Any]] = field(default_factory=dict)

    def enabled(self, stage: str) -> bool:
        enabled: bool = getattr(self.stages, stage).enabled
        return enabled

    def review_for(self, phase_id: str) -> ReviewCfg:
        if phase_id not in REVIEW_PHASES:
            raise KeyError(phase_id)
        stage = get_phase(phase_id).stage
        review: ReviewCfg = getattr(self.stages, stage).review
        return review


def resolve_model(name: str) -> str:
    """An alias to its model id; a Codex alias stays itself (its model is in ``codex.aliases``);
    full model ids pass through."""
    if name in MODEL_ALIASES:
        return MODEL_ALIASES[name]
    if name in CODEX_ALIASES:
        return name
    if name.startswith("claude-") or name.startswith("mcp__"):
        return name
    raise ValueError(
        f"unknown model {name!r}; use one of {', '.join([*MODEL_ALIASES, *CODEX_ALIASES])} "
        "or a full model id such as claude-sonnet-4-5-20250929"
    )


def policy_from(cfg: Config) -> Policy:
    return Policy(
        compact_between_stages=cfg.compaction.betweenStages,
        compact_between_phases=cfg.compaction.betweenPhases,
        max_per_phase=cfg.retries.maxPerPhase,
        max_per_task=cfg.retries.maxPerTask,
        backoff_seconds=tuple(cfg.retries.backoffSeconds),
        review_max_retries={p: cfg.review_for(p).maxRetries for p in REVIEW_PHASES},
        lease_seconds=cfg.stages.IMPLEMENT.tasks.leaseSeconds,
        gates=frozenset(cfg.gates),
    )
