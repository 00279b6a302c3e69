"""What ``resume`` says about a stop or failure point, and the options (pure)."""

from __future__ import annotations

from typing import Any

from agents_state.models import State

__all__ = ["explain"]


def explain(state: State) -> dict[str, Any]:
    phase = state.failure.phase if state.failure and state.failure.phase else state.currentPhase
    if state.abortedAt or state.status == "completed":
        ended = "aborted" if state.abortedAt else "completed"
        text = f"The workflow is {ended}: nothing to resume."
        return {"status": state.status, "phase": phase, "explanation": text, "options": []}
    if state.failure:
        f = state.failure
        text = f"Failed in phase {f.phase} at {f.failedAt}: {f.error}"
        if f.context and f.context.failedTask:
            text += (f"\n  completed tasks: {', '.join(f.context.completedTasks) or '-'}"
                     f"\n  failed task: {f.context.failedTask}"
                     f"\n  pending tasks: {', '.join(f.context.pendingTasks) or '-'}")
    elif state.status == "blocked":
        text = f"Blocked in phase {phase}: {state.blockedReason}"
    elif state.status == "stopped":
        text = f"Stopped before phase {phase} on request."
    elif state.clarify is not None:
        text = f"Waiting for the user's answer in phase {phase}: " + " | ".join(
            state.clarify.questions)
        return {"status": state.status, "phase": phase, "explanation": text, "options": [
            {"command": 'agents-state resume --answer "..."', "effect": "record the answer and "
             "run the step again"}]}
    else:
        text = (f"The workflow is in progress at phase {phase} (if the process driving it died, "
                "just continue with: agents-state next).")
    options = [
        {"command": "agents-state resume --retry", "effect": f"run phase {phase} again "
         "(attempts are counted)"},
        {"command": "agents-state resume --skip", "effect": f"mark phase {phase} (or its failed "
         "tasks) skipped and go on"},
        {"command": "agents-state resume --abort", "effect": "end the workflow, keep every file"},
    ]
    return {"status": state.status, "phase": phase, "explanation": text, "options": options}
