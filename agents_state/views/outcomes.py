"""Moved to ``agents_state.engine.outcomes`` (issue 26: the engine's next action needs the final
summary, and the engine imports nothing above it); kept so that old imports keep working."""

from __future__ import annotations

from agents_state.engine.outcomes import (
    TASK_SUMMARY,
    derived_files,
    final_summary,
    output_key,
    stage_output,
    task_counts,
    task_summary,
)

__all__ = [
    "TASK_SUMMARY",
    "derived_files",
    "final_summary",
    "output_key",
    "stage_output",
    "task_counts",
    "task_summary",
]
