"""The next action in words: ``engine.next_step`` decides the whole step, this renders it.

``render`` makes the dict ``next --json`` prints (and ``status``, ``context`` and the text of
``next`` render): the decision's fields, with ``instructions`` worded from the decision's
``words`` (a sentence's key and its facts: ``views.words``, ``views.notes``), and
``with_refusals`` words the refusals of a blocked step.  Only wording lives here; every choice
is the engine's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from agents_state.config import Config
from agents_state.engine.decision import Decision, Refusals, no_workflow
from agents_state.models import State
from agents_state.views.notes import NOTES as _NOTES
from agents_state.views.notes import held
from agents_state.views.words import COMPACT_STEPS, ISOLATED, WAIT_FOR_AGENTS
from agents_state.views.words import WORDS as _WORDS

__all__ = [
    "COMPACT_STEPS",
    "ISOLATED",
    "WAIT_FOR_AGENTS",
    "_NOTES",  # the tables of sentences, for the test that every one the engine asks is worded
    "_WORDS",
    "next_action",
    "no_workflow_action",
    "no_workflow_line",
    "render",
    "with_refusals",
]


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
    """The next action of ``state`` with these facts (``engine.step.Facts``), rendered: what
    ``App.next_action`` prints without the shell's additions (paths, briefs, inline reads,
    refusals); ``usage``: the tokens used by the workflow and by stage, for the budgets."""
    from agents_state.engine.step import Facts, next_step

    facts = Facts(
        tool_calls=tool_calls,
        context_tokens=context_tokens,
        context_window=context_window,
        usage=None if usage is None else lambda: usage,
        codex=codex,
        native=native,
        advice=advice,
    )
    return render(next_step(state, config, now, facts))


def with_refusals(action: dict[str, Any], refusals: Refusals, root: str) -> dict[str, Any]:
    """A blocked or failed workflow's ask_user, with the host's refusals of the step that likely
    caused it, each with the narrowest permission rule that lets an unattended run go on, one
    line per rule (issue 27, item 2; issue 33; the engine chose them: ``engine.step``)."""
    top = root.rstrip("/") + "/"
    lines = []
    for r in refusals.rules:
        who = r.agent_type or "orchestrator"
        if r.agent is not None:
            who += f" {r.agent}"
        shown = r.target[len(top) :] if r.target and r.target.startswith(top) else r.target
        what = f"{r.tool} {shown}" if shown else r.tool
        lines.append(f"- {what} ({who}): {'' if r.person else 'allow '}{r.rule}")
    said = (
        "Claude Code refused calls of this step. To let an unattended run (claude -p) go on, add "
        "to permissions.allow in .claude/settings.local.json (docs/plugin.md, Unattended runs), "
        "then retry the step:\n" + "\n".join(lines)
    )
    out = dict(action)
    out["reason"] = f"{str(action.get('reason') or 'blocked').rstrip('.')}. {said}"
    out["instructions"] = (  # the list once, in the reason: every character is paid each turn
        f"{action['instructions']} The reason names the refused calls and the rules to add."
    )
    out["refusals"] = refusals.calls
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
    """The decision as the dict ``next --json`` prints (its refusals aside: ``with_refusals``
    words them last, after the shell's additions)."""
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
    if "workflow" in d.extra or "tasks" in d.extra:  # the agents' prompts (issue 35)
        from agents_state.views.prompts import rendered

        out = rendered(out)
    if d.kind != "ask_user" and isinstance(d.extra.get("budget"), dict):  # issue 24
        from agents_state.views.usage import budget_note

        out["instructions"] += budget_note(d.extra["budget"])
    return out


def _not_needed(c: dict[str, Any]) -> str:
    return (
        f"{c['after']} is done; no compaction needed: {held(c)}The workflow goes on "
        "without one (do not ask the user). "
    )
