"""The sentence of each step the engine decides (``Decision.words``: a key and its facts), and
the passages the plugin's skills and agent files tell the same story with (``COMPACT_STEPS``,
``WAIT_FOR_AGENTS``, ``ISOLATED``: tests hold them together)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents_state.engine.fallback import FALLBACK_AGENT_MODEL
from agents_state.models import State
from agents_state.views.notes import held, notes

__all__ = ["COMPACT_STEPS", "ISOLATED", "WAIT_FOR_AGENTS", "WORDS"]

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
    from agents_state.views.outcomes import final_summary

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
    return f"Task: {f['task']}. " + instructions + wait + notes(f["notes"])


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


WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
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
    "compact_pending": lambda f: f"{f['boundary']} is done. {held(f['usage'])}{COMPACT_STEPS}",
    "no_phase": lambda f: "The workflow has no current phase; run the command to see the options.",
    "phase_wait": lambda f: (
        f"Phase {f['phase']} failed and is retried after a backoff: wait "
        "until the time, then run the command." + notes(f["notes"])
    ),
    "phase_as_agent": lambda f: (
        f"Task: {f['task']}. " + f["instructions"] + " One agent does this phase and hands its "
        "result back (agents never write .agents/): write it to the artifact yourself, then run "
        "the command." + _codex(f["agents"]) + notes(f["notes"])
    ),
    "phase_agents": _phase_agents,
    "review": lambda f: (
        f"Task: {f['task']}. " + f["instructions"] + f" Format: {_REVIEW_FORMAT}. "
        f"Issues of severity {f['severity']} or above send the work back."
        + _codex_review(f)
        + notes(f["notes"])
    ),
    "run_tests": lambda f: (
        f"Run the configured commands ({', '.join(f['names'])}) with the command: it runs "
        "them and records the results itself." + notes(f["notes"])
    ),
    "tests_by_hand": lambda f: (
        "No test commands are configured: run the project's lint and "
        "tests yourself and write the results as JSON "
        '{"commands": [{"name": "test", "command": "...", "exitCode": 0}]}.' + notes(f["notes"])
    ),
    "completion": lambda f: (
        f"Task: {f['task']}. Finish with git workflow '{f['workflow']}'; "
        f"never commit paths matching: {', '.join(f['exclude'])}. Write what was committed (and "
        "the PR link) to the artifact." + notes(f["notes"])
    ),
    "inline": lambda f: f"Task: {f['task']}. " + f["instructions"] + notes(f["notes"]),
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
            "written it stores one drafted from the answers." + notes(f["notes"])
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
        "not answered." + notes(f["notes"])
    )


WORDS["native_phase"] = _native_phase
WORDS["native_wave"] = lambda f: (
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
WORDS["budget_spent"] = lambda f: (  # issue 24
    f"Not dispatched: {f['reason']}, before {f['key']}. Do not choose yourself: ask the user "
    "which option to take, then run that option's command only."
)
WORDS["gate"] = lambda f: (  # issue 36: the person's answer, never the model's
    f"Phase {f['phase']} {f['name']} is recorded and waits at its gate for a person since "
    f"{f['since']}. Do not answer the gate yourself and do not run the gate commands: stop "
    f"and tell the user to look at {f['artifact']} and run one of these in their own shell: "
    f"{f['personApproves']} (go on) or {f['personRejects']} (do the phase again). Then end "
    "your turn; after their answer, continue with: agents-state next"
)
