"""The process's time budget: a hook must answer before the host stops waiting (issue 23).

Claude Code gives each hook a timeout (``hooks/hooks.json``); a deny that arrives after it is
lost, and the call goes ahead.  ``run_hook`` starts a budget below that timeout; the stores take
the lock, connect and wait for each answer within what is left of it (``cap``).  Commands run
with no budget: their own timeouts apply.
"""

from __future__ import annotations

import time

__all__ = ["cap", "remaining", "start", "stop"]

_END: list[float] = []


def start(seconds: float) -> None:
    _END[:] = [time.monotonic() + seconds]


def stop() -> None:
    _END.clear()


def remaining() -> float | None:
    """Seconds left of the budget (never negative), or ``None`` with no budget."""
    return max(0.0, _END[0] - time.monotonic()) if _END else None


def cap(seconds: float) -> float:
    """``seconds``, or what is left of the budget when that is less."""
    left = remaining()
    return seconds if left is None else min(seconds, left)
