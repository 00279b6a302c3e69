"""dispatch, next and status: the workflow as a whole (issue 36: shared by the CLI and MCP)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents_state.verbs.common import outcome

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.models import State
    from agents_state.verbs.results import NextStep, NoWorkflow, Recorded, StatusReport

__all__ = ["compact", "dispatch", "next_action", "no_workflow", "status"]


def no_workflow(app: App) -> NoWorkflow:
    """The answer of a command that finds no workflow."""
    from agents_state.verbs.results import NoWorkflow

    return NoWorkflow(app.next_action(None))


def dispatch(
    app: App, task: str | None, shown: str = "TASK", replace: bool = False
) -> Recorded | NoWorkflow:
    """Start a workflow for ``task`` (checked: ``shown`` names where it came from); without a
    task, where the workflow stands (``no_workflow`` when there is none)."""
    if task is None:
        state = app.state()
        if state is None:
            return no_workflow(app)
        return outcome(app, f"Workflow in progress: {state.task}", state=state)
    task = task.strip()
    if not task:
        from agents_state.errors import UsageError

        raise UsageError("the task is empty; describe what the workflow should do")
    from agents_state.safetext import check_length

    check_length(task, "task", shown, "")
    from agents_state.verbs.start import start_workflow

    out = start_workflow(app, task, replace)
    from agents_state.gitwork.steps import dispatch_note

    return outcome(app, out.message + dispatch_note(app), state=out.state)


def next_action(app: App, warn: Callable[[str], None]) -> NextStep:
    """The next action; under worktree isolation a finished wave is merged first (issue 33) and
    the action then says so under ``merged``.  ``warn`` gets what failed on the way without
    stopping it."""
    state = app.state()
    merged = None
    if state is not None and state.git is not None:  # issue 33: the wave merges here, not in
        from agents_state.gitwork.git import GitError
        from agents_state.gitwork.steps import merge_after_stop  # an agent's task done

        try:
            merged = merge_after_stop(app, None)
        except GitError:  # the action says to run agents-state merge, which shows why
            merged = None
        state = merged.state if merged is not None else app.state()
    if state is not None and state.active:
        _book_unstopped(app, state, warn)
    from agents_state.verbs.results import NextStep

    action = app.next_action(state, briefs=True)
    return NextStep(action, merged.message if merged is not None else None)


def _book_unstopped(app: App, state: State, warn: Callable[[str], None]) -> None:
    """Book agents whose SubagentStop never came (killed mid fan-out), issue 32; a failure is a
    warning: the next action comes whatever happens."""
    from agents_state.usage.record import catch_up

    try:
        catch_up(app.root_dir, lambda: state.model_dump(mode="json", exclude_none=True))
    except Exception as e:
        warn(
            f"agents-state: warning: the usage of agents that never stopped was not recorded "
            f"({getattr(e, 'message', None) or e}); the workflow goes on"
        )


def status(
    app: App,
    verbose: bool = False,
    offset: int = 0,
    limit: int | None = None,
    brief: bool = False,
) -> StatusReport:
    """``status --json``: the workflow (tasks only with ``verbose``, ``limit`` of them from
    ``offset`` when a limit is given; ``brief``: stages other than the current one as their
    phases' statuses), its usage, its fan-out path and the next action."""
    from agents_state.types import utcnow
    from agents_state.verbs.results import StatusReport

    state = app.state()
    if state is None:
        return StatusReport(None, app.next_action(None))
    path = app.fanout_path()  # issue 25: which path a fan-out takes, and why
    action = app.next_action(state, native=path.native and state.active)
    from agents_state.views.summary import summarize
    from agents_state.views.usage import usage_of

    now = utcnow()
    usage = usage_of(app.root_dir, state, now)  # tokens and time (issue 24)
    workflow = summarize(state, now, app.policy.lease_seconds, verbose)
    if not verbose:  # per agent and per task with --verbose: the size stays bounded
        usage["agentCount"] = len(usage.pop("agents"))
        usage["taskCount"] = len(usage.pop("tasks"))
    elif limit is not None:
        _page_tasks(workflow, offset, limit)
    if brief:
        _brief(workflow, verbose)
    workflow["usage"] = usage
    workflow["fanouts"] = path.as_dict()
    return StatusReport(workflow, action)


def _brief(workflow: dict[str, Any], verbose: bool) -> None:
    """The current stage in full, every other as its status and its phases' (the phase of
    the tasks in full too with ``verbose``): a size that does not grow with the workflow's
    history (issue 36, the MCP tool's answer stays under 4 KB)."""
    from agents_state.workflow import TASK_PHASE

    for name, stage in workflow["stages"].items():
        if name == workflow.get("currentStage"):
            continue
        phases, state = stage["phases"], stage.get("status")
        stage.clear()
        stage["status"] = state
        stage["phases"] = {
            pid: p if verbose and pid == TASK_PHASE else p["status"] for pid, p in phases.items()
        }


def _page_tasks(workflow: dict[str, Any], offset: int, limit: int) -> None:
    """Keep ``limit`` tasks from ``offset`` (in the order the state lists them) and say where
    the next page starts (``taskPage.next``: None on the last page)."""
    from agents_state.workflow import TASK_PHASE

    detail = workflow["stages"]["IMPLEMENT"]["phases"][TASK_PHASE]
    tasks: dict[str, Any] = detail.get("tasks") or {}
    ids = list(tasks)[offset : offset + limit]
    detail["tasks"] = {tid: tasks[tid] for tid in ids}
    end = offset + len(ids)
    detail["taskPage"] = {
        "offset": offset,
        "limit": limit,
        "total": len(tasks),
        "next": end if end < len(tasks) else None,
    }


def compact(app: App) -> Recorded:
    """Record the compaction point: asked of the user, or skipped as not needed (the
    conversation's size decides; this compacts nothing)."""
    from agents_state.engine.compaction import usage
    from agents_state.engine.events import Compact
    from agents_state.store.toolcalls import reset

    tokens, window = app.context_size()
    found = usage(app.config.compaction, tokens, window)
    out = app.run(Compact(usage=found))
    reset(app.root_dir)  # asked or skipped: the calls so far are accounted for (issue 33)
    return outcome(app, out.message, state=out.state)
