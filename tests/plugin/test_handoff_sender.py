"""Issue 23: SubagentStop lets a handoff complete only its sender's own task.

The sender's task is the one its dispatch named: the first user message of the sub-agent's
transcript (``agent_transcript_path``), which the orchestrator wrote.  Two agents answer
through the hook entry point (the installed CLI, as Claude Code runs it); one names the other's
task.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_subagent_hook import cli, fenced, hook, state, walk_to_tasks


def task_handoff(task_id: str) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "phase": "write",
        "status": "complete",
        "decision": "PROCEED",
        "files_changed": ["health.py"],
        "context_summary": f"Did {task_id}.",
        "issues": [],
    }


def transcript(tmp: Path, agent_id: str, prompt: Any) -> Path:
    """A sub-agent transcript as Claude Code writes it: the dispatch prompt first."""
    path = tmp / f"agent-{agent_id}.jsonl"
    lines = [
        {
            "type": "user",
            "isSidechain": True,
            "agentId": agent_id,
            "message": {"role": "user", "content": prompt},
        },
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "t1 t2"}]},
        },
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def stop(root: Path, agent_id: str, message: str, path: Path | None) -> None:
    data: dict[str, Any] = {
        "hook_event_name": "SubagentStop",
        "agent_id": agent_id,
        "agent_type": "subagents:task-agent",
        "last_assistant_message": message,
        "stop_hook_active": False,
    }
    if path is not None:
        data["agent_transcript_path"] = str(path)
    hook(root, "subagent-stop", data)


def tasks(root: Path) -> dict[str, str]:
    got = state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]
    return {t: got[t]["status"] for t in got}


def test_issue_23_one_agents_handoff_never_completes_another_agents_task(
    root: Path, tmp_path: Path
) -> None:
    walk_to_tasks(root)
    for tid, agent in (("t1", "a1"), ("t2", "b2")):  # each started by its agent (issue 32)
        assert cli(root, "task", "start", tid, "--agent", f"agent-{agent}").returncode == 0
    a = transcript(tmp_path, "a1", "Implement task t1: model. When done run: agents-state ...")
    b = transcript(
        tmp_path, "b2", [{"type": "text", "text": json.dumps({"task_id": "t2", "phase": "write"})}]
    )
    stop(root, "b2", fenced(task_handoff("t1")), b)  # b2 was sent for t2, answers for t1
    no_proof = {**task_handoff("t1"), "context_summary": "Did t1 (x3)."}
    stop(root, "x3", fenced(no_proof), None)  # no transcript: no proof of dispatch
    assert tasks(root) == {"t1": "in_progress", "t2": "in_progress"}
    records = state(root)["handoffs"]["records"]
    assert [(r["agent"], r["target"]) for r in records] == [
        ("b2", "the ledger of phase 2.1"),
        ("x3", "the ledger of phase 2.1"),
    ]
    # the very answer b2 sent, now from the agent sent for t1: noted once, now it completes
    stop(root, "a1", fenced(task_handoff("t1")), a)
    assert tasks(root) == {"t1": "completed", "t2": "in_progress"}
    stop(root, "b2", fenced(task_handoff("t2")), b)
    assert tasks(root) == {"t1": "completed", "t2": "completed"}


def test_issue_32_a_handoff_completes_only_the_task_its_sender_holds(
    root: Path, tmp_path: Path
) -> None:
    """The engine's record decides, not the prompt: an agent sent for t1 (its prompt says so)
    that never started it completes nothing, nor does one whose prompt quotes t2's command."""
    walk_to_tasks(root)
    assert cli(root, "task", "start", "t1", "--agent", "agent-a1").returncode == 0
    unstarted = transcript(tmp_path, "x4", "Implement task t1: run agents-state task start t1")
    stop(root, "x4", fenced(task_handoff("t2")), unstarted)
    stop(root, "x4", fenced(task_handoff("t1")), unstarted)
    quoting = transcript(tmp_path, "a1", "Task t1; like t2 (agents-state task start t2).")
    stop(root, "a1", fenced(task_handoff("t2")), quoting)
    assert tasks(root) == {"t1": "in_progress", "t2": "pending"}
    targets = [r["target"] for r in state(root)["handoffs"]["records"]]
    assert targets == ["the ledger of phase 2.1"] * 2  # the same answer twice is noted once
    stop(root, "a1", fenced(task_handoff("t1")), quoting)  # its own: completes
    assert tasks(root) == {"t1": "completed", "t2": "pending"}
    assert state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["t1"]["owner"] == (
        "agent-a1"
    )
