"""PreToolUse: deny a tool call beyond the calling sub-agent's permission profile (REQ-3.6).

Allowed silently, and fast, when: the call comes from the main conversation (no ``agent_type``),
there is no ``.agents/`` or no active workflow, or the agent type has no profile.  A denial is
Claude Code's ``hookSpecificOutput`` with ``permissionDecision: deny`` and a reason the model can
act on; nothing is printed for an allow.
"""

from __future__ import annotations

from agents_state.hooks._base import active_state, emit, find_root, read_payload

__all__ = ["deny_output", "handle"]


def deny_output(reason: str) -> dict[str, object]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": reason}}


def handle(event: str, explicit_root: str | None) -> None:
    payload = read_payload()
    if payload is None:
        return
    agent_type = payload.get("agent_type")
    tool = payload.get("tool_name")
    if not isinstance(agent_type, str) or not agent_type.strip() or not isinstance(tool, str):
        return  # the main conversation: its tools are the user's business
    root = find_root(explicit_root, payload)
    if root is None or active_state(root) is None:
        return
    from agents_state.hooks.agentmap import agent_name, profile_for
    from agents_state.profiles import check_tool

    profile = profile_for(root, agent_type)
    if profile is None:
        return
    reason = check_tool(profile, agent_name(agent_type), tool, payload.get("tool_input"))
    if reason is not None:
        emit(deny_output(reason))
