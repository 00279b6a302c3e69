"""``dispatch --dry-run``: the whole plan, written nowhere."""

from __future__ import annotations

from typing import Any

import click

from agents_state.cli.options import emit_json

__all__ = ["dry_run_plan", "print_dry_run"]


def dry_run_plan(app: Any, task: str) -> dict[str, Any]:
    from agents_state.config import resolve_model
    from agents_state.engine.nextaction import inline_as_agent
    from agents_state.engine.scoring import score_task
    from agents_state.workflow import SIZED_PHASE, STAGES, PhaseKind, artifact_path, phases_of

    cfg = app.config
    stages = []
    for stage in STAGES:
        enabled = cfg.enabled(stage)
        phases = []
        for p in phases_of(stage):
            agents: dict[str, Any] | None = None
            if p.id == "0":
                s = score_task(task, cfg.stages.EXPLORE.maxParallelAgents)
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
                s = score_task(task, pl.maxParallelAgents)
                m = pl.model or cfg.defaults.model
                agents = {
                    "count": 1 if pl.mode == "single" else s.count,
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


def print_dry_run(app: Any, task: str | None, as_json: bool) -> int:
    if task is None:
        state = app.state()
        if state is None:
            raise click.UsageError("--dry-run needs a task")
        task = state.task
    plan = dry_run_plan(app, task)
    if as_json:
        emit_json(plan)
        return 0
    click.echo(f"DRY RUN (nothing written): {task}")
    for st in plan["stages"]:
        click.echo(f"{st['stage']}{'' if st['enabled'] else ' (disabled: skipped)'}")
        for p in st["phases"]:
            a = p["agents"]
            who = ""
            if a:
                model = a.get("model") or a.get("models")
                who = f" · {a['count']} {a['type']} agent(s), {model}"
                if a.get("gate"):
                    who += f" · gate: {a['gate']} (max {a['maxRetries']})"
            click.echo(f"  {p['id']:<4} {p['name']} [{p['kind']}] -> {p['artifact']}{who}")
        if st["compactAfter"]:
            click.echo("  (compact after this stage)")
    return 0
