"""Issue 27: one injection per session start, with the two hooks of one start running at once;
and parallel agents refused at once each keep their refusal.

``claude -p --continue "/compact"`` fires SessionStart ``resume`` and ``compact`` in one session
with no tool call between them, and the host may run both hooks at the same time.  Each round
here starts both as real processes of the installed CLI and lets them read their payloads only
once both are running: exactly one of the two injects the workflow, whichever wins the lock.
A later ``resume`` of the same session (the next ``claude -p --continue``) injects again, and so
does a compaction after the conversation made tool calls.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from clitools import CLI, run_cli

ROUNDS = 6
ENV = {**os.environ, "AGENTS_STATE_LOCK_TIMEOUT": "120"}


def _payload(root: Path, source: str, session: str) -> str:
    return json.dumps(
        {
            "hook_event_name": "SessionStart",
            "session_id": session,
            "transcript_path": str(root / "t.jsonl"),
            "cwd": str(root),
            "source": source,
        }
    )


def _at_once(root: Path, event: str, payloads: list[str]) -> list[str]:
    """Start one ``hook EVENT`` process per payload, then give them their payloads together;
    their standard outputs, in order (each must exit 0 with nothing on standard error)."""
    procs = [
        subprocess.Popen(
            [CLI, "hook", event],
            cwd=root,
            env=ENV,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in payloads
    ]
    for proc, payload in zip(procs, payloads, strict=True):
        assert proc.stdin is not None
        proc.stdin.write(payload)
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
    outs = []
    for proc in procs:
        out = proc.stdout.read() if proc.stdout else ""
        err = proc.stderr.read() if proc.stderr else ""
        assert proc.wait(timeout=300) == 0 and err == "", err
        outs.append(out)
    return outs


def _hooks(root: Path, *sources: str, session: str) -> list[str]:
    """SessionStart hooks for ``sources`` at once: their injected texts (empty when a hook
    injected nothing), in the order of ``sources``."""
    payloads = [_payload(root, source, session) for source in sources]
    return [_injected(out) for out in _at_once(root, "session-start", payloads)]


def _injected(out: str) -> str:
    if not out.strip():
        return ""
    data: dict[str, Any] = json.loads(out)
    return str(data["hookSpecificOutput"]["additionalContext"])


def test_resume_and_compact_at_once_inject_once(root: Path) -> None:
    assert run_cli(root, "dispatch", "Add a health endpoint").returncode == 0
    for n in range(ROUNDS):
        session = f"s{n}"
        run_cli(root, "hook", "post-tool-use", stdin=json.dumps({"cwd": str(root)}))
        said = _hooks(root, "resume", "compact", session=session)
        assert sum(1 for s in said if s) == 1, (n, said)
        assert any("Add a health endpoint" in s for s in said)
        # the start is counted from zero again: the compaction's fresh context
        assert not (root / ".agents" / "toolcalls.log").read_text()
        mark = json.loads((root / ".agents" / "session-start.json").read_text())
        assert mark["session"] == session and mark["paired"] is True and mark["calls"] == 0
        # the next `claude -p --continue` of the same session resumes it: injected again
        (again,) = _hooks(root, "resume", session=session)
        assert "Add a health endpoint" in again


def test_a_compaction_after_tool_calls_injects_again(root: Path) -> None:
    assert run_cli(root, "dispatch", "Add a health endpoint").returncode == 0
    (first,) = _hooks(root, "resume", session="s")
    assert first
    run_cli(root, "hook", "post-tool-use", stdin=json.dumps({"cwd": str(root)}))
    (later,) = _hooks(root, "compact", session="s")
    assert "Add a health endpoint" in later


def test_agents_refused_at_once_each_keep_their_refusal(root: Path) -> None:
    """Headless, parallel task agents are refused at the same moment: each PermissionRequest
    hook (a real process) keeps its own agent's refusal in .agents/refusals.json."""
    assert run_cli(root, "dispatch", "Add a health endpoint").returncode == 0
    agents = [f"a{n}" for n in range(8)]
    payloads = [
        json.dumps(
            {
                "hook_event_name": "PermissionRequest",
                "session_id": "s",
                "cwd": str(root),
                "agent_id": agent,
                "agent_type": "subagents:task-agent",
                "tool_name": "Write",
                "tool_input": {"file_path": str(root / f"{agent}.py"), "content": "x"},
            }
        )
        for agent in agents
    ]
    assert _at_once(root, "permission-request", payloads) == [""] * len(agents)  # answers nothing
    kept = json.loads((root / ".agents" / "refusals.json").read_text())["refused"]
    assert sorted(r["agent"] for r in kept) == agents
    assert {r["target"] for r in kept} == {str(root / f"{a}.py") for a in agents}
