"""What one command made durable: once anything is, a failure after it must not be reported as
"the state is unchanged".

The CLI's runner makes one ``CommitLog`` per command and hands it down (Click's ``obj`` ->
``App`` -> the stores it opens); a store notes each commit in the log it was given.  A store
opened without one (a hook, a test) notes nothing: no command's report depends on it.  This
replaced a process-wide list the runner read through ``sys.modules`` (issue 26).
"""

from __future__ import annotations

__all__ = ["CommitLog"]


class CommitLog:
    """The commits of one command, oldest first (a plain class: on every command's path)."""

    __slots__ = ("saved",)

    def __init__(self) -> None:
        self.saved: list[str] = []

    def note(self, what: str) -> None:
        self.saved.append(what)

    @property
    def last(self) -> str | None:
        return self.saved[-1] if self.saved else None
