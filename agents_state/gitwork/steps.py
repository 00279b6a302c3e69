"""What the task commands add under worktree isolation (the shell; each a no-op without it).

``tasks load`` makes the integration branch, ``task claim`` / ``start`` make the task's
worktree and say where to work, ``task done`` commits what the agent left (the clean way); the
wave is merged once its agents have stopped (``merge_after_stop``: the SubagentStop hook, and
``next``), never inside an agent's own ``task done`` (issue 33: the merge removes its worktree).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.models import State

__all__ = [
    "Committed",
    "after_claim",
    "after_load",
    "before_done",
    "dispatch_note",
    "done_notes",
    "isolation_note",
    "merge_after_stop",
    "merge_due",
    "running_agents",
]


def dispatch_note(app: App) -> str:
    """What ``dispatch`` tells a user in a git repository about their checkout (issue 22)."""
    if app.config.stages.IMPLEMENT.tasks.isolation == "none":
        return ""
    from agents_state.gitwork.git import find_repo

    if find_repo(app.root) is None:
        return ""
    return (
        "; worktree isolation: in phase 2.1 each task works in its own git worktree and is "
        "merged into an integration branch made from your HEAD plus a commit of your "
        "uncommitted changes to tracked files; your branch and working tree are left as they are"
    )


def isolation_note(state: State) -> str:
    git = state.git
    if git is None:
        return ""
    how = (
        "your HEAD plus a commit of your uncommitted changes to tracked files"
        if git.fromChanges
        else "your HEAD"
    )
    return (
        f"; isolation: each task works in its own git worktree under {git.worktrees}/ and is "
        f"merged into {git.branch}, which starts from {how} (your branch and working tree are "
        "left as they are)"
    )


def after_load(app: App, state: State) -> None:
    if state.git is None:
        return
    from agents_state.gitwork.rooms import ensure_integration, git_lock

    with git_lock(app):
        ensure_integration(app, state.git)


def after_claim(app: App, state: State, task_id: str) -> dict[str, Any]:
    """Make the task's worktree; returns ``worktree`` (where to work) and ``branch``."""
    if state.git is None:
        return {}
    from agents_state.engine.worktrees import task_branch
    from agents_state.gitwork.rooms import ensure_task_worktree, git_lock, work_dir

    with git_lock(app):
        ensure_task_worktree(app, state.git, task_id)
    return {
        "worktree": str(work_dir(app, state.git, task_id)),
        "branch": task_branch(state.git, task_id),
    }


class Committed(NamedTuple):
    """What ``task done`` committed in the task's worktree (issue 22, 33)."""

    branch: str | None = None
    head: str | None = None
    unchanged: bool = False  # the head is already in the integration branch
    outside: tuple[str, ...] = ()  # new files outside the task's ``files``
    left: tuple[tuple[str, str], ...] = ()  # paths no commit takes, and why


def before_done(app: App, task_id: str, summary: str | None) -> Committed:
    """Commit what the agent left in its worktree (the clean way: ``gitwork.clean``)."""
    from agents_state.gitwork import isolated

    if not isolated(app.root_dir):
        return Committed()
    state = app.state()
    if state is None or state.git is None:
        return Committed()
    tasks = state.phase(TASK_PHASE).tasks or {}
    task = tasks.get(task_id)
    if task is None or task.status not in ("in_progress", "pending"):
        return Committed()
    from agents_state.engine.worktrees import commit_message, task_branch
    from agents_state.gitwork.git import Git
    from agents_state.gitwork.rooms import commit_leftovers, excludes_of, git_lock, worktree_path

    branch = task_branch(state.git, task_id)
    path = worktree_path(app, state.git, task_id)
    if not (path / ".git").exists():
        return Committed()
    with git_lock(app):
        done = task.model_copy()
        done.summary = summary or task.summary
        message = commit_message(task_id, done)
        staged = commit_leftovers(path, message, excludes_of(app), state.git.base)
        g = Git(path)
        head = g.rev("HEAD")
        unchanged = head is not None and g.is_ancestor(head, state.git.branch)
    outside = tuple(f for f in staged.new if not _listed(f, task.files))
    return Committed(branch, head, unchanged, outside, tuple(staged.left))


