"""The notes that follow a phase's instructions, and the context's size, in words (the
``words`` of ``engine.decision.Note``; ``views.words`` ends its sentences with them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents_state.engine.decision import Note

__all__ = ["NOTES", "held", "notes"]


def held(u: dict[str, Any] | None) -> str:
    if u is None:
        return "The conversation's size is unknown (no transcript seen), so compact to be safe. "
    return (
        f"The conversation holds {u['tokens']} tokens, {u['percent']}% of its "
        f"{u['window']}-token window (advice at {u['advice']}%). "
    )


def notes(said_of: list[Note]) -> str:
    """The notes as sentences after the instructions (a leading space), or nothing."""
    said = [NOTES[key](facts) for key, facts in said_of]
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


NOTES: dict[str, Callable[[dict[str, Any]], str]] = {
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
