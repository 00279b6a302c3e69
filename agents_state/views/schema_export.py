"""JSON Schema of the files people and models write, generated from the models (pure).

The schemas describe the canonical shape (what agents-state itself writes and what an editor
should suggest).  The readers are more lenient than the schemas (a legacy string ``failure``,
``"In Progress"`` for ``in_progress``, ``files: []``): a file that validates is always read, not
every file that is read validates.  ``schemas/`` in the repository holds the committed copies, kept
equal to these by a test; regenerate them with ``agents-state schema --write schemas``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["DIALECT", "SCHEMA_NAMES", "file_name", "generate", "generate_all", "render"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _state() -> type[Any]:
    from agents_state.models import State

    return State


def _config() -> type[Any]:
    from agents_state.config import Config

    return Config


def _request() -> type[Any]:
    from agents_state.handoff.models import HandoffRequest

    return HandoffRequest


def _response() -> type[Any]:
    from agents_state.handoff.models import HandoffResponse

    return HandoffResponse


# name -> (model loader, title, description); one entry per committed file
_SOURCES: dict[str, tuple[Callable[[], type[Any]], str, str]] = {
    "state": (
        _state,
        "agents-state workflow state",
        "The workflow state in .agents/state.json (design 004 v2 schema plus engine fields).",
    ),
    "config": (
        _config,
        "agents-state configuration",
        "Configuration in .agents/config.json, .claude/subagents-config.json or "
        "~/.claude/subagents-config.json (design 004 configuration schema).",
    ),
    "handoff-request": (
        _request,
        "agents-state handoff request",
        "Orchestrator to sub-agent handoff request (designs 001 / 003).",
    ),
    "handoff-response": (
        _response,
        "agents-state handoff response",
        "Sub-agent to orchestrator handoff response, the generic shape of designs 001 / 003.",
    ),
}
# issue 37: the review artifact as Codex answers it (``codex exec --output-schema``); not a
# record: a plain JSON Schema the engine's review rules (engine.review) read leniently
REVIEW = (
    "review",
    "agents-state review (as Codex answers it)",
    "A review artifact of phases 1.3, 2.3, 3.3 and 4.2 in the strict shape agents-state review "
    "run gives codex exec --output-schema; null values are left out when it is recorded.",
)
SCHEMA_NAMES: tuple[str, ...] = (*_SOURCES, REVIEW[0])


def file_name(name: str) -> str:
    return f"{name}.schema.json"


def generate(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one of ``SCHEMA_NAMES``; ``KeyError`` otherwise."""
    if name == REVIEW[0]:
        from agents_state.engine.codexreview import REVIEW_SCHEMA

        return {"$schema": DIALECT, "title": REVIEW[1], "description": REVIEW[2], **REVIEW_SCHEMA}
    load, title, description = _SOURCES[name]
    from agents_state.records.schema import json_schema

    body = json_schema(load())  # a record (state, configuration) or a pydantic model (handoffs)
    body.pop("title", None)
    body.pop("description", None)
    return {"$schema": DIALECT, "title": title, "description": description, **body}


def generate_all() -> dict[str, dict[str, Any]]:
    return {name: generate(name) for name in SCHEMA_NAMES}


def render(schema: dict[str, Any]) -> str:
    """The exact text of a committed schema file (stable: diffs show real changes only)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
