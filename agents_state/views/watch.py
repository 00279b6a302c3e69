"""The watchdog adapter: wake up when ``.agents/state.json`` may have changed (or the usage
book beside it, ``usage.json``, whose running total the view shows).

Writers never modify the state file in place: they write a temp file and ``os.replace`` it onto
``state.json``, so the event that matters is a *move into* ``state.json`` (``FileMovedEvent`` with
``dest_path``), not only a modification.  Events on temp files, the lock and the event log are
ignored.

Events only wake the watcher; what decides is the file's signature (inode, mtime, size), taken
before the caller reads the file, so the last write is never missed:

- Bursts (50 sub-agents finishing at once) are debounced: after an event the watcher waits until
  the file has been quiet for ``debounce`` seconds, but never longer than ``max_delay``, so a
  continuous stream of writes still redraws several times a second.
- Polling is the fallback where the file system gives no events (network file systems, an
  inotify watch limit reached, ``use_events=False``), and the safety net when events are lost
  (an inotify queue overflow): every ``poll_interval`` seconds the signature is compared anyway.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["Signature", "StateWatcher", "signature"]

STATE_NAME = "state.json"
USAGE_NAME = "usage.json"  # the token usage the hooks book (issue 24): its total is shown too
Signature = tuple[int, int, int] | None


def signature(path: Path) -> Signature:
    """(inode, mtime in ns, size) of the file, or None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _touches_state(event: Any) -> bool:
    for attr in ("dest_path", "src_path"):
        p = getattr(event, attr, "") or ""
        if isinstance(p, bytes):
            p = os.fsdecode(p)
        if os.path.basename(p) in (STATE_NAME, USAGE_NAME):
            return True
    return False


class StateWatcher:
    """Blocks in ``wait`` until the state file's signature differs from the last one seen."""

    def __init__(
        self,
        agents_dir: Path,
        *,
        use_events: bool = True,
        poll_interval: float = 0.5,
        debounce: float = 0.05,
        max_delay: float = 0.25,
    ) -> None:
        self.dir = agents_dir
        self.path = agents_dir / STATE_NAME
        self.usage_path = agents_dir / USAGE_NAME
        self.last_usage: Signature = None
        self.use_events = use_events
        self.poll_interval = poll_interval
        self.debounce = debounce
        self.max_delay = max_delay
        self.last: Signature = None
        self.events_seen = 0
        self._wake = threading.Event()
        self._observer: Any = None
        self._failed: str | None = None

    # -- mode ---------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        if self._observer is not None:
            return "events"
        return "polling" + (f" ({self._failed})" if self._failed else "")

    def start(self) -> None:
        self._schedule()

    def stop(self) -> None:
        obs, self._observer = self._observer, None
        if obs is not None:
            obs.stop()
            obs.join(timeout=2)

    def _schedule(self) -> None:
        """Start the observer once ``.agents/`` exists; fall back to polling if it cannot."""
        if not self.use_events or self._observer is not None or self._failed:
            return
        if not self.dir.is_dir():
            return  # polled until a workflow is dispatched here
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                watcher.on_event(event)

        observer = Observer()
        try:
            observer.schedule(Handler(), str(self.dir), recursive=False)
            observer.start()
        except OSError as e:  # e.g. the inotify watch or instance limit is reached
            self._failed = f"no file system events: {e.strerror or e}"
            return
        self._observer = observer

    def on_event(self, event: Any) -> None:
        if _touches_state(event):
            self.events_seen += 1
            self._wake.set()

    # -- waiting ------------------------------------------------------------------------------

    def seen(self, sig: Signature) -> None:
        self.last = sig
        self.last_usage = signature(self.usage_path)

    def wait(self, timeout: float) -> Signature | None:
        """The new signature once it differs from the last seen, or None after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            self._schedule()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if self._wake.wait(min(left, self.poll_interval)):
                self._settle()
            sig = signature(self.path)
            if sig != self.last or (
                sig is not None and signature(self.usage_path) != self.last_usage
            ):
                return sig

    def _settle(self) -> None:
        """Debounce: wait for a quiet ``debounce`` window, at most ``max_delay`` in all."""
        first = time.monotonic()
        self._wake.clear()
        while time.monotonic() - first < self.max_delay and self._wake.wait(self.debounce):
            self._wake.clear()
