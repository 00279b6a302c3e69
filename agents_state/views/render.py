"""Text rendering of next actions and status for people and models (pure: returns strings).

``render_status`` is what a person reads while debugging: the five stages and their phases as a
tree with status marks, the current wave as a progress line, stale claims with their age, tasks
waiting to retry and why, the failure in plain words, and the next action last.  The clock is
passed in (``now``), so the output is a pure function of the state and is snapshot-tested.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from agents_state.models import PhaseState, State, TaskState
from agents_state.safetext import escape
from agents_state.workflow import STAGES, PhaseKind, get_phase, phases_of

__all__ = [
    "MARKS",
    "age",
    "colorize",
    "fanout_line",
    "progress_bar",
    "render_action",
    "render_status",
    "without_prompts",
    "workflow_line",
]

MARKS = {
    "completed": "✓",
    "in_progress": "▶",
    "pending": "·",
    "failed": "✗",
    "blocked": "■",
    "stopped": "‖",
    "skipped": "-",
}

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

_BAR = {"completed": "█", "in_progress": "▒", "pending": "░", "failed": "✗"}
_WAVE_STATES = ("completed", "in_progress", "pending", "failed")


def _clean(value: Any) -> Any:
    """Every string one escaped line: a field can never forge a line of the action."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def render_action(a: dict[str, Any]) -> str:
    call = workflow_line(a.get("workflow"))
    prompts = {  # one escaped line per line of each Agent-path prompt (issue 33)
        str(t.get("id")): str(t["prompt"]).split("\n")
        for t in a.get("tasks") or []
        if isinstance(t, dict) and t.get("prompt") and not call
    }
    inline = [i for i in a.get("inline") or [] if isinstance(i, dict)]
    a = _clean(a)
    head = _VERBS.get(a["kind"], a["kind"])
    agents = a.get("agents")
    if a["kind"] == "dispatch_agents" and agents:
        head = f"dispatch {agents['count']} {agents['type']} agent(s)"
    where = f" — {a['stage']} / phase {a['phase']} {a['phaseName']}" if a.get("phase") else ""
    lines = [f"NEXT: {head}{where}"]
    if agents:
        lines.append(_model_line(agents))
        if agents.get("subagentType"):
            lines.append(f"  agent: {agents['subagentType']}")
    for t in a.get("tasks") or []:
        lines.append(
            f"  task {t['id']} [{t['complexity']}, {t['model']}]: {t['title']}"
            + (f' (Agent model "{t["agentModel"]}")' if t.get("agentModel") else "")
        )
        lines += [f"    | {escape(line)}" for line in prompts.get(str(t["id"]), [])]
    for q in a.get("questions") or []:
        lines.append(f"  question: {q}")
    if a.get("options"):
        lines.append(f"  reason: {a.get('reason')}")
    for o in a.get("options") or []:
        lines.append(f"  option {o['option']}: {o['command']} — {o['effect']}")
    if a.get("read"):
        lines.append(f"  read:  {', '.join(a['read'])}")
    for item in inline:  # issue 34: short artifacts in the action, one escaped line each
        lines.append(f"  inline: {escape(str(item.get('path')))}")
        text = str(item.get("text", "")).rstrip("\n")
        lines += [f"    | {escape(line)}" for line in text.split("\n")]
    if a.get("write"):
        lines.append(f"  write: {a['write']}")
    if a.get("until"):
        lines.append(f"  until: {a['until']}")
    lines.append(f"  do:    {a['instructions']}")
    if call:
        lines.append(f"  call:  {call}")
    if a.get("command"):
        lines.append(f"  then:  {a['command']}")
    return "\n".join(lines)


def workflow_line(workflow: Any) -> str | None:
    """Issue 25: the exact Workflow call of a fan-out, on one line (JSON escapes every line
    break and every character past ASCII, so no field can start a line of its own)."""
    if not isinstance(workflow, dict):
        return None
    import json

    name = json.dumps(workflow["name"])
    return f"Workflow({{name: {name}, args: {json.dumps(workflow['args'])}}})"


