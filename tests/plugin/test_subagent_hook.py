"""Issue 14, item 1: a hook never completes a phase from one agent's answer.

The core (``record_handoff`` with ``own_task_only``) in process; the hook as real concurrent
processes of the installed CLI, as Claude Code runs it when parallel agents answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agents_state.handoff.protocol import parse_handoff
from agents_state.handoff.record import ledger_note, record_handoff
from agents_state.models import State

_EXE = Path(sys.executable).with_name("agents-state")
CMD = [str(_EXE)] if _EXE.exists() else [sys.executable, "-m", "agents_state"]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def explore_handoff(n: int) -> dict[str, Any]:
    return {
        "task_id": f"explore-{n}",
        "phase": "research",
        "status": "complete",
        "decision": "PROCEED",
        "findings": {"area": f"area {n}"},
        "context_summary": f"Area {n} mapped: src/a{n}.py holds it.",
        "issues": [],
    }


def cli(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CMD, "--root", str(root), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
        check=False,
    )


def hook(root: Path, event: str, data: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    data = {"session_id": "s", "transcript_path": "/tmp/t", "cwd": str(root), **data}
    r = subprocess.run(
        [*CMD, "hook", event],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return r


def stop(
    root: Path, agent_type: str, message: str, agent_id: str = "a1"
) -> subprocess.CompletedProcess[str]:
    return hook(
        root,
        "subagent-stop",
        {
            "hook_event_name": "SubagentStop",
            "agent_id": agent_id,
            "agent_type": agent_type,
            "last_assistant_message": message,
            "stop_hook_active": False,
        },
    )


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def fenced(data: dict[str, Any]) -> str:
    return "Done.\n```json\n" + json.dumps(data) + "\n```"


def test_core_a_phase_answer_lands_in_the_ledger_only(root: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    s = State.model_validate(state(root))
    h = parse_handoff(json.dumps(explore_handoff(1)), "handoff")
    out = record_handoff(s, h, NOW, agent="a1", own_task_only=True)
    assert out.changed
    assert out.state.currentPhase == "0"
    assert out.state.phase("0").status != "completed"
    assert out.message == (
        "PROCEED recorded on the ledger of phase 0: 1 handoff(s) noted for phase 0; the phase "
        "completes only when the orchestrator records its merged artifact: agents-state phase "
        "complete 0 --artifact .agents/phases/0-explore.md"
    )
    assert ledger_note(out.state, "0").startswith("1 handoff(s) noted for phase 0;")
    # a STOP or CLARIFY from one agent neither blocks the workflow nor asks the user
    for decision, extra in (
        ("STOP", {"status": "blocked", "issues": ["no access"]}),
        ("CLARIFY", {"status": "partial", "questions": ["which IdP?"]}),
    ):
        other = parse_handoff(
            json.dumps({**explore_handoff(2), "decision": decision, **extra}), "handoff"
        )
        o = record_handoff(out.state, other, NOW, own_task_only=True)
        assert (o.state.status, o.state.clarify, o.state.currentPhase) == (
            out.state.status,
            None,
            "0",
        )


def test_parallel_explore_answers_leave_phase_0_to_the_orchestrator(root: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    with ThreadPoolExecutor(4) as pool:  # four hook processes at the same moment
        list(
            pool.map(
                lambda n: stop(
                    root, "subagents:explore-agent", fenced(explore_handoff(n)), f"agent-{n}"
                ),
                range(1, 5),
            )
        )
    s = state(root)
    assert s["currentPhase"] == "0"
    assert s["stages"]["EXPLORE"]["phases"]["0"]["status"] != "completed"
    records = s["handoffs"]["records"]
    assert sorted(r["agent"] for r in records) == [f"agent-{n}" for n in range(1, 5)]
    assert {(r["phase"], r["target"], r["decision"]) for r in records} == {
        ("0", "the ledger of phase 0", "PROCEED")
    }
    assert not (root / ".agents" / "phases" / "0-explore.md").exists()
    log = [json.loads(x) for x in (root / ".agents" / "subagents.jsonl").read_text().splitlines()]
    assert {(e["recorded"], e["target"]) for e in log} == {(True, "the ledger of phase 0")}

    # the next action says how many answered, so an orchestrator knows when to stop waiting
    action = json.loads(cli(root, "next", "--json").stdout)
    assert (action["phase"], action["answered"]) == ("0", 4)
    assert "Answers noted so far: 4." in action["instructions"]

    # the orchestrator's own step is what completes the phase
    (root / "merged.md").write_text("# Explore\n## area 1\n...\n")
    done = cli(root, "phase", "complete", "0", "--artifact", "merged.md")
    assert done.returncode == 0, done.stderr
    assert state(root)["stages"]["EXPLORE"]["phases"]["0"]["status"] == "completed"


def test_compact_summary_and_foreign_agents_change_nothing(root: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    before = (root / ".agents" / "state.json").read_bytes()
    summary = "Summary of the conversation so far: the explore agent answered\n" + fenced(
        explore_handoff(1)
    )
    for agent_type in ("", "general-purpose", "Explore", "other-plugin:explorer", "subagents:"):
        r = stop(root, agent_type, summary)
        assert (r.stdout, r.stderr) == ("", "")
        hook(root, "subagent-start", {"agent_id": "x", "agent_type": agent_type})
    invalid = json.dumps({**explore_handoff(1), "decision": "GO"})
    assert stop(root, "", invalid).stdout == ""  # not even a block for the summariser
    assert (root / ".agents" / "state.json").read_bytes() == before
    assert not (root / ".agents" / "subagents.jsonl").exists()


def walk_to_tasks(root: Path) -> None:
    assert cli(root, "dispatch", "Add a health endpoint").returncode == 0
    for _ in range(20):
        action = json.loads(cli(root, "next", "--json").stdout)
        if action.get("tasks"):
            return
        if action.get("write"):
            out = root / action["write"]
            if action["command"].startswith("agents-state tasks load"):
                out.write_text(
                    json.dumps(
                        {
                            "tasks": [
                                {
                                    "id": "t1",
                                    "title": "model",
                                    "complexity": "easy",
                                    "dependencies": [],
                                },
                                {
                                    "id": "t2",
                                    "title": "route",
                                    "complexity": "easy",
                                    "dependencies": [],
                                },
                            ]
                        }
                    )
                )
            else:
                out.write_text('{"issues": []}' if out.suffix == ".json" else "# done\n")
        assert cli(root, *action["command"].split()[1:]).returncode == 0
    raise AssertionError("never reached phase 2.1")


def test_a_task_answer_completes_its_own_task_only(root: Path) -> None:
    walk_to_tasks(root)
    task = {
        "task_id": "t1",
        "phase": "write",
        "status": "complete",
        "decision": "PROCEED",
        "files_changed": ["health.py"],
        "context_summary": "Added it.",
        "issues": [],
    }
    sent = root.parent / "agent-a1.jsonl"  # issue 23: its dispatch prompt names t1
    sent.write_text(json.dumps({"type": "user", "message": {"content": "Do task t1."}}) + "\n")
    assert cli(root, "task", "start", "t1", "--agent", "agent-a1").returncode == 0  # issue 32
    hook(
        root,
        "subagent-stop",
        {
            "hook_event_name": "SubagentStop",
            "agent_id": "a1",
            "agent_type": "subagents:task-agent",
            "last_assistant_message": fenced(task),
            "agent_transcript_path": str(sent),
            "stop_hook_active": False,
        },
    )
    tasks = state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]
    assert (tasks["t1"]["status"], tasks["t2"]["status"]) == ("completed", "pending")
    # a reviewer's answer during the wave (no task id of 2.1) completes nothing
    review = {**task, "task_id": "review-2.3", "phase": "validate"}
    stop(root, "subagents:pr-reviewer", fenced(review), "a2")
    s = state(root)
    assert s["currentPhase"] == "2.1"
    assert s["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["t2"]["status"] == "pending"


def test_failed_tool_calls_count_like_any_other(root: Path) -> None:
    """Issue 14, item 5: PostToolUseFailure (a non-zero Bash exit, a refused call) counts."""
    from agents_state.hooks import tool_calls

    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    hook(root, "post-tool-use", {"hook_event_name": "PostToolUse", "tool_name": "Bash"})
    hook(
        root,
        "post-tool-use-failure",
        {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "error": "exit 1",
            "is_interrupt": False,
        },
    )
    hook(
        root,
        "post-tool-use-failure",
        {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Read",
            "agent_id": "a1",
            "agent_type": "subagents:explore-agent",
        },
    )
    assert (tool_calls(root), tool_calls(root, "a1")) == (2, 1)
