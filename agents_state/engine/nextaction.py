"""``next_action(state, config, now)``: the one step the orchestrator takes next (pure).

The same dict is printed as JSON and rendered as text.  A model that follows these actions
literally, with nothing else in its context, completes the workflow: every action names the files
to read, the artifact to write and the exact ``agents-state`` command that records the step.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents_state.config import Config, resolve_model
from agents_state.engine.ledger import phase_records
from agents_state.engine.ready import current_wave, nothing_ready_reason, ready_tasks
from agents_state.engine.scoring import score_task
from agents_state.models import State
from agents_state.workflow import (
    COMPLETION_PHASE,
    SIZED_PHASE,
    SIZING_PHASE,
    TASK_PHASE,
    TEST_ANALYSIS,
    TEST_RUN,
    Phase,
    PhaseKind,
    artifact_path,
    get_phase,
)

SUMMARY_FILE = ".agents/phases/2.1-summary.md"

__all__ = [
    "AGENT_TOOL_MODELS",
    "KINDS",
    "agent_tool_model",
    "inline_as_agent",
    "next_action",
    "no_workflow_action",
]

KINDS = (
    "dispatch_agents",
    "work_inline",
    "run_commands",
    "review",
    "compact",
    "wait",
    "ask_user",
    "done",
    "blocked",
    "start",
)

# One story with the workflow skill: the model cannot run /compact itself, so it records the
# boundary first and the user (or Claude Code, when the context fills) compacts.
COMPACT_STEPS = (
    "Record the boundary with the command (agents-state compact), then ask the user "
    "to run /compact; Claude Code also compacts by itself when the context fills. "
    "After a compaction the SessionStart hook brings this workflow back. Then go on "
    "with: agents-state next"
)

# One story with the dispatcher skills: agents run in the background by default
WAIT_FOR_AGENTS = (
    " Launch all {n} in ONE message, one Agent call each, with subagent_type "
    '{type} and model "{model}". They run in the background: each answer '
    "arrives as its own task notification. Wait until all {n} have answered "
    "(end your turn between notifications; their handoffs are noted for you, not "
    "recorded as the phase), then merge them into the artifact and run the "
    "command."
)

_REVIEW_FORMAT = (
    '{"issues": [{"severity": "critical|high|medium|low", "description": "...", "file": "..."}]}'
)


def no_workflow_action() -> dict[str, Any]:
    return _action(
        "start", None, instructions="No active workflow.", command='agents-state dispatch "<task>"'
    )


def _action(
    kind: str,
    phase: Phase | None,
    *,
    instructions: str,
    command: str | None,
    read: list[str] | None = None,
    write: str | None = None,
    agents: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": kind,
        "stage": phase.stage if phase else None,
        "phase": phase.id if phase else None,
        "phaseName": phase.name if phase else None,
        "agents": agents,
        "read": read or [],
        "write": write,
        "command": command,
        "instructions": instructions,
    }
    out.update(extra)
    return out


# Claude Code sub-agent types of the plugin, by the engine's agent type
SUBAGENT_TYPES = {
    "explore": "subagents:explore-agent",
    "plan": "subagents:plan-agent",
    "task": "subagents:task-agent",
    "reviewer": "subagents:pr-reviewer",
}


# The Agent tool's ``model`` takes a family, never a versioned id (Claude Code 2.1.330)
AGENT_TOOL_MODELS = ("sonnet", "opus", "haiku", "inherit")


def agent_tool_model(name: str) -> str | None:
    """The value to pass as the Agent tool's ``model`` for a configured model, or ``None`` when
    the model is not a sub-agent model (a Codex MCP tool)."""
    low = name.strip().lower()
    if low == "inherit":
        return "inherit"
    if low.startswith(("codex", "mcp__")):
        return None
    return next((f for f in AGENT_TOOL_MODELS[:3] if f in low), None)


def _model(name: str) -> dict[str, str | None]:
    return {"model": name, "modelId": resolve_model(name), "agentModel": agent_tool_model(name)}


def _agents(count: int, kind: str | None, model: str) -> dict[str, Any]:
    return {
        "count": count,
        "type": kind,
        "subagentType": SUBAGENT_TYPES.get(kind or ""),
        **_model(model),
    }


def _reads(state: State, phase: Phase) -> list[str]:
    files = [state.files.get(get_phase(i).file_key) for i in phase.inputs]
    return [f for f in files if f]


def next_action(
    state: State,
    config: Config,
    now: datetime,
    tool_calls: int = 0,
    context_tokens: int | None = None,
) -> dict[str, Any]:
    action = _next_action(state, config, now)
    comp = config.compaction
    full = comp.contextWindowTokens * comp.contextPercent // 100
    if (
        context_tokens is not None
        and context_tokens >= full
        and action["kind"] not in ("compact", "done", "blocked", "ask_user")
    ):
        pct = round(100 * context_tokens / comp.contextWindowTokens)
        return _action(
            "compact",
            get_phase(state.currentPhase) if state.currentPhase else None,
            instructions=f"The conversation holds {context_tokens} tokens, {pct}% of "
            f"its {comp.contextWindowTokens}-token window (advice at "
            f"{comp.contextPercent}%). Compact now (/compact), then "
            "record it and reload with: agents-state context",
            command="agents-state compact",
            contextTokens=context_tokens,
        )
    limit = comp.toolCallThreshold
    if tool_calls >= limit and action["kind"] not in ("compact", "done", "blocked", "ask_user"):
        return _action(
            "compact",
            get_phase(state.currentPhase) if state.currentPhase else None,
            instructions=f"This conversation has made {tool_calls} tool calls since "
            f"its last compaction (limit {limit}). {COMPACT_STEPS}",
            command="agents-state compact",
            toolCalls=tool_calls,
        )
    return action


def _next_action(state: State, config: Config, now: datetime) -> dict[str, Any]:
    if state.abortedAt:
        return _action(
            "done",
            None,
            instructions="The workflow was aborted; its files are kept in .agents/.",
            command='agents-state dispatch --replace "<task>"',
        )
    if state.status == "completed":
        from agents_state.engine.outcomes import final_summary

        return _action(
            "done",
            None,
            instructions=f"Workflow completed: {state.task}. " + final_summary(state),
            command=None,
        )
    phase = get_phase(state.currentPhase) if state.currentPhase else None
    if state.status in ("failed", "blocked"):
        return _ask_options(state, phase)
    if state.status == "stopped":
        return _action(
            "blocked",
            phase,
            instructions="Workflow stopped on request. Tell the "
            "user; when they want to continue, run the command.",
            command="agents-state resume --retry",
            reason="stopped on request",
        )
    if state.clarify is not None:
        return _action(
            "ask_user",
            phase,
            instructions="Ask the user these questions and record the answer.",
            questions=list(state.clarify.questions),
            command='agents-state resume --answer "<the user\'s answer>"',
        )
    if state.compaction.pending:
        return _action(
            "compact",
            phase,
            instructions=(f"{state.compaction.pending} is done. {COMPACT_STEPS}"),
            command="agents-state compact",
        )
    if phase is None:
        return _action(
            "blocked",
            None,
            instructions="The workflow has no current phase; run the command to see the options.",
            command="agents-state resume",
            reason="no current phase",
        )
    if phase.kind is PhaseKind.TASKS:
        return _tasks_action(state, config, phase, now)
    return _phase_action(state, config, phase, now)


def _ask_options(state: State, phase: Phase | None) -> dict[str, Any]:
    """Failed or blocked: only a person decides; the model asks and acts on the answer only."""
    from agents_state.engine.resume import options

    reason = (state.failure.error if state.failure else None) or state.blockedReason or state.status
    opts = options(state, phase.id if phase else None)
    return _action(
        "ask_user",
        phase,
        command=None,
        reason=reason,
        options=opts,
        instructions=f"Workflow {state.status}: {reason}. Do not choose yourself: "
        "ask the user which option to take, then run that option's command only.",
    )


def _rework_note(state: State, phase: Phase) -> tuple[str, list[str]]:
    """When a review sent the work back, or the user answered a question, say so."""
    notes, reads = [], []
    from agents_state.workflow import PHASES

    for p in PHASES:
        if p.reviews == phase.id and state.phase(p.id).reviewRounds > 0:
            notes.append(
                f"Review {p.id} found blocking issues: address every issue in "
                f".agents/phases/{p.artifact} first."
            )
            reads.append(f".agents/phases/{p.artifact}")
    answered = [c for c in state.clarifications if c.answer]
    for c in answered[-3:]:
        asked = " | ".join(c.questions)
        notes.append(f"The user answered ({asked}): {c.answer}")
    notes.extend(_earlier_outcomes(state, phase))
    error = state.phase(phase.id).error
    if error:
        notes.append(f"The previous attempt failed: {error}")
    return (" " + " ".join(notes) if notes else ""), reads


def _earlier_outcomes(state: State, phase: Phase) -> list[str]:
    """Skipped tasks, skipped phases and failing tests that later phases must know about."""
    from agents_state.workflow import PHASE_INDEX

    notes = []
    after_tasks = PHASE_INDEX[phase.id] > PHASE_INDEX[TASK_PHASE]
    tasks = state.phase(TASK_PHASE).tasks or {}
    skipped = [t for t, s in tasks.items() if s.status == "skipped"]
    if after_tasks and skipped:
        notes.append(
            f"Skipped tasks (not implemented): {', '.join(skipped[:10])}"
            + (" ..." if len(skipped) > 10 else "")
            + "."
        )
    if after_tasks and any(s.summary or s.result for s in tasks.values()):
        notes.append(f"Task summaries: {SUMMARY_FILE}.")
    run = state.phase(TEST_RUN)
    if phase.id == TEST_ANALYSIS and run.passed is False:
        notes.append(
            "The last test run FAILED: read .agents/phases/3.1-test-results.json "
            "(failing commands and their output), fix the causes, then record this "
            "phase; the tests run again after it."
        )
    elif PHASE_INDEX[phase.id] > PHASE_INDEX[TEST_ANALYSIS] and run.skippedByUser:
        notes.append("The user accepted failing tests (3.1 skipped); say so in the review.")
    return notes


def inline_as_agent(config: Config, phase_id: str) -> tuple[str, str] | None:
    """(agent type, model) when the config runs an inline phase as an agent (1.1, 2.2)."""
    if phase_id == SIZING_PHASE and not config.stages.PLAN.brainstorm.inline:
        b = config.stages.PLAN.brainstorm
        return "plan", b.model or config.stages.PLAN.planning.model or config.defaults.model
    if phase_id == "2.2" and not config.stages.IMPLEMENT.simplify.inline:
        sim = config.stages.IMPLEMENT.simplify
        return "task", sim.model or config.defaults.model
    return None


def _phase_action(state: State, config: Config, phase: Phase, now: datetime) -> dict[str, Any]:
    write = artifact_path(phase.id)
    command = f"agents-state phase complete {phase.id} --artifact {write}"
    note, extra_reads = _rework_note(state, phase)
    read = _reads(state, phase) + extra_reads
    task = f"Task: {state.task}. "
    retry_at = state.phase(phase.id).retryAt
    if retry_at and retry_at > _iso(now):
        return _action(
            "wait",
            phase,
            command="agents-state next",
            until=retry_at,
            instructions=f"Phase {phase.id} failed and is retried after a backoff: "
            "wait until the time, then run the command." + note,
        )
    if phase.id == SIZING_PHASE:
        note = (
            " When the brainstorm finds the plan areas, record their number with "
            f"--plan-agents N (1 to {config.stages.PLAN.planning.maxParallelAgents}) on "
            "the command." + note
        )
    as_agent = inline_as_agent(config, phase.id)
    if as_agent is not None:
        return _action(
            "dispatch_agents",
            phase,
            read=read,
            write=write,
            command=command,
            agents=_agents(1, as_agent[0], as_agent[1]),
            instructions=task + phase.instructions + " One agent does this phase "
            "and writes the artifact." + note,
        )
    if phase.kind is PhaseKind.AGENTS:
        count, model = _agent_plan(state, config, phase)
        agents = _agents(count, phase.agent_type, model)
        wait = WAIT_FOR_AGENTS.format(
            n=count, type=agents["subagentType"], model=agents["agentModel"] or "inherit"
        )
        answered = len(phase_records(state, phase.id))
        if answered:
            wait += f" Answers noted so far: {answered}."
        return _action(
            "dispatch_agents",
            phase,
            read=read,
            write=write,
            command=command,
            agents=agents,
            answered=answered,
            instructions=task + phase.instructions + wait + note,
        )
    if phase.kind is PhaseKind.REVIEW:
        review = config.review_for(phase.id)
        return _action(
            "review",
            phase,
            read=read,
            write=write,
            command=command,
            agents=_agents(1, "reviewer", review.tool),
            instructions=task + phase.instructions + f" Format: {_REVIEW_FORMAT}. "
            f"Issues of severity {review.blockingSeverity} or above send the work "
            "back." + note,
        )
    if phase.id == TEST_RUN and config.stages.TEST.commands:
        names = ", ".join(config.stages.TEST.commands)
        return _action(
            "run_commands",
            phase,
            read=read,
            write=write,
            command="agents-state phase run 3.1",
            instructions=f"Run the configured commands ({names}); agents-state runs "
            "them and records the results." + note,
        )
    if phase.id == TEST_RUN:
        return _action(
            "run_commands",
            phase,
            read=read,
            write=write,
            command=command,
            instructions="No test commands are configured: run the project's lint "
            "and tests yourself and write the results as JSON "
            '{"commands": [{"name": "test", "command": "...", "exitCode": 0}]}.' + note,
        )
    if phase.id == COMPLETION_PHASE:
        git = config.stages.FINAL.git
        return _action(
            "run_commands",
            phase,
            read=read,
            write=write,
            command=command,
            instructions=f"{task}Finish with git workflow '{git.workflow}'; never "
            f"commit paths matching: {', '.join(git.excludePatterns)}. Write what "
            "was committed (and the PR link) to the artifact." + note,
            excludePatterns=list(git.excludePatterns),
        )
    return _action(
        "work_inline",
        phase,
        read=read,
        write=write,
        command=command,
        instructions=task + phase.instructions + note,
    )


def _agent_plan(state: State, config: Config, phase: Phase) -> tuple[int, str]:
    stages = config.stages
    if phase.id == SIZED_PHASE:
        plan = stages.PLAN.planning
        model = plan.model or config.defaults.model
        if plan.mode == "single":
            return 1, model
        cap = plan.maxParallelAgents
    else:
        model = stages.EXPLORE.model or config.defaults.model
        cap = stages.EXPLORE.maxParallelAgents
    stored = state.phase(phase.id).agentCount
    count = stored if stored else score_task(state.task, cap).count
    return min(count, cap), model


def _task_model(config: Config, complexity: str) -> str:
    tasks = config.stages.IMPLEMENT.tasks
    if tasks.useComplexityScoring:
        name: str = getattr(tasks.complexityModels, complexity)
        return name
    return tasks.model or config.defaults.model


def _tasks_action(state: State, config: Config, phase: Phase, now: datetime) -> dict[str, Any]:
    pstate = state.phase(TASK_PHASE)
    write = artifact_path(phase.id)
    if not pstate.tasks:
        known = ""
        if pstate.waves:
            known = (
                " The state already lists the waves "
                + "; ".join(
                    f"{i + 1}: {', '.join(w.tasks)} ({w.status})"
                    for i, w in enumerate(pstate.waves)
                )
                + ": define exactly these task ids; completed waves stay completed."
            )
        return _action(
            "work_inline",
            phase,
            read=_reads(state, phase),
            write=write,
            command=f"agents-state tasks load {write}",
            instructions=f"Task: {state.task}.{known} Break the plan into tasks and write them "
            f"yourself to {write} as JSON "
            '{"tasks": [{"id": "task-1", "title": "...", "description": "...", '
            '"dependencies": [], "complexity": "easy|medium|hard", "files": ["..."]}]}; '
            "the command checks them, computes the waves and rewrites the file.",
        )
    lease = config.stages.IMPLEMENT.tasks.leaseSeconds
    ready = ready_tasks(pstate, now, lease)
    idx = current_wave(pstate)
    wave_no = (idx or 0) + 1
    if ready:
        tasks = pstate.tasks
        listed = [
            {
                "id": t,
                "title": tasks[t].title,
                "complexity": tasks[t].complexity,
                **_model(_task_model(config, tasks[t].complexity)),
                "files": tasks[t].files,
            }
            for t in ready
        ]
        models = sorted({str(x["model"]) for x in listed})
        return _action(
            "dispatch_agents",
            phase,
            read=[*_reads(state, phase), write],
            write=None,
            agents=_agents(
                len(ready), "task", models[0] if len(models) == 1 else config.defaults.model
            ),
            tasks=listed,
            wave=wave_no,
            waves=len(pstate.waves or []),
            command="agents-state task done <task-id> --summary '<one line>'",
            instructions=f"Wave {wave_no}: dispatch one task agent per task below, in parallel "
            "(ONE message, one Agent call each, subagent_type subagents:task-agent, the task's "
            "Agent model), each with its task id. Each agent records its own result with the "
            "command (or: agents-state task fail <task-id> --error TEXT). Background agents "
            "answer one by one as task notifications: when all have answered, run: "
            "agents-state next",
        )
    reason = nothing_ready_reason(pstate, now)
    waits = sorted(
        t.retryAt
        for t in pstate.tasks.values()
        if t.status == "pending" and t.retryAt and t.retryAt > _iso(now)
    )
    return _action(
        "wait",
        phase,
        command="agents-state next",
        until=waits[0] if waits else None,
        wave=wave_no,
        instructions=f"Nothing to dispatch: {reason}. Wait for the "
        "running task agents (or until the time), then run the command.",
    )


def _iso(now: datetime) -> str:
    from agents_state.types import format_time

    return format_time(now)
