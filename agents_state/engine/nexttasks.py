"""The next step in phase 2.1 (pure): define the tasks, dispatch the ready wave, merge it, or
wait for a lease or a retry."""

from __future__ import annotations

from datetime import datetime

from agents_state.config import Config
from agents_state.engine.agents import agents_for, model_of
from agents_state.engine.decision import Decision, reads
from agents_state.engine.fallback import as_task_agent, claimed
from agents_state.engine.ready import current_wave, nothing_ready_reason, ready_tasks
from agents_state.models import State
from agents_state.types import format_time
from agents_state.workflow import TASK_PHASE, Phase, artifact_path

__all__ = ["tasks_action"]


def _task_model(config: Config, complexity: str) -> str:
    tasks = config.stages.IMPLEMENT.tasks
    if tasks.useComplexityScoring:
        name: str = getattr(tasks.complexityModels, complexity)
        return name
    return tasks.model or config.defaults.model


def tasks_action(state: State, config: Config, phase: Phase, now: datetime) -> Decision:
    pstate = state.phase(TASK_PHASE)
    write = artifact_path(phase.id)
    if not pstate.tasks:
        waves = [(w.tasks, w.status) for w in pstate.waves or []]
        return Decision(
            "work_inline",
            phase,
            ("define_tasks", {"task": state.task, "waves": waves, "write": write}),
            f"agents-state tasks load {write}",
            read=reads(state, phase),
            write=write,
        )
    lease = config.stages.IMPLEMENT.tasks.leaseSeconds
    ready = ready_tasks(pstate, now, lease)
    idx = current_wave(pstate)
    wave_no = (idx or 0) + 1
    if state.git is not None and not ready:
        from agents_state.engine.mergeaction import merge_step

        merging = merge_step(state, pstate, wave_no)
        if merging is not None:
            kind, words, command, extra = merging
            return Decision(kind, phase, words, command, **extra)
    if ready:
        tasks = pstate.tasks
        listed = [
            {
                "id": t,
                "title": tasks[t].title,
                "complexity": tasks[t].complexity,
                **as_task_agent(model_of(_task_model(config, tasks[t].complexity))),
                "files": tasks[t].files,
                **({"worktree": f"{state.git.worktrees}/{t}"} if state.git else {}),
            }
            for t in ready
        ]
        from agents_state.engine.fanout import Prompt

        for entry in listed:  # the Agent path's prompt, as the fan-out's (issue 33)
            brief = Prompt("agent_task", t=dict(entry), task=state.task, detail=tasks[entry["id"]])
            entry["prompt"] = brief
        models = sorted({str(x["model"]) for x in listed})
        return Decision(
            "dispatch_agents",
            phase,
            ("wave", {"wave": wave_no, **({"isolated": True} if state.git else {})}),
            "agents-state task done <task-id> --summary '<one line>'",
            read=[*reads(state, phase), write],
            write=None,
            agents=as_task_agent(
                agents_for(
                    len(ready), "task", models[0] if len(models) == 1 else config.defaults.model
                )
            ),
            tasks=listed,
            wave=wave_no,
            waves=len(pstate.waves or []),
        )
    waits = sorted(
        t.retryAt
        for t in pstate.tasks.values()
        if t.status == "pending" and t.retryAt and t.retryAt > format_time(now)
    )
    return Decision(
        "wait",
        phase,
        ("tasks_wait", {"reason": nothing_ready_reason(pstate, now), "claimed": claimed(pstate)}),
        "agents-state next",
        until=waits[0] if waits else None,
        wave=wave_no,
    )
