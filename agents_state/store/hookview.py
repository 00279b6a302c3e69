"""The hooks' view: the few fields of the state a hook reads on every tool call (issue 35).

A PreToolUse hook needs only whether a workflow is active (``status``, ``abortedAt``), yet
parsing the whole ``state.json`` cost it 5.5x ``python -c pass`` at 10,000 tasks.  Each commit
writes ``.agents/hook-view.json`` next to the state, under the same lock: a temp file, fsync,
``os.replace``, and the directory fsync the state's own replace already needs (the view is
replaced between the state's replace and that fsync, so one fsync makes both durable).

The view names the state it was made from by the identity of the file (device, inode, size,
modification and change times in nanoseconds, as ``os.stat`` gives them).  The state is always
replaced by a new file, so any other write -- a hand edit in place, a restore, a copy, a
commit whose view write failed or was cut short -- leaves a view that names another file, and
the hook then reads ``state.json`` itself (``hooks.workflow_root``).  The view is never trusted
over the state: it is a cache a stale entry of which is always detected.

What the view holds is ``facts`` of the state's JSON, the one function both sides use: the
commit applies it to the tree it has just written, a hook whose view is stale to the state it
read.  Besides the PreToolUse check, the readers are the sub-agent start hook (``startedAt``,
``currentPhase``), the task agent's own-room check (``git``, whether phase 2.1 has tasks, which
task each agent holds) and the approvals of ``agents-state task`` commands (who holds what).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["VIEW_NAME", "facts", "fingerprint", "refresh_view", "write_view"]

VIEW_NAME = "hook-view.json"
_TASK_PHASE = "2.1"  # where tasks live (``hooks.taskowner``, ``hooks.ownroom``)


def facts(state: dict[str, Any]) -> dict[str, Any]:
    """What the hooks read of the state's JSON ``state`` (a raw dict, as on disk): its status,
    whether aborted, revision, current phase, start time, whether worktree isolation is on
    (``git``), whether phase 2.1 has tasks, and ``held``: the tasks of phase 2.1 in progress,
    by owner (``""``: started with no owner named; a list, so that a double hold is seen).
    One pass over the tasks' dicts; no task is decoded."""
    stages = state.get("stages")
    impl = stages.get("IMPLEMENT") if isinstance(stages, dict) else None
    phases = impl.get("phases") if isinstance(impl, dict) else None
    phase = phases.get(_TASK_PHASE) if isinstance(phases, dict) else None
    tasks = phase.get("tasks") if isinstance(phase, dict) else None
    held: dict[str, list[str]] = {}
    if isinstance(tasks, dict):
        for tid, task in tasks.items():
            if isinstance(task, dict) and task.get("status") == "in_progress":
                owner = task.get("owner")
                held.setdefault(owner if isinstance(owner, str) else "", []).append(tid)
    started = state.get("startedAt")
    return {
        "revision": state.get("revision"),
        "status": state.get("status"),
        "aborted": bool(state.get("abortedAt")),
        "currentPhase": state.get("currentPhase"),
        "startedAt": started if isinstance(started, str) else None,
        "git": isinstance(state.get("git"), dict),
        "tasksLoaded": isinstance(tasks, dict) and bool(tasks),
        "held": held,
    }


def fingerprint(st: os.stat_result) -> list[int]:
    """What names one version of ``state.json``: a new file (inode) at each commit, and any
    write to it in place changes its size or its times."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def write_view(agents: str, state_file: str, state: dict[str, Any]) -> None:
    """Replace the view with ``facts`` of ``state`` (the JSON tree just written) and the
    identity of ``state_file`` (just replaced, not yet made durable by its directory's fsync,
    which the caller does next).  Raises ``OSError``; the caller warns and goes on (a stale
    view is never read)."""
    import orjson

    from agents_state.store import fsops

    doc = {"state": fingerprint(os.stat(state_file)), **facts(state)}
    path = os.path.join(agents, VIEW_NAME)
    tmp = os.path.join(agents, f".tmp-{VIEW_NAME}.{os.getpid()}.{time.monotonic_ns()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            fsops.write_all(fd, orjson.dumps(doc) + b"\n", "view_write")
            fsops.fsync(fd, "view_fsync")
        finally:
            os.close(fd)
        fsops.replace(tmp, path, "view_replace")
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def refresh_view(agents: str, state_file: str, state: dict[str, Any]) -> None:
    """``write_view``, with a warning instead of an error: the state is in place, and a view
    naming an older file is never read."""
    try:
        write_view(agents, state_file, state)
    except OSError as e:
        import sys

        sys.stderr.write(
            f"agents-state: warning: .agents/{VIEW_NAME}: write failed: {e.strerror or e}; "
            "the hooks read the state itself until the next update\n"
        )
