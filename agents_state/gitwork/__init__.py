"""Git isolation of phase 2.1 (issue 22): a worktree per task, merged back in dependency order.

The shell around git (the names and the merge order are pure, in ``engine.worktrees``): ``git``
runs the ``git`` program (explicit arguments, no shell); ``rooms`` makes the integration branch
and the task worktrees; ``queue`` is the merge queue; ``steps`` is what the task commands add;
``orphans`` is doctor's look at worktrees and branches the state no longer names.
"""

import os

__all__ = ["isolated"]


def isolated(root_dir: str) -> bool:
    """Whether the project's tasks work in worktrees (``.agents/worktrees/`` is made when the
    tasks are loaded under isolation): ``task done`` loads the git steps only then."""
    return os.path.isdir(os.path.join(root_dir, ".agents", "worktrees"))