def fanout_line(path: Any) -> str:
    """Issue 25: the path fan-outs take (``engine.native.FanoutPath``), for ``status``."""
    how = "one Workflow call (subagents:fanout)" if path.native else "one Agent call per agent"
    return f"  fan-outs: {how} · {escape(path.reason)}"


def _model_line(agents: dict[str, Any]) -> str:
    """The value the Agent tool takes first; the configured alias and versioned id are for
    people."""
    configured = f"{agents['model']} = {agents['modelId']}"
    if agents.get("agentModel"):
        return f'  model: "{agents["agentModel"]}" (Agent tool model; configured {configured})'
    if agents.get("fallback"):
        fb = agents["fallback"]
        cx = agents.get("codex")
        if cx and cx.get("installed"):
            runs = f"{cx['model'] or 'its default model'}, effort {cx['effort']}"
            how = f"run by Codex {cx['installed']}, {runs}, through the command; if that fails,"
        elif cx:
            how = "a Codex model, but no Codex CLI >= 0.154 is installed:"
        else:
            how = "a Codex model: Codex does reviews only, so"
        return (
            f"  model: {agents['model']} ({how} {fb['subagentType']} with Agent model "
            f'"{fb["agentModel"]}")'
        )
    if "agentModel" in agents:
        return f"  model: {configured} (not a sub-agent model)"
    return f"  model: {agents['model']} ({agents['modelId']})"


# -- small pure helpers -----------------------------------------------------------------------


def age(then: str | None, now: datetime) -> str:
    """A short human age: ``45s``, ``19m``, ``3h05m``, ``2d04h``."""
    from agents_state.types import parse_time

    if not then:
        return "?"
    secs = max(0, int((now - parse_time(then)).total_seconds()))
    if secs < 60:
        return f"{secs}s"
    if secs < 3600:
        return f"{secs // 60}m"
    if secs < 86400:
        return f"{secs // 3600}h{secs % 3600 // 60:02d}m"
    return f"{secs // 86400}d{secs % 86400 // 3600:02d}h"


def progress_bar(counts: dict[str, int], width: int = 20) -> str:
    """A bar of at most ``width`` cells: done █, running ▒, pending ░, failed ✗ (in that order)."""
    total = sum(counts.get(s, 0) for s in _WAVE_STATES)
    if total == 0:
        return ""
    cells = min(total, width)
    out, cum, prev = [], 0, 0
    for s in _WAVE_STATES:
        cum += counts.get(s, 0)
        end = round(cum * cells / total)
        out.append(_BAR[s] * (end - prev))
        prev = end
    return "".join(out)


_COLORS = {
    "✓": "32",
    "▶": "36",
    "✗": "31",
    "■": "31",
    "‖": "35",
    "█": "32",
    "▒": "36",
    "STALE": "1;33",
    "FAILED": "1;31",
    "BLOCKED": "1;31",
    "NEXT:": "1",
}
_COLOR_RE = "|".join(map(re.escape, _COLORS))  # compiled on first use (re's cache)


def colorize(text: str) -> str:
    """ANSI colours for a terminal (the caller decides: a TTY and no ``NO_COLOR``)."""

    def paint(m: re.Match[str]) -> str:
        code = _COLORS[m.group(0)]
        return f"\x1b[{code}m{m.group(0)}\x1b[0m"

    return re.sub(_COLOR_RE, paint, text)


# -- the status tree --------------------------------------------------------------------------


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


def _counts(tasks: list[TaskState]) -> dict[str, int]:
    return {s: sum(1 for t in tasks if t.status == s) for s in _WAVE_STATES}


