"""Steering the workflow: stop, resume, a person's gate and budget answers, the merge queue
(issue 35: the flows leave the Click functions; each returns a typed result)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from agents_state.verbs.common import outcome

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.verbs.results import BudgetReport, Explained, NoWorkflow, Recorded

__all__ = [
    "answer_budget",
    "answer_gate",
    "budget_report",
    "has_workflow",
    "merge",
    "resume",
    "stop",
]

Resume = Literal["retry", "skip", "abort"]


def has_workflow(app: App) -> bool:
    """Whether a workflow is stored (a state file there, even a broken one, counts: reading it
    reports what is wrong)."""
    if app.store_url is not None:
        return app.state() is not None
    path = app.file_store.state_path
    return path.exists() or path.is_symlink()


def _none(app: App) -> NoWorkflow:
    from agents_state.verbs.flow import no_workflow

    return no_workflow(app)


def stop(app: App) -> Recorded | NoWorkflow:
    """Stop after the current step (no workflow is a normal answer)."""
    if not has_workflow(app):
        return _none(app)
    from agents_state.engine.events import Stop

    out = app.run(Stop())
    return outcome(app, out.message, state=out.state)


def resume(
    app: App, action: Resume | None = None, answer: str | None = None
) -> Recorded | Explained | NoWorkflow:
    """``action`` (retry, skip, abort) or the user's ``answer`` to the open questions;
    neither: where the workflow stopped and the options (no workflow is a normal answer)."""
    if not has_workflow(app):
        return _none(app)
    from agents_state.engine import events as ev

    if answer is not None and action is not None:
        from agents_state.errors import UsageError

        raise UsageError("an answer cannot be combined with --retry, --skip or --abort")
    if answer is not None:
        from agents_state.safetext import check_length

        check_length(answer, "answer", "--answer", "")
        out = app.run(ev.Answer(text=answer))
        return outcome(app, out.message, state=out.state)
    if action is not None:
        event = {"retry": ev.Retry(), "skip": ev.Skip(), "abort": ev.Abort()}[action]
        out = app.run(event)
        return outcome(app, out.message, state=out.state)
    state = app.require()
    from agents_state.engine.resume import explain
    from agents_state.verbs.results import Explained

    return Explained(explain(state), app.next_action(state))


def answer_gate(
    app: App, phase_id: str, approved: bool, by: str, note: str | None = None
) -> Recorded:
    """A person's answer at the gate after ``phase_id`` (``by``, ``note``: checked one-line
    texts); ``applied`` says whether it changed anything (a repeat does not)."""
    from agents_state.engine.events import GateAnswer
    from agents_state.engine.phases import check_phase_id

    event = GateAnswer(
        phase=check_phase_id(phase_id),
        verdict="approved" if approved else "rejected",
        by=by,
        note=note,
    )
    out = app.run(event)
    return outcome(app, out.message, state=out.state, applied=out.changed)


def answer_budget(
    app: App, raise_to: int | None = None, stage: str | None = None, once: bool = False
) -> Recorded:
    """The user's answer to a spent budget: raise it (the workflow's, or ``stage``'s) to
    ``raise_to`` tokens, or let the dispatch it held back start ``once``."""
    from agents_state.engine import events as ev

    state = app.require()
    key = None
    if once:
        action = app.next_action(state)
        key = action.get("dispatch") if action["kind"] == "ask_user" else None
    event = ev.BudgetAnswer(
        choice="once" if once else "raise", max_tokens=raise_to, stage=stage, key=key
    )
    out = app.run(event)
    return outcome(app, out.message, state=out.state)


def budget_report(app: App) -> BudgetReport:
    """Tokens used and left, for the workflow and each stage with a budget."""
    from agents_state.engine.budget import limits
    from agents_state.types import utcnow
    from agents_state.verbs.results import BudgetReport
    from agents_state.views.usage import budget_usage

    state = app.require()
    used, by_stage = budget_usage(app.root_dir, state)
    total, stages = limits(state, app.config)
    rows = {s: {"maxTokens": n, "usedTokens": by_stage.get(s, 0)} for s, n in stages.items()}
    return BudgetReport(used, total, rows, utcnow().isoformat())


def merge(app: App, resolve_id: str | None = None) -> Recorded:
    """Run the merge queue of the current wave (worktree isolation), or, with ``resolve_id``,
    merge the integration branch into that task's worktree leaving its conflicts to fix."""
    if resolve_id is not None:
        from agents_state.gitwork.queue import prepare_resolve

        prepared = prepare_resolve(app, resolve_id)
        return outcome(app, prepared.message, state=prepared.state, **prepared.data)
    from agents_state.gitwork.queue import run_queue

    out = run_queue(app)
    if out is None:
        return outcome(app, "nothing to merge")
    return outcome(app, out.message, state=out.state, **out.data)
