"""What ``dispatch`` decides before it writes anything (pure): the agent counts of the phases
sized from the task text, and the whole plan ``dispatch --dry-run`` shows.  ``App.dispatch`` and
the dry run read the same sizing, so the preview cannot drift from the run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents_state.engine.scoring import Sizing, score_task
from agents_state.workflow import PHASE_IDS, SIZED_PHASE

if TYPE_CHECKING:
    from agents_state.config import Config

__all__ = ["EXPLORE_PHASE", "dispatch_plan", "dispatch_sizing"]

EXPLORE_PHASE = PHASE_IDS[0]  # the first phase, sized from the task text like the planning one


def dispatch_sizing(cfg: Config, task: str) -> dict[str, Sizing]:
    """The sizing of the phases ``dispatch`` sizes from the task (design 004): exploring, and
    planning (one agent in ``single`` planning mode)."""
    explore = score_task(task, cfg.stages.EXPLORE.maxParallelAgents)
    planning = cfg.stages.PLAN.planning
    plan = score_task(task, planning.maxParallelAgents)
    if planning.mode == "single":
        plan = Sizing(1, plan.level, plan.reasons)
    return {EXPLORE_PHASE: explore, SIZED_PHASE: plan}


def dispatch_plan(cfg: Config, task: str) -> dict[str, Any]:
    """The whole plan ``dispatch --dry-run`` shows: every stage and phase, who runs it and
    what it writes, with the agent counts ``dispatch`` would start with."""
    from agents_state.config import resolve_model
    from agents_state.engine.agents import inline_as_agent
    from agents_state.workflow import STAGES, PhaseKind, artifact_path, phases_of

    sized = dispatch_sizing(cfg, task)
    stages = []
    for stage in STAGES:
        enabled = cfg.enabled(stage)
        phases = []
        for p in phases_of(stage):
            agents: dict[str, Any] | None = None
            if p.id == EXPLORE_PHASE:
                s = sized[EXPLORE_PHASE]
                m = cfg.stages.EXPLORE.model or cfg.defaults.model
                agents = {
                    "count": s.count,
                    "type": "explore",
                    "model": m,
                    "modelId": resolve_model(m),
                    "reasons": s.reasons,
                }
            elif p.id == SIZED_PHASE:
                pl = cfg.stages.PLAN.planning
                m = pl.model or cfg.defaults.model
                agents = {
                    "count": sized[SIZED_PHASE].count,
                    "type": "plan",
                    "model": m,
                    "modelId": resolve_model(m),
                    "mode": pl.mode,
                }
            elif inline_as_agent(cfg, p.id) is not None:
                kind, m = inline_as_agent(cfg, p.id) or ("", "")
                agents = {"count": 1, "type": kind, "model": m, "modelId": resolve_model(m)}
            elif p.kind is PhaseKind.REVIEW:
                r = cfg.review_for(p.id)
                agents = {
                    "count": 1,
                    "type": "reviewer",
                    "model": r.tool,
                    "modelId": resolve_model(r.tool),
                    "maxRetries": r.maxRetries,
                    "gate": f"issues >= {r.blockingSeverity} send back to {p.reviews}",
                }
            elif p.kind is PhaseKind.TASKS:
                t = cfg.stages.IMPLEMENT.tasks
                agents = {
                    "count": f"1-{t.maxParallelAgents} per wave",
                    "type": "task",
                    "models": t.complexityModels.model_dump()
                    if t.useComplexityScoring
                    else (t.model or cfg.defaults.model),
                }
            phases.append(
                {
                    "id": p.id,
                    "name": p.name,
                    "kind": p.kind.value,
                    "status": "planned" if enabled else "skipped",
                    "artifact": artifact_path(p.id),
                    "agents": agents,
                }
            )
        stages.append(
            {
                "stage": stage,
                "enabled": enabled,
                "phases": phases,
                "compactAfter": bool(cfg.compaction.betweenStages and enabled),
            }
        )
    return {
        "task": task,
        "dryRun": True,
        "stages": stages,
        "tests": cfg.stages.TEST.commands,
        "git": cfg.stages.FINAL.git.model_dump(),
    }