def _wave_progress(ph: PhaseState) -> list[str]:
    from agents_state.engine.ready import current_wave

    assert ph.tasks is not None and ph.waves is not None
    done = sum(1 for t in ph.tasks.values() if t.status == "completed")
    skipped = sum(1 for t in ph.tasks.values() if t.status == "skipped")
    tally = f"{done}/{len(ph.tasks)} tasks done" + (f", {skipped} skipped" if skipped else "")
    idx = current_wave(ph)
    if idx is None:
        return [f"        all {len(ph.waves)} wave(s) done · {tally}"]
    c = _counts([ph.tasks[t] for t in ph.waves[idx].tasks])
    return [
        f"        wave {idx + 1}/{len(ph.waves)} [{progress_bar(c)}] {c['completed']} done · "
        f"{c['in_progress']} running · {c['pending']} pending · {c['failed']} failed "
        f"(all waves: {tally})"
    ]


def _task_problems(ph: PhaseState, now: datetime, lease: int) -> list[str]:
    from agents_state.engine.ready import is_stale
    from agents_state.types import parse_time

    lines = []
    for tid, t in (ph.tasks or {}).items():
        if is_stale(t, now, lease):
            lines.append(
                f"        STALE {escape(tid)}: claimed by {escape(t.owner)} "
                f"{age(t.claimedAt, now)} ago, "
                f"silent for {age(t.heartbeatAt or t.claimedAt, now)} "
                "(claimable again)"
            )
        elif t.status == "failed":
            lines.append(
                f"        ✗ {escape(tid)} failed after {t.attempts} attempt(s): "
                f"{escape(t.lastError or 'no error given')}"
            )
        elif t.status == "pending" and t.retryAt and parse_time(t.retryAt) > now:
            lines.append(
                f"        ↻ {escape(tid)} retries at {t.retryAt} (attempt {t.attempts} "
                f"failed: {escape(t.lastError or 'no error given')})"
            )
    return lines


def _task_lines(ph: PhaseState, now: datetime) -> list[str]:
    assert ph.tasks is not None and ph.waves is not None
    lines = []
    for i, w in enumerate(ph.waves):
        lines.append(f"        wave {i + 1} {MARKS[w.status]}")
        for tid in w.tasks:
            t = ph.tasks[tid]
            bits = []
            if t.owner:
                bits.append(f"by {escape(t.owner)}")
            if t.status == "in_progress":
                bits.append(f"for {age(t.claimedAt, now)}")
            if t.attempts > 1:
                bits.append(f"attempt {t.attempts}")
            if t.branch:
                bits.append(f"branch {escape(t.branch)}")
            if t.merge:
                bits.append(f"merge {t.merge}")
            tail = f" ({', '.join(bits)})" if bits else ""
            lines.append(f"          {MARKS[t.status]} {escape(tid)} {escape(t.title)}{tail}")
    return lines


def _tasks_block(state: State, now: datetime, lease: int, verbose: bool) -> list[str]:
    from agents_state.workflow import TASK_PHASE

    ph = state.phase(TASK_PHASE)
    if ph.waves and not ph.tasks:  # waves listed without their definitions (design 004)
        return [
            f"        wave {i + 1} {MARKS[w.status]} {escape(', '.join(w.tasks))}"
            for i, w in enumerate(ph.waves)
        ] + ["        task definitions not loaded yet (agents-state tasks load FILE)"]
    if not ph.tasks or not ph.waves:
        return []
    lines = _wave_progress(ph) + _isolation_lines(state, ph) + _task_problems(ph, now, lease)
    return lines + (_task_lines(ph, now) if verbose else [])


