"""A fan-out's briefs on disk (issue 34; ``engine.briefs`` names them, ``views.prompts`` writes
their text): each written atomically, one that holds the same text already left alone.  Only
``next``, a recording command and the Workflow approval write them (issue 35: a read command
writes nothing)."""

from __future__ import annotations

import os

__all__ = ["write_briefs"]


def write_briefs(root: str, files: dict[str, str]) -> None:
    """Write ``files`` (absolute path -> text) under the project ``root``."""
    from agents_state.store.fsops import atomic_write

    for path, text in files.items():
        data = text.encode()
        try:
            with open(path, "rb") as f:
                if f.read(len(data) + 1) == data:
                    continue
        except OSError:
            pass
        atomic_write(path, data, os.path.relpath(path, root))
