"""Issue 24 on the PostgreSQL store: the usage book lives in the database, updated under the
workflow's row lock; ten SubagentStop hooks at once lose no count, and budgets count it."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from clitools import CLI, DATA, cli_json, run_cli, wave_of

AGENT = DATA / "usage" / "agent.jsonl"
AGENT_TOKENS = 100_020  # the recorded sub-agent's three responses (tests/test_usage.py)


def stop(
    root: Path, agent: str, transcript: Path | None, event: str = "subagent-stop"
) -> subprocess.CompletedProcess[str]:
    data = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "SubagentStop",
        "agent_id": agent,
        "agent_type": "subagents:task-agent",
        "agent_transcript_path": str(transcript),
        "last_assistant_message": "done",
        "stop_hook_active": False,
    }
    if transcript is None:  # SubagentStart
        data = {k: data[k] for k in ("session_id", "cwd", "agent_id", "agent_type")}
        data["hook_event_name"] = "SubagentStart"
    return subprocess.run(
        [CLI, "hook", event],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )


def test_ten_stops_on_the_server_lose_no_count(
    root: Path, tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTS_STATE_STORE", pg_url)
    ids = wave_of(root, 10)
    paths = []
    # padded with lines that carry no usage, so that each hook reads for a while (before the
    # lock; the book's update is under it: without it, updates overlap and counts are lost)
    pad = b"".join(
        b'{"type":"attachment","timestamp":"2026-11-25T17:16:06.300Z","n":%d,"x":"%s"}\n'
        % (i, b"y" * 200)
        for i in range(20000)
    )
    for t in ids:
        p = tmp_path / f"agent-{t}.jsonl"
        p.write_bytes(AGENT.read_bytes() + pad)
        paths.append(p)
    with ThreadPoolExecutor(10) as pool:  # ten starts at once write ten entries in 2.1
        procs = list(
            pool.map(lambda i: stop(root, f"agent-{i}", None, "subagent-start"), range(10))
        )
    assert [(p.returncode, p.stderr) for p in procs] == [(0, "")] * 10
    with ThreadPoolExecutor(10) as pool:
        procs = list(pool.map(lambda i: stop(root, f"agent-{i}", paths[i]), range(10)))
    assert [(p.returncode, p.stderr) for p in procs] == [(0, "")] * 10
    usage = cli_json(root, "status", "--verbose")["workflow"]["usage"]
    assert usage["tokens"] == 10 * AGENT_TOKENS
    # the recorded agent's prompt names task t2, which this wave has too
    assert {t: v["tokens"] for t, v in usage["tasks"].items()} == {"t2": 10 * AGENT_TOKENS}
    assert usage["phases"]["2.1"]["agents"] == 10
    assert {(a["phase"], a["phaseBy"]) for a in usage["agents"].values()} == {("2.1", "start")}
    assert not (root / ".agents" / "usage.json").exists()  # the book is on the server
    # a second stop of one agent reads nothing twice
    assert stop(root, "agent-0", paths[0]).returncode == 0
    assert cli_json(root, "status")["workflow"]["usage"]["tokens"] == 10 * AGENT_TOKENS
    # the budget counts it
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude" / "subagents-config.json").write_text('{"budget": {"maxTokens": 1000}}')
    proc = run_cli(root, "budget")
    assert proc.stdout == f"{10 * AGENT_TOKENS} of 1000 tokens used, 0 left\n"