def _isolation_lines(state: State, ph: PhaseState) -> list[str]:
    """Worktree isolation and merges (issue 22), or that it is off."""
    from agents_state.views.summary import isolation

    iso = isolation(state, ph)
    if iso["mode"] == "off":
        return [
            "        isolation: off (tasks share the working tree; tasks whose files overlap "
            "run in different waves)"
        ]
    m = iso["merges"]
    lines = [
        f"        isolation: a git worktree per task, merged into {escape(iso['branch'])} "
        f"({m.get('merged', 0)} merged, {m.get('nochange', 0)} without change, "
        f"{m.get('pending', 0)} to merge, {m.get('conflict', 0)} in conflict)"
    ]
    if state.git is not None and state.git.intent is not None:
        lines.append("        a merge run was interrupted: agents-state merge finishes it")
    tasks = state.phase("2.1").tasks or {}
    for tid, files in iso["conflicts"].items():
        where = tasks[tid].resolveIn if tid in tasks else None
        todo = (  # issue 33: once prepared, the step is the fix in that folder
            f"fix it in {escape(where)}, then: agents-state merge"
            if where
            else f"resolve: agents-state merge --resolve {escape(tid)}"
        )
        lines.append(f"        ⚡ {escape(tid)} conflicts in {escape(', '.join(files))} ({todo})")
    return lines


def _stage_lines(state: State, now: datetime, lease: int, verbose: bool) -> list[str]:
    lines = []
    for stage in STAGES:
        st = state.stages[stage]
        lines.append(f"  {MARKS[st.status]} {stage} ({st.status})")
        if not (verbose or stage == state.currentStage or st.status not in ("pending", "skipped")):
            continue
        for p in phases_of(stage):
            lines.append(_phase_line(state, p.id))
            if p.kind is PhaseKind.TASKS:
                lines.extend(_tasks_block(state, now, lease, verbose))
    return lines


def _failure_lines(state: State) -> list[str]:
    f = state.failure
    if f is None:
        return []
    where = f"phase {f.phase} {get_phase(f.phase).name}" if f.phase else "an unknown phase"
    lines = [f"  FAILED in {where} at {f.failedAt or '?'}: {escape(f.error or 'no error given')}"]
    if f.context:
        lines.append(
            f"    done: {', '.join(f.context.completedTasks) or '-'} · failed: "
            f"{f.context.failedTask or '-'} · pending: "
            f"{', '.join(f.context.pendingTasks) or '-'}"
        )
    lines.append("    to continue: agents-state resume (then --retry, --skip or --abort)")
    return lines


def _notes(state: State) -> list[str]:
    lines = []
    if state.blockedReason:
        lines.append(f"  BLOCKED: {escape(state.blockedReason)}")
    if state.stopRequested and state.active:
        lines.append(
            "  stopped: the step in flight can still be recorded"
            if state.status == "stopped"
            else "  stop requested: the workflow stops after the current step"
        )
    if state.clarify is not None and state.clarify.answer is None:
        lines.append("  waiting for the user: " + escape(" | ".join(state.clarify.questions)))
    if state.compaction.pending:
        lines.append(f"  compaction due after {state.compaction.pending}")
    if state.gate is not None or state.gateAnswers:  # issue 36
        from agents_state.views.gates import gate_lines

        lines += gate_lines(state)
    from agents_state.engine.ledger import tokens_by_phase

    tokens = tokens_by_phase(state)
    if tokens:
        lines.append("  tokens (sub-agents): " + ", ".join(f"{k}={v}" for k, v in tokens.items()))
    return lines


def render_status(
    state: State, action: dict[str, Any], now: datetime, lease: int, verbose: bool = False
) -> str:
    lines = [
        f"Workflow: {escape(state.task)}",
        f"  status: {'aborted' if state.abortedAt else state.status} · revision "
        f"{state.revision} · updated {state.updatedAt}"
        + (f" ({age(state.updatedAt, now)} ago)" if state.updatedAt else ""),
    ]
    lines += _stage_lines(state, now, lease, verbose)
    lines += _failure_lines(state) + _notes(state)
    lines.append(render_action(without_prompts(action)))  # a person reads status
    return "\n".join(lines)


def without_prompts(action: dict[str, Any]) -> dict[str, Any]:
    """The action without its tasks' Agent-path prompts (``next`` prints them; ``status`` and
    the session's context, which say what to run next, stay short)."""
    if not action.get("tasks"):
        return action
    tasks = [{k: v for k, v in t.items() if k != "prompt"} for t in action["tasks"]]
    return {**action, "tasks": tasks}
