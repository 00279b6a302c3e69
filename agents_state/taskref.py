"""Whether a dispatch prompt names a task (pure, standard library only: the PreToolUse hook
uses it on every write of a task agent, and the handoff check on every answer)."""

from __future__ import annotations

import re

__all__ = ["OWNER_PREFIX", "names_task", "owner_of"]

OWNER_PREFIX = "agent-"  # a task's owner when the host's sub-agent holds it (issue 32)

_EDGE = r"[A-Za-z0-9_-]"


def names_task(prompt: str, task_id: str) -> bool:
    """Whether the prompt an agent was dispatched with names ``task_id`` as a whole id (``t1``
    in "task t1." or ``{"task_id": "t1"}``, not in ``t10`` or ``t1-b``)."""
    pattern = rf"(?<![A-Za-z0-9._-]){re.escape(task_id)}(?!{_EDGE}|\.{_EDGE})"
    return re.search(pattern, prompt) is not None


def owner_of(agent_id: str) -> str:
    """The ``owner`` the engine records for the host's sub-agent ``agent_id`` (the approvals
    hook adds ``--agent agent-<agent_id>`` to its task commands)."""
    return f"{OWNER_PREFIX}{agent_id}"
