"""Only the owner finishes a task (issue 32, item 4), through the approvals hook as the host
calls it: a sub-agent's task commands are approved with its own id added, and its report of a
task it does not hold is denied with the reason; the engine then runs the rewritten command."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

from clitools import CLI, wave_of
from hookcalls import answer_of, launch_hook, tool_call


def _hook(root: Path, command: str, agent_id: str | None = None) -> dict[str, Any] | None:
    who = {"agent_id": agent_id, "agent_type": "subagents:task-agent"} if agent_id else {}
    call = tool_call(root, "Bash", {"command": command, "description": "x"}, **who)
    proc = launch_hook(root, "permission", call)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return answer_of(proc)


def _run_as_host(root: Path, answer: dict[str, Any] | None, command: str) -> Any:
    """What the host runs after the hook's answer: the rewritten command, if any."""
    assert answer is not None and answer["permissionDecision"] == "allow", answer
    argv = shlex.split(answer.get("updatedInput", {}).get("command", command))
    assert argv[0] == "agents-state"
    proc = subprocess.run(
        [CLI, *argv[1:]], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )
    return proc


def _task(root: Path, tid: str) -> Any:
    data = json.loads((root / ".agents" / "state.json").read_text())
    return data["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"][tid]


def test_only_the_agent_that_started_a_task_may_report_it(root: Path) -> None:
    wave_of(root, 2)
    for agent, tid in (("a1", "t0"), ("b2", "t1")):
        command = f"agents-state task start {tid}"
        answer = _hook(root, command, agent)
        assert answer is not None
        assert answer["updatedInput"] == {
            "command": f"{command} --agent agent-{agent}",
            "description": "x",
        }
        assert _run_as_host(root, answer, command).returncode == 0
        assert _task(root, tid)["owner"] == f"agent-{agent}"  # the engine's record
    # a sibling's report of t0, and of a task nobody started, are denied with the reason
    assert _hook(root, "agents-state task done t0 --summary 'did it'", "b2") == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "agents-state: task done t0 is only for the agent that "
        "holds t0, and another agent holds it; this agent holds task t1: report only your own "
        "task, and say the rest in your handoff",
    }
    answer = _hook(root, "agents-state task fail final --error x", "b2")
    assert answer is not None and answer["permissionDecision"] == "deny"
    assert (
        "and nobody started it (an agent runs agents-state task start first)"
        in (answer["permissionDecisionReason"])
    )
    answer = _hook(root, "agents-state task start t0", "b2")
    assert answer is not None and answer["permissionDecisionReason"] == (
        "agents-state: task t0 is held by another agent; stop and report blocked"
    )
    answer = _hook(root, "agents-state task done t0 --agent agent-a1", "b2")  # posing as a1
    assert answer is not None and answer["permissionDecision"] == "deny"
    assert _task(root, "t0")["status"] == "in_progress"
    # the holder's own report is approved, with its id, and the engine takes it
    command = "agents-state task done t0 --summary 'did it'"
    proc = _run_as_host(root, _hook(root, command, "a1"), command)
    assert proc.returncode == 0, proc.stderr
    assert _task(root, "t0")["status"] == "completed"
    # the main conversation: not approved while a sub-agent holds the task (the user decides),
    # and a person's --force is never approved
    assert _hook(root, "agents-state task done t1") is None
    assert _hook(root, "agents-state task done final --force") is None
    assert _hook(root, "agents-state task done final --force", "b2") is None
    answer = _hook(root, "agents-state task done t0")  # held by no sub-agent any more
    assert answer is not None and answer["permissionDecision"] == "allow"
    assert "updatedInput" not in answer
