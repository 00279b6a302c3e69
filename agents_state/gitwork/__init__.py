"""Git isolation of phase 2.1 (issue 22): a worktree per task, merged back in dependency order.

``plan`` is pure (names, merge order, what git's answers mean); ``git`` runs the ``git`` program
(explicit arguments, no shell); ``queue`` is the shell that ties them to the store: the
integration branch at ``tasks load``, a task's worktree at its claim, its commit at ``task done``
and the merge queue.
"""
