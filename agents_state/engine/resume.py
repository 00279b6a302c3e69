"""What ``resume`` says about a stop or failure point, and the options (pure)."""

from __future__ import annotations

from typing import Any

from agents_state.models import State
from agents_state.workflow import TASK_PHASE, TEST_RUN

__all__ = ["explain", "options"]


def explain(state: State) -> dict[str, Any]:
    phase = state.failure.phase if state.failure and state.failure.phase else state.currentPhase
    if state.abortedAt or state.status == "completed":
        ended = "aborted" if state.abortedAt else "completed"
        text = f"The workflow is {ended}: nothing to resume."
        return {"status": state.status, "phase": phase, "explanation": text, "options": []}
    if state.gate is not None:  # issue 36: a person's answer, no option of the model's
        from agents_state.engine.gatewait import person_line

        pid = state.gate.phase
        text = (
            f"Waiting at the gate after phase {pid} since {state.gate.since}: "
            + person_line(pid)
            + "."
        )
        return {"status": state.status, "phase": pid, "explanation": text, "options": []}
    if state.failure:
        f = state.failure
        text = f"Failed in phase {f.phase} at {f.failedAt}: {f.error}"
        if f.context and f.context.failedTask:
            text += (
                f"\n  completed tasks: {', '.join(f.context.completedTasks) or '-'}"
                f"\n  failed task: {f.context.failedTask}"
                f"\n  pending tasks: {', '.join(f.context.pendingTasks) or '-'}"
            )
    elif state.status == "blocked":
        text = f"Blocked in phase {phase}: {state.blockedReason}"
    elif state.status == "stopped":
        text = f"Stopped before phase {phase} on request."
    elif state.clarify is not None:
        text = f"Waiting for the user's answer in phase {phase}: " + " | ".join(
            state.clarify.questions
        )
        return {
            "status": state.status,
            "phase": phase,
            "explanation": text,
            "options": [
                {
                    "command": 'agents-state resume --answer "..."',
                    "effect": "record the answer and run the step again",
                }
            ],
        }
    else:
        text = (
            f"The workflow is in progress at phase {phase} (if the process driving it died, "
            "just continue with: agents-state next)."
        )
        claimed = _claimed(state)
        if claimed:  # issue 27: their agents died with the driver; `next` would wait out the lease
            text += (
                f" Task(s) {', '.join(claimed)} are claimed by task agents: if those died too, "
                "take the tasks back with: agents-state resume --retry (else they wait for "
                "their lease to end)."
            )
    return {
        "status": state.status,
        "phase": phase,
        "explanation": text,
        "options": options(state, phase),
    }


def _claimed(state: State) -> list[str]:
    tasks = state.phase(TASK_PHASE).tasks or {}
    return [t for t, s in tasks.items() if s.status == "in_progress"]


def options(state: State, phase: str | None) -> list[dict[str, str]]:
    """The resume options of a stopped, failed or blocked workflow and what each does."""
    tests = phase == TEST_RUN and state.phase(TEST_RUN).passed is False
    retry = (
        "another round: fix the failures (phase 3.2), then run the tests again"
        if tests
        else f"continue from phase {phase}"
        if state.status == "stopped"
        else f"run phase {phase} again (attempts are counted)"
    )
    skip = (
        "accept the failing tests and go on to phase 3.3 (the final status records it)"
        if tests
        else f"mark phase {phase} (or its failed tasks) skipped and go on"
    )
    return [
        {"option": "retry", "command": "agents-state resume --retry", "effect": retry},
        {"option": "skip", "command": "agents-state resume --skip", "effect": skip},
        {
            "option": "abort",
            "command": "agents-state resume --abort",
            "effect": "end the workflow, keep every file",
        },
    ]
