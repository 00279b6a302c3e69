"""What the merge queue did to one task (``gitwork.queue`` makes them; the ``merge_record`` event
carries them to ``engine.merges``).  Its own module: the event module names it for the type
checker only, and defining a ``NamedTuple`` costs ~0.3 ms, paid only by a merge."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MergeResult"]


class MergeResult(NamedTuple):
    """What the merge queue did to one task (``gitwork.queue``; recorded by ``merge_record``)."""

    task: str
    outcome: str  # "merged", "nochange" or "conflict"
    commit: str | None  # the merge commit, when merged
    head: str | None  # the task branch's head that was merged
    files: tuple[str, ...]  # the conflicting files, when in conflict
