"""What a next action decides when its model is not an Agent model, or its agents may be gone
(issue 27; docs/decisions.md), pure; ``views.nextaction`` words it.

A Codex model (``codex-high``, ``codex-xhigh``) is not an Agent model: a review configured with it
runs through ``agents-state review run`` (issue 37) and names the agent and model to use without
Codex; a task, whose agent must run its own ``task done``, runs as a task agent with the fallback
model, and design 004's Codex consult step is recorded as unsupported (``codexConsult``, see
docs/decisions.md "Codex reviews").  A wait on claimed tasks says how to take them back when the
session that launched their agents died.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CONSULT_UNSUPPORTED",
    "FALLBACK_AGENT_MODEL",
    "as_task_agent",
    "claimed",
    "with_fallback",
]

FALLBACK_AGENT_MODEL = "opus"  # the strongest family the Agent tool takes
CONSULT_UNSUPPORTED = (
    "Codex is not consulted during a task: Codex has no MCP tool since 0.154, and a task agent "
    "running codex exec would spend money and run a program outside the plugin's approvals; "
    "Codex reviews the work at the review phases instead (agents-state review run)"
)


def with_fallback(agents: dict[str, Any]) -> dict[str, Any]:
    """``agents`` plus ``fallback`` (the step's own agent, with the fallback model) when its model
    is not an Agent model."""
    if agents.get("agentModel") is None and agents.get("subagentType"):
        agents["fallback"] = {
            "subagentType": agents["subagentType"],
            "agentModel": FALLBACK_AGENT_MODEL,
        }
    return agents


def as_task_agent(model: dict[str, Any]) -> dict[str, Any]:
    """A task's model fields: a Codex model runs as a task agent with the fallback model (its
    ``task done`` is the agent's to run); the consult step is recorded as unsupported."""
    if model.get("agentModel") is not None:
        return model
    out = {k: v for k, v in model.items() if k != "fallback"}
    consult = {"supported": False, "reason": CONSULT_UNSUPPORTED}
    return {**out, "agentModel": FALLBACK_AGENT_MODEL, "codexConsult": consult}


def claimed(phase: Any) -> bool:
    """Whether a task of the phase is claimed (in progress): a driver killed between ``task
    claim`` and ``task done`` comes back to a wait on it."""
    return any(t.status == "in_progress" for t in (phase.tasks or {}).values())