def _listed(path: str, files: list[str]) -> bool:
    """Whether a task's ``files`` entry (a path, a folder or a glob) names ``path``."""
    import fnmatch

    for f in files:
        f = f.strip()
        f = f[2:] if f.startswith("./") else f
        if not f:
            continue
        if path == f or path.startswith(f.rstrip("/") + "/") or fnmatch.fnmatchcase(path, f):
            return True
    return False


def done_notes(c: Committed) -> str:
    """What ``task done`` adds to its message about the commit (issue 33)."""
    notes = ""
    if c.outside:
        notes += f"; new files outside its files: {_few([p for p in c.outside])}"
    if c.left:
        notes += "; left out of its commit (generated, credential or excluded; still in the " + (
            f"worktree): {_few([p for p, _ in c.left])}"
        )
    return notes


def _few(paths: list[str], most: int = 8) -> str:
    more = f" and {len(paths) - most} more" if len(paths) > most else ""
    return ", ".join(paths[:most]) + more


def merge_due(state: State) -> bool:
    """Whether the merge queue has work now: a wave whose tasks are all done, not merged, and
    not only waiting for a person to resolve a conflict."""
    if state.git is None:
        return False
    from agents_state.engine.worktrees import merge_queue

    phase = state.phase(TASK_PHASE)
    queue = merge_queue(state, phase)
    tasks = phase.tasks or {}
    return bool(queue) and (
        state.git.intent is not None or any(tasks[t].merge != "conflict" for t in queue)
    )


def running_agents(root_dir: str, stopped: str | None = None, since: str = "") -> list[str]:
    """The plugin's sub-agents that started (at ``since`` or later: an ISO time) and have not
    stopped, as ``.agents/subagents.jsonl`` (the SubagentStart/Stop log) says; ``stopped``: one
    more agent known to have stopped."""
    import orjson

    started: dict[str, None] = {}
    try:
        with open(os.path.join(root_dir, ".agents", "subagents.jsonl"), "rb") as f:
            for line in f:
                try:
                    entry = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                agent = entry.get("agent_id") if isinstance(entry, dict) else None
                if not isinstance(agent, str):
                    continue
                if entry.get("event") == "start" and str(entry.get("at", "")) >= since:
                    started[agent] = None
                elif entry.get("event") == "stop":
                    started.pop(agent, None)
    except OSError:
        return []
    started.pop(stopped or "", None)
    return list(started)


def merge_after_stop(app: App, stopped: str | None, wait: float | None = None) -> Outcome | None:
    """Issue 33: the wave merges once its agents have stopped (never inside an agent's own
    ``task done``, whose worktree the merge removes): run the queue when it is due and no other
    sub-agent is running; None when it did not run."""
    state = app.state()
    if state is None or not merge_due(state):
        return None
    since = state.phase(TASK_PHASE).startedAt or ""  # an agent killed before 2.1 never stops
    if running_agents(app.root_dir, stopped, since):
        return None
    from agents_state.gitwork.queue import run_queue

    return run_queue(app, wait)


def settle_integration(app: App, phase_id: str) -> str:
    """Commit what a phase after 2.1 left uncommitted in the integration worktree (issue 33:
    a fix made there must be on the branch before 3.1 judges it and before the completion);
    the words for the command's message ("" when there was nothing)."""
    state = app.state()
    if state is None or state.git is None:
        return ""
    from agents_state.workflow import PHASE_INDEX, get_phase

    if PHASE_INDEX.get(phase_id, 0) <= PHASE_INDEX[TASK_PHASE]:
        return ""
    from agents_state.engine.worktrees import INTEGRATION_DIR
    from agents_state.gitwork.rooms import commit_leftovers, excludes_of, git_lock, worktree_path

    path = worktree_path(app, state.git, INTEGRATION_DIR)
    if not (path / ".git").exists():
        return ""
    message = f"agents-state: phase {phase_id} ({get_phase(phase_id).name})"
    with git_lock(app):
        staged = commit_leftovers(path, message, excludes_of(app), state.git.base)
    said = f"; committed the changes in {path} on {state.git.branch}" if staged.made else ""
    if staged.left:
        said += "; left out of the commit (generated, credential or excluded): " + _few(
            [p for p, _ in staged.left]
        )
    return said
