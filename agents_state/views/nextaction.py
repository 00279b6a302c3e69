"""The next action in words: ``engine.nextaction.decide`` says what to do, this says it.

``next_action`` is the dict ``next --json`` prints (and ``status``, ``context`` and the text of
``next`` render): the decision's fields, with ``instructions`` worded here from the decision's
``words`` (a sentence's key and its facts).  Only wording lives here; every choice is the
engine's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from agents_state.config import Config
from agents_state.engine.decision import Decision, Note, no_workflow
from agents_state.engine.fallback import FALLBACK_AGENT_MODEL
from agents_state.engine.nextaction import decide
from agents_state.models import State

__all__ = [
    "COMPACT_STEPS",
    "ISOLATED",
    "WAIT_FOR_AGENTS",
    "next_action",
    "no_workflow_action",
    "no_workflow_line",
    "render",
    "with_refusals",
]

# One story with the workflow skill: the model cannot run /compact itself, so it records the
# boundary first and the user (or Claude Code, when the context fills) compacts.
COMPACT_STEPS = (
    "Record the boundary with the command (agents-state compact), then ask the user "
    'to run /compact (under claude -p: claude -p --continue "/compact") and end your turn; '
    "Claude Code also compacts by itself when the context fills. "
    "After a compaction the SessionStart hook brings this workflow and its next action "
    "back: go on with that action, no agents-state next first"
)

# One story with the workflow skill: agents run in the background by default
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


def next_action(
    state: State,
    config: Config,
    now: datetime,
    tool_calls: int = 0,
    context_tokens: int | None = None,
    usage: tuple[int, dict[str, int]] | None = None,
    context_window: int | None = None,
    native: bool = False,
    advice: bool = True,
    codex: Callable[[], str | None] | None = None,
) -> dict[str, Any]:
    """The next action, decided by the engine and worded here; ``usage``: the tokens used by
    the workflow and by stage, for the budgets (issue 24); ``native``: a fan-out runs as the
    host's Workflow (issue 25, ``engine.native``); ``codex``: the installed Codex CLI's version
    (None: none that can review), asked only for a review with a ``codex-*`` model (issue 37)."""
    d = decide(state, config, now, tool_calls, context_tokens, context_window, advice)
    if d.words[0] == "review" and d.agents and d.agents["model"].startswith("codex-"):
        from agents_state.engine.codexreview import codex_step

        d = codex_step(d, config, codex() if codex else None)
    if usage is not None:
        from agents_state.engine.budget import budget_gate

        d = budget_gate(state, config, d, usage[0], usage[1])
    if native and d.words[0] in ("phase_agents", "review", "wave"):
        from agents_state.engine.native import native_decision

        d = native_decision(state, d)
    return render(d)


def with_refusals(
    action: dict[str, Any], refusals: list[dict[str, Any]], root: str
) -> dict[str, Any]:
    """A blocked or failed workflow's ask_user, with the host's refusals of the step that likely
    caused it, each with the narrowest permission rule that lets an unattended run go on, one
    line per rule (issue 27, item 2; issue 33)."""
    lines: dict[str, str] = {}
    for r in reversed(refusals):  # the newest call of each rule
        person = not r.get("rules")  # a person's decision: named by its call
        key = f"{r['rule']} {r.get('target')}" if person else r["rule"]
        if key in lines:
            continue
        who = r.get("agentType") or "orchestrator"
        if r.get("agent") not in (None, "main"):
            who += f" {r['agent']}"
        shown = r.get("target") if person or r.get("tool") != "Bash" else None
        if shown and shown.startswith(root.rstrip("/") + "/"):
            shown = shown[len(root.rstrip("/")) + 1 :]
        what = f"{r['tool']} {shown}" if shown else str(r["tool"])
        lines[key] = f"- {what} ({who}): {'' if person else 'allow '}{r['rule']}"
    said = (
        "Claude Code refused calls of this step. To let an unattended run (claude -p) go on, add "
        "to permissions.allow in .claude/settings.local.json (docs/plugin.md, Unattended runs), "
        "then retry the step:\n" + "\n".join(reversed(lines.values()))
    )
    out = dict(action)
    out["reason"] = f"{str(action.get('reason') or 'blocked').rstrip('.')}. {said}"
    out["instructions"] = (  # the list once, in the reason: every character is paid each turn
        f"{action['instructions']} The reason names the refused calls and the rules to add."
    )
    out["refusals"] = refusals
    return out


def no_workflow_line() -> str:
    """What ``status``, ``stop``, ``resume`` and an empty ``dispatch`` say with no workflow:
    inside Claude Code (``CLAUDECODE`` in the environment of its commands) the plugin's command
    first (issue 27)."""
    import os

    if os.environ.get("CLAUDECODE"):
        return (
            "No active workflow. Start one: /subagents:dispatch <task> "
            '(in a shell: agents-state dispatch "<task>")'
        )
    return 'No active workflow. Start one: agents-state dispatch "<task>"'


def no_workflow_action() -> dict[str, Any]:
    return render(no_workflow())


def render(d: Decision) -> dict[str, Any]:
    key, facts = d.words
    out: dict[str, Any] = {
        "kind": d.kind,
        "stage": d.phase.stage if d.phase else None,
        "phase": d.phase.id if d.phase else None,
        "phaseName": d.phase.name if d.phase else None,
        "agents": d.agents,
        "read": d.read,
        "write": d.write,
        "command": d.command,
        "instructions": _WORDS[key](facts),
    }
    passed = d.extra.get("compaction")
    if passed and not passed["needed"]:  # a boundary where compaction does not help (issue 27)
        out["instructions"] = _not_needed(passed) + out["instructions"]
    out.update(d.extra)
    if d.kind != "ask_user" and isinstance(d.extra.get("budget"), dict):  # issue 24
        from agents_state.views.usage import budget_note

        out["instructions"] += budget_note(d.extra["budget"])
    return out


def _held(u: dict[str, Any] | None) -> str:
    if u is None:
        return "The conversation's size is unknown (no transcript seen), so compact to be safe. "
    return (
        f"The conversation holds {u['tokens']} tokens, {u['percent']}% of its "
        f"{u['window']}-token window (advice at {u['advice']}%). "
    )


def _not_needed(c: dict[str, Any]) -> str:
    return (
        f"{c['after']} is done; no compaction needed: {_held(c)}The workflow goes on "
        "without one (do not ask the user). "
    )


def _notes(notes: list[Note]) -> str:
    said = [_NOTES[key](facts) for key, facts in notes]
    return " " + " ".join(said) if said else ""


def _skipped_tasks(f: dict[str, Any]) -> str:
    skipped: list[str] = f["tasks"]
    more = " ..." if len(skipped) > 10 else ""
    return f"Skipped tasks (not implemented): {', '.join(skipped[:10])}{more}."


_FINISH = {
    "branch+PR": "push {branch} and open the pull request from it (it is the PR's branch)",
    "branch": "leave the work on {branch} and tell the user its name",
    "commit": "record this phase: the engine then brings {branch} into the user's branch itself "
    "when their checkout allows it untouched (a fast-forward, no uncommitted change) and says "
    "so, else it names the command for them; never touch their uncommitted changes yourself",
    "none": "leave {branch} as it is and tell the user its name",
}


_NOTES: dict[str, Callable[[dict[str, Any]], str]] = {
    "plan_agents": lambda f: (
        "List the plan areas in the brainstorm under a heading `## Areas`, one top-level list "
        "item per area: the engine runs one plan agent per area (at most "
        f"{f['most']}). --plan-agents {f['estimate']} is the estimate from the task's wording, "
        "used only when the brainstorm lists no areas."
    ),
    "review_found": lambda f: (
        f"Review {f['review']} found blocking issues: address every issue "
        f"in .agents/phases/{f['artifact']} first."
    ),
    "user_answered": lambda f: f"The user answered ({' | '.join(f['questions'])}): {f['answer']}",
    "tasks_skipped": _skipped_tasks,
    "task_summaries": lambda f: f"Task summaries: {f['file']}.",
    "tests_failed": lambda f: (
        "The last test run FAILED: read .agents/phases/3.1-test-results.json "
        "(failing commands and their output), fix the causes, then record this phase; the tests "
        "run again after it."
    ),
    "tests_accepted": lambda f: (
        "The user accepted failing tests (3.1 skipped); say so in the review."
    ),
    "attempt_failed": lambda f: f"The previous attempt failed: {f['error']}",
    "gate_rejected": lambda f: (  # issue 36
        f"A person ({f['by']}) rejected this phase at its gate: {f['note'].rstrip('.')}. "
        "Do it again with this in mind."
    ),
    "merged_work": lambda f: (
        f"Worktree isolation: the merged work is on branch {f['branch']}, checked out in "
        f"{f['worktrees']}/_integration; read, change and commit there (your own checkout does "
        "not have it)."
    ),
    "finish_branch": lambda f: (
        "To finish: " + _FINISH.get(f["workflow"], _FINISH["none"]).format(branch=f["branch"]) + "."
    ),
}


# One story with the workflow skill and the task agent's file (issue 22)
ISOLATED = (
    ". Worktree isolation is on: give each agent the command agents-state task start "
    "<task-id> to run first; it makes the task's own git worktree and prints the folder to "
    "work in. The agent works only there (absolute paths; cd into it for every shell "
    "command) and may commit there; task done commits what is left, and the wave is merged "
    "into the integration branch once its agents have stopped"
)


def _resolve(f: dict[str, Any]) -> str:
    files = ", ".join(f["files"]) or "(unknown files)"
    return (
        f"Task {f['task']}'s change conflicts with {f['branch']} in {files}; the integration "
        "branch is unchanged and both changes are on their branches. Run the command: it "
        "merges the integration branch into the task's worktree and names the files. Edit them "
        "there so that both changes survive (or ask the user which to keep), then run: "
        "agents-state merge"
    )


def _resolve_there(f: dict[str, Any]) -> str:
    """Issue 33: after ``merge --resolve`` the step is the fix itself, not the same command."""
    files = ", ".join(f["files"]) or "(the files git names as unmerged)"
    return (
        f"Fix the merge conflict of task {f['task']} in its worktree {f['worktree']}: in "
        f"{files} there, replace each <<<<<<< ... ======= ... >>>>>>> block with text that "
        "keeps both changes (or ask the user which to keep); leave no marker line. Then run "
        "the command: it commits the fix and merges the task. If it still finds markers it "
        "exits 9 and names the files."
    )


def _completed(f: dict[str, Any]) -> str:
    from agents_state.engine.outcomes import final_summary

    state: State = f["state"]
    return f"Workflow completed: {state.task}. " + final_summary(state)


def _codex(agents: dict[str, Any]) -> str:
    """Issue 27/37: a Codex model is not an Agent model; it does reviews only, through
    ``agents-state review run``; any other step goes to the fallback agent."""
    fallback = agents.get("fallback")
    if not fallback:
        return ""
    return (
        f" {agents['model']} is a Codex model, not an Agent model, and Codex does reviews only "
        f"(agents-state review run): dispatch {fallback['subagentType']} with model "
        f'"{fallback["agentModel"]}" instead.'
    )


def _codex_review(f: dict[str, Any]) -> str:
    """Issue 37: a review with a ``codex-*`` model: ``review run`` when Codex is installed, the
    Claude reviewer otherwise."""
    agents = f["agents"]
    if "codex" not in f:
        return _codex(agents)
    fb, cx = agents["fallback"], agents["codex"]
    agent = f'{fb["subagentType"]} with model "{fb["agentModel"]}"'
    if f["codex"] is None:
        return (
            f" {agents['model']} is a Codex model, but no Codex CLI that can review (>= 0.154; "
            "npm install -g @openai/codex) is installed: dispatch "
            f"{agent} instead and write its review to the artifact."
        )
    runs = f"{cx['model'] or 'its default model'}, effort {cx['effort']}"
    return (
        f" {agents['model']} is a Codex model ({runs}): run the command; it runs Codex "
        f"{f['codex']} read-only on the work, checks its answer and records the review (do not "
        "write the artifact). If it fails (exit 10, one line saying why; nothing recorded), "
        f"dispatch {agent} instead, write its review to {f['artifact']}, then run: "
        f"agents-state phase complete {f['phase']} --artifact {f['artifact']}"
    )


def _phase_agents(f: dict[str, Any]) -> str:
    agents = f["agents"]
    wait = WAIT_FOR_AGENTS.format(
        n=agents["count"],
        type=agents["subagentType"],
        model=agents["agentModel"] or FALLBACK_AGENT_MODEL,
    ) + _codex(agents)
    if f["answered"]:
        wait += f" Answers noted so far: {f['answered']}."
    instructions: str = f["instructions"]
    return f"Task: {f['task']}. " + instructions + wait + _notes(f["notes"])


def _define_tasks(f: dict[str, Any]) -> str:
    known = ""
    if f["waves"]:
        listed = "; ".join(
            f"{i + 1}: {', '.join(tasks)} ({status})"
            for i, (tasks, status) in enumerate(f["waves"])
        )
        known = (
            f" The state already lists the waves {listed}: define exactly these task ids; "
            "completed waves stay completed."
        )
    return (
        f"Task: {f['task']}.{known} Break the plan into tasks and write them yourself to "
        f"{f['write']} as JSON "
        '{"tasks": [{"id": "task-1", "title": "...", "description": "...", '
        '"dependencies": [], "complexity": "easy|medium|hard", "files": ["..."]}]}; '
        "the command checks them, computes the waves and rewrites the file."
    )


_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "no_workflow": lambda f: "No active workflow.",
    "compact_tokens": lambda f: (
        f"The conversation holds {f['tokens']} tokens, {f['percent']}% "
        f"of its {f['window']}-token window (advice at {f['advice']}%). Compact now (/compact), "
        "then record it and reload with: agents-state context"
    ),
    "compact_calls": lambda f: (
        f"This conversation has made {f['calls']} tool calls since its "
        f"last compaction (limit {f['limit']}). {COMPACT_STEPS}"
    ),
    "aborted": lambda f: "The workflow was aborted; its files are kept in .agents/.",
    "completed": _completed,
    "ask_options": lambda f: (
        f"Workflow {f['status']}: {f['reason']}. Do not choose yourself: "
        "ask the user which option to take, then run that option's command only."
    ),
    "stopped": lambda f: (
        "Workflow stopped on request. Tell the user; when they want to continue, run the command."
    ),
    "clarify": lambda f: "Ask the user these questions and record the answer.",
    "compact_pending": lambda f: f"{f['boundary']} is done. {_held(f['usage'])}{COMPACT_STEPS}",
    "no_phase": lambda f: "The workflow has no current phase; run the command to see the options.",
    "phase_wait": lambda f: (
        f"Phase {f['phase']} failed and is retried after a backoff: wait "
        "until the time, then run the command." + _notes(f["notes"])
    ),
    "phase_as_agent": lambda f: (
        f"Task: {f['task']}. " + f["instructions"] + " One agent does this phase and hands its "
        "result back (agents never write .agents/): write it to the artifact yourself, then run "
        "the command." + _codex(f["agents"]) + _notes(f["notes"])
    ),
    "phase_agents": _phase_agents,
    "review": lambda f: (
        f"Task: {f['task']}. " + f["instructions"] + f" Format: {_REVIEW_FORMAT}. "
        f"Issues of severity {f['severity']} or above send the work back."
        + _codex_review(f)
        + _notes(f["notes"])
    ),
    "run_tests": lambda f: (
        f"Run the configured commands ({', '.join(f['names'])}) with the command: it runs "
        "them and records the results itself." + _notes(f["notes"])
    ),
    "tests_by_hand": lambda f: (
        "No test commands are configured: run the project's lint and "
        "tests yourself and write the results as JSON "
        '{"commands": [{"name": "test", "command": "...", "exitCode": 0}]}.' + _notes(f["notes"])
    ),
    "completion": lambda f: (
        f"Task: {f['task']}. Finish with git workflow '{f['workflow']}'; "
        f"never commit paths matching: {', '.join(f['exclude'])}. Write what was committed (and "
        "the PR link) to the artifact." + _notes(f["notes"])
    ),
    "inline": lambda f: f"Task: {f['task']}. " + f["instructions"] + _notes(f["notes"]),
    "define_tasks": _define_tasks,
    "wave": lambda f: (
        f"Wave {f['wave']}: dispatch one task agent per task below, in parallel "
        "(ONE message, one Agent call each, subagent_type subagents:task-agent, the task's Agent "
        "model), each with its task's prompt (tasks[].prompt) verbatim: the agent starts its "
        "task and records it with the command. "
        "Background agents answer one by one as task notifications: when all have answered, "
        "run: agents-state next" + (ISOLATED if f.get("isolated") else "")
    ),
    "merge_wave": lambda f: (
        f"Wave {f['wave']} is done but not merged yet (an agent of it may still be running, or "
        "a merge was interrupted): once its agents have answered, merge its tasks into "
        f"{f['branch']} (in task id order) with the command, then run: agents-state next"
    ),
    "resolve_conflict": _resolve,
    "resolve_in_worktree": _resolve_there,
    "tasks_wait": lambda f: (
        f"Nothing to dispatch: {f['reason']}. Wait for the running task "
        "agents (or until the time), then run the command."
        + (  # issue 27: a driver killed between claim and done comes back to this wait
            " If the session that launched them died (a crash, a kill), its agents died too: "
            "take their tasks back now with: agents-state resume --retry"
            if f.get("claimed")
            else ""
        )
    ),
}


def _native_phase(f: dict[str, Any]) -> str:
    """Issue 25: the phase's agents as one Workflow call; their answers recorded one by one."""
    head: str = f"Task: {f['task']}. " + f["instructions"]
    where = f" Each agent's answer is recorded as it arrives in {f['answers']} (by agent key)."
    if not f["left"]:
        return (
            head + f" All {f['total']} agents have answered.{where} Merge their answers into the "
            "artifact yourself and run the command, or run the command as it is: with no artifact "
            "written it stores one drafted from the answers." + _notes(f["notes"])
        )
    run = (
        f" {f['answered']} of {f['total']} agents have answered already; run the other {f['left']}"
        if f["answered"]
        else f" Run the {f['left']} agents"
    )
    return (
        head + f"{run} as ONE Workflow call, exactly the call below "
        "(it is shown in /workflows). It returns at once; end your turn and wait for its task "
        f"notification.{where} When it arrives with an outcome for every agent, run the "
        "command: with no artifact written it stores one drafted from the answers (write the "
        "artifact first to merge them yourself). If an outcome is null, run agents-state next: "
        "its call holds the agents that failed. "
        "After a crash or a new session, the same: its call holds only the agents that have "
        "not answered." + _notes(f["notes"])
    )


