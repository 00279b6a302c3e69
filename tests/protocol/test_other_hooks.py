"""post-tool-use counting, session-start context, subagent-stop recording."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from clitools import invoke

from agents_state.hooks import tool_calls

from .examples import VALID


def hook(root: Path, event: str, data: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    data = {"session_id": "s", "transcript_path": "/tmp/t", "cwd": str(root), **data}
    r = invoke(["hook", event], stdin=json.dumps(data), cwd=root)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return r


def start(root: Path) -> None:
    assert invoke(["dispatch", "Add user authentication"], cwd=root).returncode == 0


def test_post_tool_use_counts_main_and_agents(tmp_path: Path) -> None:
    start(tmp_path)
    for _ in range(3):
        hook(tmp_path, "post-tool-use", {"hook_event_name": "PostToolUse", "tool_name": "Read"})
    hook(
        tmp_path,
        "post-tool-use",
        {"tool_name": "Read", "agent_id": "a1", "agent_type": "subagents:explore"},
    )
    assert tool_calls(tmp_path) == 3
    assert tool_calls(tmp_path, "a1") == 1
    hook(tmp_path, "session-start", {"source": "compact"})
    assert tool_calls(tmp_path) == 0


def test_session_start_injects_context(tmp_path: Path) -> None:
    assert hook(tmp_path, "session-start", {"source": "startup"}).stdout == ""
    start(tmp_path)
    out = json.loads(hook(tmp_path, "session-start", {"source": "compact"}).stdout)
    hso = out["hookSpecificOutput"]
    assert hso["hookEventName"] == "SessionStart"
    assert "Add user authentication" in hso["additionalContext"]


def test_session_start_reads_a_state_with_a_byte_order_mark_as_the_engine_does(
    tmp_path: Path,
) -> None:
    start(tmp_path)
    state = tmp_path / ".agents" / "state.json"
    state.write_bytes(b"\xef\xbb\xbf" + state.read_bytes())  # an editor saved it with a BOM
    assert invoke(["status"], cwd=tmp_path).returncode == 0  # the engine reads it
    r = hook(tmp_path, "session-start", {"source": "compact"})
    assert r.stderr == ""
    assert (
        "Add user authentication" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    )


def test_subagent_stop_records_the_handoff(tmp_path: Path) -> None:
    start(tmp_path)
    hook(tmp_path, "subagent-start", {"agent_id": "a1", "agent_type": "subagents:explore"})
    body = json.dumps(VALID["002 researcher output"][1])
    msg = f"Research done.\n```json\n{body}\n```"
    hook(
        tmp_path,
        "subagent-stop",
        {
            "agent_id": "a1",
            "agent_type": "subagents:explore",
            "last_assistant_message": msg,
            "stop_hook_active": False,
        },
    )
    state = json.loads((tmp_path / ".agents" / "state.json").read_text())
    assert state["currentPhase"] == "0"  # issue 14: one agent's answer completes no phase
    assert state["handoffs"]["records"][0]["agent"] == "a1"
    log = [
        json.loads(x) for x in (tmp_path / ".agents" / "subagents.jsonl").read_text().splitlines()
    ]
    assert [(e["event"], e.get("handoff")) for e in log] == [("start", None), ("stop", "PROCEED")]


def test_subagent_stop_blocks_an_invalid_handoff_once(tmp_path: Path) -> None:
    start(tmp_path)
    bad = json.dumps({**VALID["001 response"][1], "decision": "GO"})
    data = {"agent_id": "a1", "agent_type": "subagents:explore", "last_assistant_message": bad}
    out = json.loads(hook(tmp_path, "subagent-stop", {**data, "stop_hook_active": False}).stdout)
    assert out["decision"] == "block"
    assert "decision: must be one of PROCEED, STOP, CLARIFY (got 'GO')" in out["reason"]
    assert hook(tmp_path, "subagent-stop", {**data, "stop_hook_active": True}).stdout == ""


def test_unknown_event_warns_and_allows(tmp_path: Path) -> None:
    r = invoke(["hook", "nonsense"], stdin="{}", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "")
    assert r.stderr.startswith("agents-state: warning: unknown hook event 'nonsense'")


def test_one_injection_per_session_start(tmp_path: Path) -> None:
    """Issue 27: ``claude -p --continue "/compact"`` fires resume then compact in one session."""
    start(tmp_path)
    first = hook(tmp_path, "session-start", {"source": "resume", "session_id": "s1"})
    assert "Add user authentication" in first.stdout
    second = hook(tmp_path, "session-start", {"source": "compact", "session_id": "s1"})
    assert second.stdout == "" and second.stderr == ""
    # another session, or the same one after it made tool calls, is injected again
    other = hook(tmp_path, "session-start", {"source": "compact", "session_id": "s2"})
    assert "Add user authentication" in other.stdout
    hook(tmp_path, "session-start", {"source": "resume", "session_id": "s3"})
    hook(tmp_path, "post-tool-use", {"tool_name": "Read", "session_id": "s3"})
    later = hook(tmp_path, "session-start", {"source": "compact", "session_id": "s3"})
    assert "Add user authentication" in later.stdout
