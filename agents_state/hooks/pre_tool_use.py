"""PreToolUse: deny a tool call beyond the calling sub-agent's permission profile (REQ-3.6).

First, for every conversation and agent: a Bash call that makes a person's decision (a gate's
answer, ``resume --skip``, ``budget --raise``...) is denied (``hooks.persongate``, issues 32, 36).

The main conversation's calls (no ``agent_id`` / ``agent_type``) are not judged by profiles.  A
sub-agent's call is judged by ``profile_check.subagent_denial``: allowed silently when no
workflow is active or the agent type has no profile; otherwise checked on what it will touch,
and denied -- fail closed -- when the hook cannot decide.  A denial is Claude Code's
``hookSpecificOutput`` with ``permissionDecision: deny`` and a one-line reason the model can act
on; nothing is printed for an allow.  An allowed Bash call of a profile that keeps agents off
credentials is answered with ``updatedInput`` instead: the command rewritten to run in a
bubblewrap sandbox, with no permission decision (``hooks.sandbox``, issue 23).
"""

from __future__ import annotations

from agents_state.hooks._base import emit, parse_payload, warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["deny_output", "handle"]


def deny_output(reason: str) -> dict[str, object]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def _payload(explicit_root: str | None) -> dict[str, Any] | None:
    """The hook's JSON object; ``None`` after a warning or a fail-closed denial."""
    data, raw, problem = parse_payload()
    if problem is None:
        return data
    from agents_state.hooks.profile_check import undecodable_denial

    reason = undecodable_denial(raw, problem, explicit_root)
    if reason is None:
        warn(f"hook input {problem}; allowing")
    else:
        emit(deny_output(reason))
    return None


def handle(event: str, explicit_root: str | None) -> None:
    payload = _payload(explicit_root)
    if payload is None:
        return
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if (
        payload.get("tool_name") == "Bash"
        and isinstance(command, str)
        and ("agents" in command or any(c in command for c in "'\"\\"))  # could name it
    ):
        from agents_state.hooks.persongate import denial  # issues 32, 36: the person's decisions

        refused = denial(command)
        if refused is not None:  # for every conversation and agent: deny beats any allow
            emit(deny_output(refused))
            return
    if not any(
        isinstance(payload.get(k), str) and payload[k].strip() for k in ("agent_id", "agent_type")
    ):
        return  # the main conversation: its tools are the user's business
    from agents_state.hooks import profile_check  # a sub-agent's call: judge it

    try:
        reason = profile_check.subagent_denial(payload, explicit_root)
    except Exception as e:  # a bug must not open the profile: fail closed, in one line
        reason = (
            f"agents-state: the tool profile check failed ({type(e).__name__}: {e}); "
            "denied. Retry once; if it fails again, finish with decision STOP and say so."
        )
    if isinstance(reason, str):
        emit(deny_output(reason))
    elif reason is not None:  # a contained Bash call (hooks.sandbox): rewritten, not granted
        from agents_state.hooks.sandbox import rewrite_output

        emit(rewrite_output(payload["tool_input"], reason.command))
