"""What the handoff protocol and the chains both name: the quality checker's modes and the writer's
retries.  Here, below ``chains/``, so that ``handoff/`` never imports the chain catalogue (the
catalogue imports these from here)."""

from __future__ import annotations

__all__ = ["CHECK_MODES", "MAX_WRITER_RETRIES"]

CHECK_MODES = ("build", "type", "lint", "test", "security")
MAX_WRITER_RETRIES = 2  # design 002: "If qa fails: retry writer (max 2)"
