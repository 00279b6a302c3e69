"""Text rendering of next actions and status for people and models (pure: returns strings)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agents_state.models import State
from agents_state.workflow import STAGES, get_phase, phases_of

__all__ = ["MARKS", "render_action", "render_status"]

MARKS = {"completed": "✓", "in_progress": "▶", "pending": "·", "failed": "✗",
         "blocked": "■", "stopped": "‖", "skipped": "-"}

_VERBS = {
    "dispatch_agents": "dispatch sub-agents",
    "work_inline": "work inline",
    "run_commands": "run commands",
    "review": "review",
    "compact": "compact the conversation",
    "wait": "wait",
    "ask_user": "ask the user",
    "done": "done",
    "blocked": "blocked",
    "start": "start a workflow",
}


def render_action(a: dict[str, Any]) -> str:
    head = _VERBS.get(a["kind"], a["kind"])
    agents = a.get("agents")
    if a["kind"] == "dispatch_agents" and agents:
        head = f"dispatch {agents['count']} {agents['type']} agent(s)"
    where = f" — {a['stage']} / phase {a['phase']} {a['phaseName']}" if a.get("phase") else ""
    lines = [f"NEXT: {head}{where}"]
    if agents:
        lines.append(f"  model: {agents['model']} ({agents['modelId']})")
        if agents.get("subagentType"):
            lines.append(f"  agent: {agents['subagentType']}")
    for t in a.get("tasks") or []:
        lines.append(f"  task {t['id']} [{t['complexity']}, {t['model']}]: {t['title']}")
    for q in a.get("questions") or []:
        lines.append(f"  question: {q}")
    if a.get("read"):
        lines.append(f"  read:  {', '.join(a['read'])}")
    if a.get("write"):
        lines.append(f"  write: {a['write']}")
    if a.get("until"):
        lines.append(f"  until: {a['until']}")
    lines.append(f"  do:    {a['instructions']}")
    if a.get("command"):
        lines.append(f"  then:  {a['command']}")
    return "\n".join(lines)


def _phase_line(state: State, pid: str) -> str:
    ph = state.phase(pid)
    spec = get_phase(pid)
    extra = []
    if ph.agentCount:
        extra.append(f"{ph.agentCount} agent(s)")
    if ph.issues is not None:
        extra.append(f"{ph.issues} issue(s)")
    if ph.reviewRounds:
        extra.append(f"review round {ph.reviewRounds}")
    if ph.attempts:
        extra.append(f"{ph.attempts} failed attempt(s)")
    tail = f" ({', '.join(extra)})" if extra else ""
    cur = "  <- current" if pid == state.currentPhase and state.active else ""
    return f"    {MARKS[ph.status]} {pid:<4} {spec.name}{tail}{cur}"


def _wave_lines(state: State, now: datetime, lease: int, verbose: bool) -> list[str]:
    from agents_state.engine_tasks import TASK_PHASE, current_wave, is_stale
    from agents_state.types import parse_time

    ph = state.phase(TASK_PHASE)
    if not ph.tasks or not ph.waves:
        return []
    idx = current_wave(ph)
    lines = []
    if idx is not None:
        ts = [ph.tasks[t] for t in ph.waves[idx].tasks]
        counts = {s: sum(1 for t in ts if t.status == s)
                  for s in ("completed", "in_progress", "pending", "failed")}
        lines.append(f"  wave {idx + 1}/{len(ph.waves)}: {counts['completed']} done · "
                     f"{counts['in_progress']} running · {counts['pending']} pending · "
                     f"{counts['failed']} failed")
    for tid, t in ph.tasks.items():
        if is_stale(t, now, lease):
            beat = t.heartbeatAt or t.claimedAt or ""
            age = int((now - parse_time(beat)).total_seconds() // 60) if beat else 0
            lines.append(f"  stale: {tid} claimed by {t.owner}, silent for {age} min "
                         "(claimable again)")
    if verbose:
        for i, w in enumerate(ph.waves):
            lines.append(f"  wave {i + 1} {MARKS[w.status]}")
            for tid in w.tasks:
                t = ph.tasks[tid]
                owner = f" by {t.owner}" if t.owner else ""
                lines.append(f"      {MARKS[t.status]} {tid} {t.title}{owner}"
                             + (f" (attempt {t.attempts})" if t.attempts > 1 else ""))
    return lines


def render_status(state: State, action: dict[str, Any], now: datetime, lease: int,
                  verbose: bool = False) -> str:
    lines = [f"Workflow: {state.task}",
             f"  status: {'aborted' if state.abortedAt else state.status} · revision "
             f"{state.revision} · updated {state.updatedAt}"]
    for stage in STAGES:
        st = state.stages[stage]
        lines.append(f"  {MARKS[st.status]} {stage} ({st.status})")
        show = verbose or stage == state.currentStage or st.status not in ("pending", "skipped")
        if show:
            lines.extend(_phase_line(state, p.id) for p in phases_of(stage))
            if stage == "IMPLEMENT":
                lines.extend(_wave_lines(state, now, lease, verbose))
    if state.failure:
        f = state.failure
        lines.append(f"  FAILED in phase {f.phase} at {f.failedAt}: {f.error}")
        if f.context:
            lines.append(f"    completed: {', '.join(f.context.completedTasks) or '-'}; "
                         f"failed: {f.context.failedTask or '-'}; pending: "
                         f"{', '.join(f.context.pendingTasks) or '-'}")
    if state.blockedReason:
        lines.append(f"  BLOCKED: {state.blockedReason}")
    from agents_state.handoff_record import tokens_by_phase

    tokens = tokens_by_phase(state)
    if tokens:
        lines.append("  tokens (sub-agents): " + ", ".join(f"{k}={v}" for k, v in tokens.items()))
    lines.append(render_action(action))
    return "\n".join(lines)
