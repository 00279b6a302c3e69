"""Who runs a step: the plugin's sub-agent types, the Agent tool's model for a configured model,
and the inline phases a configuration hands to an agent (pure; the next action and the dispatch
plan read them)."""

from __future__ import annotations

from typing import Any

from agents_state.config import Config, resolve_model
from agents_state.engine.fallback import with_fallback
from agents_state.workflow import SIZING_PHASE

__all__ = [
    "AGENT_TOOL_MODELS",
    "SUBAGENT_TYPES",
    "agent_tool_model",
    "agents_for",
    "inline_as_agent",
    "model_of",
]

# Claude Code sub-agent types of the plugin, by the engine's agent type
SUBAGENT_TYPES = {
    "explore": "subagents:explore-agent",
    "plan": "subagents:plan-agent",
    "task": "subagents:task-agent",
    "reviewer": "subagents:pr-reviewer",
}


# The Agent tool's ``model`` takes a family, never a versioned id (Claude Code 2.1.330)
AGENT_TOOL_MODELS = ("sonnet", "opus", "haiku", "inherit")


def agent_tool_model(name: str) -> str | None:
    """The value to pass as the Agent tool's ``model`` for a configured model, or ``None`` when
    the model is not a sub-agent model (a Codex model, issue 37)."""
    low = name.strip().lower()
    if low == "inherit":
        return "inherit"
    if low.startswith(("codex", "mcp__")):
        return None
    return next((f for f in AGENT_TOOL_MODELS[:3] if f in low), None)


def model_of(name: str) -> dict[str, str | None]:
    return {"model": name, "modelId": resolve_model(name), "agentModel": agent_tool_model(name)}


def agents_for(count: int, kind: str | None, model: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "count": count,
        "type": kind,
        "subagentType": SUBAGENT_TYPES.get(kind or ""),
        **model_of(model),
    }
    return with_fallback(out)


def inline_as_agent(config: Config, phase_id: str) -> tuple[str, str] | None:
    """(agent type, model) when the config runs an inline phase as an agent (1.1, 2.2)."""
    if phase_id == SIZING_PHASE and not config.stages.PLAN.brainstorm.inline:
        b = config.stages.PLAN.brainstorm
        return "plan", b.model or config.stages.PLAN.planning.model or config.defaults.model
    if phase_id == "2.2" and not config.stages.IMPLEMENT.simplify.inline:
        sim = config.stages.IMPLEMENT.simplify
        return "task", sim.model or config.defaults.model
    return None
