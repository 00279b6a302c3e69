"""A whole workflow as ``store copy`` moves it between stores."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Snapshot"]


@dataclass
class Snapshot:
    state: bytes
    revision: int
    events: list[dict[str, Any]]
    artifacts: dict[str, bytes]
    chains: dict[str, bytes]  # chain id -> its state (``.agents/chains/<id>.json``)
    toolcalls: dict[str, int]  # agent (``main`` or a sub-agent's id) -> calls counted