_WORDS["native_phase"] = _native_phase
_WORDS["native_wave"] = lambda f: (
    f"Wave {f['wave']}: run its {f['count']} task agent(s) as ONE Workflow call, exactly the call "
    "below (it is shown in /workflows). It returns at once; end your turn and wait for its task "
    "notification. Each agent records its own task with agents-state task done, and its handoff "
    "is recorded as it finishes. When the notification arrives, run: agents-state next (after a "
    "crash or a new session, its call holds only the tasks not yet done)."
    + (
        " Worktree isolation is on: each prompt names its task worktree."
        if f.get("isolated")
        else ""
    )
)
_WORDS["budget_spent"] = lambda f: (  # issue 24
    f"Not dispatched: {f['reason']}, before {f['key']}. Do not choose yourself: ask the user "
    "which option to take, then run that option's command only."
)
_WORDS["gate"] = lambda f: (  # issue 36: the person's answer, never the model's
    f"Phase {f['phase']} {f['name']} is recorded and waits at its gate for a person since "
    f"{f['since']}. Do not answer the gate yourself and do not run the gate commands: stop "
    f"and tell the user to look at {f['artifact']} and run one of these in their own shell: "
    f"{f['personApproves']} (go on) or {f['personRejects']} (do the phase again). Then end "
    "your turn; after their answer, continue with: agents-state next"
)
