"""Issue 24: token usage read from transcripts written by the real CLI (tests/data/usage/,
recorded by tests/plugin/record_usage.py), booked per agent, task and phase, to the token."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from clitools import CLI, DATA, cli_json, run_cli, walk_to, wave_of

from agents_state.usage import book as bk
from agents_state.usage.record import (
    read_book,
    record_agent,
    record_main,
    record_session,
    record_start,
    task_in,
)
from agents_state.usage.transcript import Chunk, read_new

USAGE = DATA / "usage"
EXPECTED: dict[str, dict[str, int]] = json.loads((USAGE / "expected.json").read_text())
AGENT_IDS = ("msg_stub_2", "msg_stub_3", "msg_stub_4")
MAIN_IDS = ("msg_stub_1", "msg_stub_5")


def tokens(*ids: str) -> dict[str, int]:
    """What the stub sent for these responses, in the book's names."""
    out = dict.fromkeys(bk.KINDS, 0)
    for i in ids:
        u = EXPECTED[i]
        out["input"] += u["input_tokens"]
        out["output"] += u["output_tokens"]
        out["cacheRead"] += u["cache_read_input_tokens"]
        out["cacheWrite"] += u["cache_creation_input_tokens"]
    return out


def grand(*ids: str) -> int:
    return sum(tokens(*ids).values())


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


# -- the reader -------------------------------------------------------------------------------


def test_each_response_counts_once_though_the_cli_writes_it_on_several_lines() -> None:
    lines = (USAGE / "agent.jsonl").read_text().splitlines()
    assistant = [ln for ln in lines if '"type":"assistant"' in ln]
    assert len(assistant) == 5  # msg_stub_2 and _3 are two lines each (text, then tool call)
    chunk = read_new(str(USAGE / "agent.jsonl"))
    assert [m.id for m in chunk.msgs] == list(AGENT_IDS)
    for m in chunk.msgs:
        assert m.tokens == tokens(m.id)
        assert m.model == "claude-opus-5-5" and m.sidechain
    assert chunk.prompt == "Implement task t2 of the plan: add the health route."
    assert chunk.offset == (USAGE / "agent.jsonl").stat().st_size
    assert (chunk.bad_lines, chunk.odd_usage, chunk.partial) == (0, 0, False)
    main = read_new(str(USAGE / "main.jsonl"))
    assert [m.id for m in main.msgs] == list(MAIN_IDS)
    assert not any(m.sidechain for m in main.msgs)


def test_reading_on_from_the_offset_reads_only_what_is_new(tmp_path: Path) -> None:
    lines = (USAGE / "agent.jsonl").read_bytes().splitlines(keepends=True)
    cut = next(i for i, ln in enumerate(lines) if b"msg_stub_3" in ln)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    first = read_new(str(path))
    assert [m.id for m in first.msgs] == ["msg_stub_2"]
    path.write_bytes(b"".join(lines))
    second = read_new(str(path), first.offset, first.ids)
    assert [m.id for m in second.msgs] == ["msg_stub_3", "msg_stub_4"]
    assert second.prompt is None  # the prompt was read the first time
    assert second.ids == list(AGENT_IDS)
    again = read_new(str(path), 0, second.ids)  # a re-read (file rewritten) counts no id twice
    assert again.msgs == []


def test_a_truncated_last_line_is_left_for_the_next_read(tmp_path: Path) -> None:
    whole = (USAGE / "agent.jsonl").read_bytes()
    cut = (USAGE / "agent-truncated.jsonl").read_bytes()
    chunk = read_new(str(USAGE / "agent-truncated.jsonl"))
    assert chunk.partial
    assert chunk.offset == cut.rfind(b"\n") + 1
    last_line = whole[chunk.offset :]
    assert b"msg_stub_4" in last_line  # the cut line is the last response: not counted yet
    assert [m.id for m in chunk.msgs] == ["msg_stub_2", "msg_stub_3"]
    path = tmp_path / "t.jsonl"
    path.write_bytes(whole)  # the host finished writing the line
    rest = read_new(str(path), chunk.offset, chunk.ids)
    assert [m.id for m in rest.msgs] == ["msg_stub_4"] and not rest.partial


def test_unknown_shapes_are_skipped_and_counted() -> None:
    chunk = read_new(str(USAGE / "agent-odd.jsonl"))
    assert [m.id for m in chunk.msgs] == list(AGENT_IDS)
    assert chunk.odd_usage == 1  # {"usage": "lots"}
    b = bk.fresh(None)
    bk.remember(b, "x.jsonl", chunk)
    assert b["notes"] == ["x.jsonl: skipped 1 line(s) of an unknown shape"]
    assert chunk.bad_lines == 0  # "{not json": no usage in it, nothing lost, passed over


def test_a_torn_line_with_usage_is_skipped_and_noted(root: Path, tmp_path: Path) -> None:
    s = _at_phase_0(root)
    torn = b'{"type":"assistant","message":{"id":"msg_torn","usage":{"input_tokens":12\n'
    path = tmp_path / "a.jsonl"
    path.write_bytes((USAGE / "agent.jsonl").read_bytes() + torn)
    chunk = read_new(str(path))
    assert (chunk.bad_lines, [m.id for m in chunk.msgs]) == (1, list(AGENT_IDS))
    entry = record_agent(str(root), s, "a1", "subagents:explore-agent", str(path))
    assert entry is not None and entry["messages"] == len(AGENT_IDS)
    book = read_book(str(root))
    assert book is not None
    assert f"{path}: skipped 1 line(s) of an unknown shape" in book["notes"]


def test_a_missing_transcript_raises_oserror_for_the_caller_to_note(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        read_new(str(tmp_path / "gone.jsonl"))
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(OSError):
        read_new(str(tmp_path / "dir.jsonl"))


# -- attribution ------------------------------------------------------------------------------


def test_phase_at_picks_the_phase_current_at_the_time() -> None:
    s = {
        "stages": {
            "EXPLORE": {
                "phases": {
                    "0": {
                        "startedAt": "2026-01-01T10:00:00Z",
                        "completedAt": "2026-01-01T10:05:00Z",
                    }
                }
            },
            "PLAN": {"phases": {"1.1": {"startedAt": "2026-01-01T10:05:00Z"}}},
        }
    }
    w = bk.phase_windows(s)
    assert bk.phase_at(w, "2026-01-01T10:04:59.999Z", None) == "0"
    assert bk.phase_at(w, "2026-01-01T10:05:00.500Z", None) == "0"  # the completing second
    assert bk.phase_at(w, "2026-01-01T10:05:01.000Z", None) == "1.1"
    assert bk.phase_at(w, "2026-01-01T09:00:00Z", None) == "0"
    assert bk.phase_at([], "2026-01-01T09:00:00Z", "1.2") == "1.2"


def test_task_in_prefers_the_handoff_then_a_unique_mention() -> None:
    tasks: dict[str, Any] = {"t1": {}, "t2": {}, "t10": {}}
    s = {"stages": {"IMPLEMENT": {"phases": {"2.1": {"tasks": tasks}}}}}
    assert task_in(s, "t1", "work on t2") == "t1"
    assert task_in(s, None, "Implement task t2 of the plan") == "t2"
    assert task_in(s, None, "t1 and t2") is None  # two named: nobody can tell
    assert task_in(s, None, "task t10-x") is None and task_in(s, None, "t10.") == "t10"
    assert task_in(s, "zz", None) is None
    assert task_in({}, "t1", "t1") is None


def _at_phase_0(root: Path) -> dict[str, Any]:
    """A workflow whose phase 0 ran from before the fixtures' time until their first second."""
    assert run_cli(root, "dispatch", "Add a health endpoint").returncode == 0
    s = state(root)
    s["startedAt"] = "2026-11-25T17:00:00Z"
    explore = s["stages"]["EXPLORE"]["phases"]["0"]
    explore.update(status="completed", startedAt="2026-11-25T17:00:00Z")
    explore["completedAt"] = "2026-11-25T17:16:06Z"
    s["stages"]["PLAN"]["phases"]["1.1"].update(
        status="in_progress", startedAt="2026-11-25T17:16:06Z"
    )
    s["currentPhase"], s["currentStage"] = "1.1", "PLAN"
    (root / ".agents" / "state.json").write_text(json.dumps(s))
    return s


def _retimed(tmp_path: Path, name: str, ids: tuple[str, ...], at: str) -> Path:
    """A copy of a fixture whose lines of the responses ``ids`` carry the time ``at``."""
    out = []
    for line in (USAGE / name).read_text().splitlines(keepends=True):
        if any(f'"id":"{i}"' in line for i in ids):
            e = json.loads(line)
            e["timestamp"] = at
            line = json.dumps(e, separators=(",", ":")) + "\n"
        out.append(line)
    path = tmp_path / name
    path.write_text("".join(out))
    return path


def test_main_conversation_usage_goes_to_the_phase_of_its_time(root: Path, tmp_path: Path) -> None:
    s = _at_phase_0(root)
    path = _retimed(tmp_path, "main.jsonl", ("msg_stub_5",), "2026-11-25T17:20:00.000Z")
    assert record_main(str(root), s, str(path)) == 2
    book = read_book(str(root))
    assert book is not None
    assert book["main"]["0"]["tokens"] == {"claude-opus-5-5": tokens("msg_stub_1")}
    assert book["main"]["1.1"]["tokens"] == {"claude-opus-5-5": tokens("msg_stub_5")}
    assert record_main(str(root), s, str(path)) == 0  # nothing new: nothing counted twice
    again = read_book(str(root))
    assert again is not None and again["main"] == book["main"]
    summary = bk.summary(book)
    assert summary["tokens"] == grand(*MAIN_IDS)
    assert summary["phases"]["0"]["main"] == grand("msg_stub_1")


def test_responses_before_the_workflow_started_are_not_its(root: Path, tmp_path: Path) -> None:
    s = _at_phase_0(root)
    s["startedAt"] = "2026-11-25T17:18:00Z"
    path = _retimed(tmp_path, "main.jsonl", ("msg_stub_5",), "2026-11-25T17:20:00.000Z")
    assert record_main(str(root), s, str(path)) == 1
    book = read_book(str(root))
    assert book is not None and list(book["main"]) == ["1.1"]


def test_an_agent_is_booked_on_its_task_and_its_stops_add_up(root: Path, tmp_path: Path) -> None:
    wave_of(root, 3)
    s = state(root)
    s["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["t2"] = {"title": "health route"}
    lines = (USAGE / "agent-truncated.jsonl").read_bytes()
    path = tmp_path / "agent.jsonl"
    path.write_bytes(lines)  # the first stop sees the file as it was being written
    entry = record_agent(str(root), s, "a1", "subagents:task-agent", str(path))
    assert entry is not None
    assert (entry["task"], entry["phase"], entry["messages"]) == ("t2", "2.1", 2)
    path.write_bytes((USAGE / "agent.jsonl").read_bytes())
    entry = record_agent(str(root), s, "a1", "subagents:task-agent", str(path))
    assert entry is not None and entry["messages"] == 3
    book = read_book(str(root))
    assert book is not None
    summary = bk.summary(book)
    assert summary["agents"]["a1"]["tokens"] == grand(*AGENT_IDS)
    assert summary["tasks"]["t2"]["tokens"] == grand(*AGENT_IDS)
    assert summary["tasks"]["t2"]["byKind"] == tokens(*AGENT_IDS)
    assert summary["phases"]["2.1"]["tokens"] == grand(*AGENT_IDS)
    assert summary["agents"]["a1"]["seconds"] == pytest.approx(0.184)
    assert summary["tokens"] == grand(*AGENT_IDS)


def test_a_missing_transcript_is_noted_once(root: Path, tmp_path: Path) -> None:
    walk_to(root, "0")
    s = state(root)
    gone = str(tmp_path / "gone.jsonl")
    assert record_agent(str(root), s, "a1", "subagents:explore-agent", gone) is None
    assert record_main(str(root), s, gone) == 0
    book = read_book(str(root))
    assert book is not None
    assert book["notes"] == [
        f"{gone}: not read (No such file or directory); its usage is not counted"
    ]
    assert book["agents"] == {}


def test_a_new_workflow_starts_a_new_book(root: Path, tmp_path: Path) -> None:
    s = _at_phase_0(root)
    record_main(str(root), s, str(USAGE / "main.jsonl"))
    s["startedAt"] = "2026-11-26T00:00:00Z"
    record_agent(str(root), s, "a9", "subagents:explore-agent", str(USAGE / "agent.jsonl"))
    book = read_book(str(root))
    assert book is not None
    assert book["workflow"] == "2026-11-26T00:00:00Z"
    assert book["main"] == {} and list(book["agents"]) == ["a9"]


# -- the hooks, as Claude Code runs them ------------------------------------------------------


def hook(root: Path, event: str, data: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    data = {"session_id": "s", "transcript_path": "/nowhere", "cwd": str(root), **data}
    proc = subprocess.run(
        [CLI, "hook", event],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc


def handoff(task: str) -> str:
    h = {
        "task_id": task,
        "phase": "implement",
        "status": "complete",
        "decision": "PROCEED",
        "context_summary": f"{task} done",
        "issues": [],
    }
    return "Done.\n```json\n" + json.dumps(h) + "\n```"


def test_ten_agents_stopping_at_once_lose_no_count(root: Path, tmp_path: Path) -> None:
    ids = wave_of(root, 10)
    paths = []
    # padded with lines that carry no usage, so that each hook reads for a while: the reads run
    # in parallel, outside the lock (ten reads in a row under it took longer than a hook's 11 s
    # budget on a loaded machine, and the last agent's count was lost); the book's update is
    # under the lock (without it, counts were lost in one of two runs when this was checked)
    pad = b"".join(
        b'{"type":"attachment","timestamp":"2026-11-25T17:16:06.300Z","n":%d,"x":"%s"}\n'
        % (i, b"y" * 200)
        for i in range(20000)
    )
    for t in ids:
        p = tmp_path / f"agent-{t}.jsonl"
        p.write_bytes((USAGE / "agent.jsonl").read_bytes() + pad)
        paths.append(p)

    def stop(i: int) -> subprocess.CompletedProcess[str]:
        return hook(
            root,
            "subagent-stop",
            {
                "hook_event_name": "SubagentStop",
                "agent_id": f"agent-{i}",
                "agent_type": "subagents:task-agent",
                "agent_transcript_path": str(paths[i]),
                "last_assistant_message": handoff(ids[i]),
                "stop_hook_active": False,
            },
        )

    with ThreadPoolExecutor(10) as pool:
        procs = list(pool.map(stop, range(10)))
    assert all(p.stderr == "" for p in procs), [p.stderr for p in procs]
    brief = cli_json(root, "status")["workflow"]["usage"]
    assert (brief["agentCount"], brief["taskCount"]) == (10, 10)  # bounded without --verbose
    assert "agents" not in brief and "tasks" not in brief
    out = cli_json(root, "status", "--verbose")["workflow"]["usage"]
    assert out["tokens"] == brief["tokens"] == 10 * grand(*AGENT_IDS)
    assert {t: v["tokens"] for t, v in out["tasks"].items()} == dict.fromkeys(
        ids, grand(*AGENT_IDS)
    )
    assert sorted(out["agents"]) == sorted(f"agent-{i}" for i in range(10))
    assert out["phases"]["2.1"]["agents"] == 10
    log = [json.loads(ln) for ln in (root / ".agents" / "subagents.jsonl").read_text().splitlines()]
    assert sorted(e["tokens"] for e in log) == [grand(*AGENT_IDS)] * 10  # on each stop line


def test_main_conversation_hooks_book_the_orchestrator(root: Path, tmp_path: Path) -> None:
    _at_phase_0(root)
    path = _retimed(tmp_path, "main.jsonl", ("msg_stub_5",), "2026-11-25T17:20:00.000Z")
    lines = path.read_bytes().splitlines(keepends=True)
    cut = next(i for i, ln in enumerate(lines) if b"msg_stub_5" in ln)
    path.write_bytes(b"".join(lines[:cut]))
    post = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "agents-state next --json"},
        "transcript_path": str(path),
    }
    hook(root, "post-tool-use", {**post, "tool_name": "Read", "tool_input": {}})
    assert not (root / ".agents" / "usage.json").exists()  # a Read books nothing
    hook(root, "post-tool-use", post)  # an engine step books what the conversation spent
    book = json.loads((root / ".agents" / "usage.json").read_text())
    assert list(book["main"]) == ["0"]
    path.write_bytes(b"".join(lines))
    hook(root, "stop", {"hook_event_name": "Stop", "transcript_path": str(path)})
    hook(root, "stop", {"hook_event_name": "Stop", "transcript_path": str(path)})
    # a sub-agent's tool call books nothing of the main transcript
    hook(root, "post-tool-use", {**post, "agent_id": "x", "agent_type": "subagents:task-agent"})
    text = run_cli(root, "status").stdout.splitlines()
    cost = text.index(next(ln for ln in text if ln.startswith("Cost: ")))
    assert text[cost].endswith(" (from the host's transcripts)")
    assert text[cost].startswith("Cost: 67k tokens, ")  # 11,120 + 55,560
    assert text[cost + 1] == "  0        11k tokens   16m06s"  # 17:00:00 to 17:16:06
    assert text[cost + 2].startswith("  1.1      56k tokens ")
    assert text[cost + 3].startswith("NEXT: ")
    out = cli_json(root, "status")["workflow"]["usage"]
    assert out["phases"]["0"]["tokens"] == grand("msg_stub_1")
    assert out["phases"]["0"]["seconds"] == 966.0
    assert out["phases"]["1.1"]["tokens"] == grand("msg_stub_5")
    assert out["tokens"] == grand(*MAIN_IDS)


def test_hooks_outside_a_workflow_book_nothing(root: Path) -> None:
    (root / ".agents").mkdir()
    hook(root, "stop", {"hook_event_name": "Stop", "transcript_path": str(USAGE / "main.jsonl")})
    hook(
        root,
        "subagent-stop",
        {
            "agent_id": "a",
            "agent_type": "subagents:task-agent",
            "agent_transcript_path": str(USAGE / "agent.jsonl"),
        },
    )
    assert not (root / ".agents" / "usage.json").exists()


def test_an_unreadable_book_is_started_anew_with_a_note(root: Path) -> None:
    s = _at_phase_0(root)
    (root / ".agents" / "usage.json").write_text("{not json")
    record_agent(str(root), s, "a1", "subagents:explore-agent", str(USAGE / "agent.jsonl"))
    book = read_book(str(root))
    assert book is not None
    assert book["notes"] == [".agents/usage.json was unreadable and was started anew", bk.TIME_NOTE]
    assert bk.summary(book)["tokens"] == grand(*AGENT_IDS)


# -- attribution that does not hang on the clock (a phase change and a start in one second) ----


def _at_1_2_since(root: Path, second: str, s: dict[str, Any] | None = None) -> dict[str, Any]:
    """A workflow whose phase 1.1 completed, and 1.2 started, in ``second`` (the state keeps
    times to the second): from then on the time alone cannot tell 1.1 from 1.2."""
    s = json.loads(json.dumps(s)) if s is not None else _at_phase_0(root)
    s["stages"]["EXPLORE"]["phases"]["0"]["completedAt"] = "2026-11-25T17:16:04Z"
    s["stages"]["PLAN"]["phases"]["1.1"].update(
        status="completed", startedAt="2026-11-25T17:16:04Z", completedAt=second
    )
    s["stages"]["PLAN"]["phases"]["1.2"].update(status="in_progress", startedAt=second)
    s["currentPhase"] = "1.2"
    (root / ".agents" / "state.json").write_text(json.dumps(s))
    return s


def test_an_agent_started_in_the_second_its_phase_began_is_booked_to_that_phase(
    root: Path,
) -> None:
    # the plan agents of 1.2 answered in the second 1.1 completed: by time they were 1.1's
    # (tests/plugin/test_budget_e2e.py once failed so under coverage); their start says 1.2
    _at_1_2_since(root, "2026-11-25T17:16:06Z")  # agent.jsonl's first line: 17:16:06.087
    who = {"agent_id": "p1", "agent_type": "subagents:plan-agent"}
    hook(root, "subagent-start", {"hook_event_name": "SubagentStart", **who})
    hook(
        root,
        "subagent-stop",
        {
            "hook_event_name": "SubagentStop",
            **who,
            "agent_transcript_path": str(USAGE / "agent.jsonl"),
            "last_assistant_message": "done",
            "stop_hook_active": False,
        },
    )
    book = json.loads((root / ".agents" / "usage.json").read_text())
    entry = book["agents"]["p1"]
    assert (entry["phase"], entry["phaseBy"], entry["task"]) == ("1.2", "start", None)
    assert entry["tokens"] == {"claude-opus-5-5": tokens(*AGENT_IDS)}
    assert book["notes"] == []
    log = [json.loads(ln) for ln in (root / ".agents" / "subagents.jsonl").read_text().splitlines()]
    assert [(e["event"], e.get("phase")) for e in log] == [("start", "1.2"), ("stop", None)]
    out = cli_json(root, "status", "--verbose")["workflow"]["usage"]
    assert out["phases"]["1.2"]["tokens"] == grand(*AGENT_IDS)
    assert out["phases"]["1.1"]["tokens"] == 0
    assert (out["agents"]["p1"]["phase"], out["agents"]["p1"]["phaseBy"]) == ("1.2", "start")


def test_without_a_start_record_an_agent_goes_by_its_time_with_a_note(root: Path) -> None:
    s = _at_1_2_since(root, "2026-11-25T17:16:06Z")
    entry = record_agent(str(root), s, "old", "subagents:plan-agent", str(USAGE / "agent.jsonl"))
    assert entry is not None and (entry["phase"], entry["phaseBy"]) == ("1.1", "time")
    book = read_book(str(root))
    assert book is not None and book["notes"] == [bk.TIME_NOTE]


def test_an_agent_started_outside_the_task_phase_is_no_tasks(root: Path, tmp_path: Path) -> None:
    # a reviewer of phase 3.2 whose prompt names task t2 costs the review, not t2
    wave_of(root, 3)
    s = state(root)
    s["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["t2"] = {"title": "health route"}
    s["currentPhase"] = "3.2"
    assert record_start(str(root), s, "r1", "subagents:pr-reviewer") == "3.2"
    entry = record_agent(str(root), s, "r1", "subagents:pr-reviewer", str(USAGE / "agent.jsonl"))
    assert entry is not None and (entry["phase"], entry["task"]) == ("3.2", None)
    s["currentPhase"] = "2.1"  # a task agent started in 2.1 is its task's
    assert record_start(str(root), s, "a2", "subagents:task-agent") == "2.1"
    other = tmp_path / "a2.jsonl"
    other.write_bytes((USAGE / "agent.jsonl").read_bytes())
    entry = record_agent(str(root), s, "a2", "subagents:task-agent", str(other))
    assert entry is not None and (entry["phase"], entry["task"]) == ("2.1", "t2")
    assert record_start(str(root), s, "a2", "subagents:task-agent") == "2.1"  # seen twice
    book = read_book(str(root))
    assert book is not None and book["agents"]["a2"]["messages"] == len(AGENT_IDS)


def test_the_conversation_after_a_phase_change_in_the_same_second_is_the_new_phases(
    root: Path, tmp_path: Path
) -> None:
    s = _at_phase_0(root)
    s["stages"]["EXPLORE"]["phases"]["0"]["completedAt"] = "2026-11-25T17:16:04Z"
    s["stages"]["PLAN"]["phases"]["1.1"]["startedAt"] = "2026-11-25T17:16:04Z"
    path = _retimed(tmp_path, "main.jsonl", ("msg_stub_5",), "2026-11-25T17:16:06.900Z")
    lines = path.read_bytes().splitlines(keepends=True)
    cut = next(i for i, ln in enumerate(lines) if b"msg_stub_5" in ln)
    path.write_bytes(b"".join(lines[:cut]))
    # the step that completes 1.1: its response was written while 1.1 was current
    assert record_main(str(root), s, str(path)) == 1
    moved = _at_1_2_since(root, "2026-11-25T17:16:06Z", s)
    assert record_main(str(root), moved, str(path)) == 0  # the booking after that step
    path.write_bytes(b"".join(lines))
    # the next response, in the same second as the change: 1.2's (by time it was 1.1's)
    assert record_main(str(root), moved, str(path)) == 1
    book = read_book(str(root))
    assert book is not None
    assert book["main"]["1.1"]["tokens"] == {"claude-opus-5-5": tokens("msg_stub_1")}
    assert book["main"]["1.2"]["tokens"] == {"claude-opus-5-5": tokens("msg_stub_5")}
    assert book["transcripts"][str(path)]["phase"] == "1.2"


def test_a_phase_sent_back_to_books_the_conversation_to_the_phase_now_current(
    root: Path, tmp_path: Path
) -> None:
    # review 1.3 sent the plan back to 1.2 (its completedAt cleared), then 1.3 ran again: by
    # time every later response was 1.2's (the first phase not completed before it)
    s = _at_1_2_since(root, "2026-11-25T17:16:06Z")
    path = _retimed(tmp_path, "main.jsonl", ("msg_stub_5",), "2026-11-25T17:30:00.000Z")
    lines = path.read_bytes().splitlines(keepends=True)
    cut = next(i for i, ln in enumerate(lines) if b"msg_stub_5" in ln)
    path.write_bytes(b"".join(lines[:cut]))
    record_main(str(root), s, str(path))
    s["stages"]["PLAN"]["phases"]["1.3"].update(
        status="in_progress", startedAt="2026-11-25T17:20:00Z"
    )
    s["currentPhase"] = "1.3"
    record_main(str(root), s, str(path))
    path.write_bytes(b"".join(lines))
    assert record_main(str(root), s, str(path)) == 1
    book = read_book(str(root))
    assert book is not None and book["main"]["1.3"]["messages"] == 1


def test_a_read_made_before_the_lock_is_dropped_if_the_book_moved_meanwhile(
    root: Path, tmp_path: Path
) -> None:
    """The transcript is read before the lock; another booking of it in between (a Stop and a
    PostToolUse of one turn, a blocked stop's second try) makes that read stale: under the lock
    the lines are read again from where the book says, and nothing is counted twice."""
    from agents_state.usage import record as rec

    s = _at_phase_0(root)
    path = _retimed(tmp_path, "main.jsonl", ("msg_stub_5",), "2026-11-25T17:20:00.000Z")
    early = rec._Reader(str(root), str(path))  # read from offset 0: both responses
    assert isinstance(early.early, Chunk) and len(early.early.msgs) == 2
    assert record_main(str(root), s, str(path)) == 2  # another hook booked them first
    got: list[Any] = []

    def apply(book: bk.Book) -> bool:
        got.append(early(book))
        return False

    rec._update(str(root), s, apply)
    assert isinstance(got[0], Chunk) and got[0].msgs == []
    book = read_book(str(root))
    assert book is not None and bk.summary(book)["tokens"] == grand(*MAIN_IDS)


def test_a_failed_engine_step_books_the_conversation_too(root: Path) -> None:
    # a refused `agents-state` call fires PostToolUseFailure, not PostToolUse; the order rule
    # needs a booking at every engine step, so it books as well
    _at_phase_0(root)
    failed = {
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "agents-state phase complete 1.1 --artifact x.md"},
        "error": "Exit code 4",
        "transcript_path": str(USAGE / "main.jsonl"),
    }
    hook(root, "post-tool-use-failure", failed)
    book = json.loads((root / ".agents" / "usage.json").read_text())
    assert sum(m["messages"] for m in book["main"].values()) == len(MAIN_IDS)
    assert book["transcripts"][str(USAGE / "main.jsonl")]["phase"] == "1.1"


def test_a_session_started_in_the_second_a_phase_moved_books_its_first_responses_there(
    root: Path, tmp_path: Path
) -> None:
    # tests/plugin/test_budget_e2e.py: the CLI moved to 1.2 in the second the session's first
    # response was written; by time it was 0's (the first phase completed in that second)
    s = _at_1_2_since(root, "2026-11-25T17:16:06Z")
    path = _retimed(tmp_path, "main.jsonl", ("msg_stub_1", "msg_stub_5"), "2026-11-25T17:16:06.5Z")
    fresh = tmp_path / "new-session.jsonl"
    record_session(str(root), s, str(fresh))  # the host has not written it yet
    book = read_book(str(root))
    assert book is not None
    assert book["transcripts"][str(fresh)] == {"offset": 0, "ids": [], "phase": "1.2"}
    fresh.write_bytes(path.read_bytes())
    assert record_main(str(root), s, str(fresh)) == 2
    book = read_book(str(root))
    assert book is not None and set(book["main"]) == {"1.2"}
    # a resumed session: what was written since the last booking goes to that booking's phase
    s["currentPhase"] = "1.3"
    with fresh.open("ab") as f:
        f.write((USAGE / "main.jsonl").read_bytes().splitlines(keepends=True)[-1])
    record_session(str(root), s, str(fresh))
    again = read_book(str(root))
    assert again is not None and set(again["main"]) == {"1.2"}
    assert again["transcripts"][str(fresh)]["phase"] == "1.3"


# -- usage that cannot be stopped (issue 32, item 6) --------------------------------------------

_DEEP = b'{"type":"assistant","message":{"usage":' + b"[" * 1500 + b"]" * 1500 + b"}}\n"


def _with_line_inside(tmp_path: Path, odd: bytes) -> Path:
    """agent.jsonl with ``odd`` between its first and second responses."""
    lines = (USAGE / "agent.jsonl").read_bytes().splitlines(keepends=True)
    cut = next(i for i, ln in enumerate(lines) if b"msg_stub_3" in ln)
    path = tmp_path / "agent-odd-line.jsonl"
    path.write_bytes(b"".join(lines[:cut]) + odd + b"".join(lines[cut:]))
    return path


def test_issue_32_a_line_nested_too_deep_is_skipped_and_booking_goes_on(
    root: Path, tmp_path: Path
) -> None:
    path = _with_line_inside(tmp_path, _DEEP)
    chunk = read_new(str(path))  # raised RecursionError: the transcript was never booked again
    assert (chunk.too_deep, [m.id for m in chunk.msgs]) == (1, list(AGENT_IDS))
    assert chunk.offset == path.stat().st_size
    s = _at_phase_0(root)
    who = {"agent_id": "d1", "agent_type": "subagents:explore-agent"}
    stop = {
        "hook_event_name": "SubagentStop",
        **who,
        "agent_transcript_path": str(path),
        "last_assistant_message": "done",
        "stop_hook_active": False,
    }
    proc = hook(root, "subagent-stop", stop)
    note = (
        f"{path}: line(s) skipped (1 nested too deep to parse); the usage in them is not "
        "counted, later lines are booked"
    )
    assert proc.stderr == f"agents-state: warning: {note}\n"
    book = read_book(str(root))
    assert book is not None and note in book["notes"]
    assert book["agents"]["d1"]["tokens"] == {"claude-opus-5-5": tokens(*AGENT_IDS)}
    assert book["transcripts"][str(path)]["offset"] == path.stat().st_size
    assert record_agent(str(root), s, "d1", "x", str(path))["messages"] == 3  # type: ignore[index]


def test_issue_32_a_huge_line_is_skipped_without_being_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents_state.usage import transcript

    monkeypatch.setattr(transcript, "MAX_LINE", 64_000)
    monkeypatch.setattr(transcript, "_BLOCK", 4096)  # the long line spans several reads
    huge = b'{"type":"assistant","message":{"usage":"' + b"x" * 200_000 + b'"}}\n'
    path = _with_line_inside(tmp_path, huge)
    chunk = read_new(str(path))
    assert (chunk.too_long, [m.id for m in chunk.msgs]) == (1, list(AGENT_IDS))
    assert chunk.offset == path.stat().st_size and not chunk.partial
    # still being written: left for the next read, as any unfinished line
    path.write_bytes((USAGE / "agent.jsonl").read_bytes() + huge[:-1])
    first = read_new(str(path))
    assert first.partial and first.offset == (USAGE / "agent.jsonl").stat().st_size
    with path.open("ab") as f:
        f.write(b"\n")
    rest = read_new(str(path), first.offset, first.ids)
    assert (rest.too_long, rest.msgs, rest.offset) == (1, [], path.stat().st_size)


def _session(tmp_path: Path, agent: str) -> tuple[Path, Path]:
    """A main transcript and, beside it as the host keeps it, the agent's own."""
    main = tmp_path / "sess.jsonl"
    main.write_bytes((USAGE / "main.jsonl").read_bytes())
    own = tmp_path / "sess" / "subagents" / f"agent-{agent}.jsonl"
    own.parent.mkdir(parents=True)
    own.write_bytes((USAGE / "agent.jsonl").read_bytes())
    return main, own


def test_issue_32_an_agent_whose_stop_never_came_is_booked_at_next(
    root: Path, tmp_path: Path
) -> None:
    _at_phase_0(root)
    main, own = _session(tmp_path, "k1")
    who = {"agent_id": "k1", "agent_type": "subagents:plan-agent"}
    hook(
        root,
        "subagent-start",
        {"hook_event_name": "SubagentStart", **who, "transcript_path": str(main)},
    )
    # killed mid fan-out: no SubagentStop
    assert run_cli(root, "next").returncode == 0
    book = read_book(str(root))
    assert book is not None
    entry = book["agents"]["k1"]
    assert (entry["phase"], entry["messages"]) == ("1.1", len(AGENT_IDS))
    assert entry["tokens"] == {"claude-opus-5-5": tokens(*AGENT_IDS)}
    assert "stopped" not in entry
    # a late stop (the agent was still running) counts nothing twice
    stop = {
        "hook_event_name": "SubagentStop",
        **who,
        "agent_transcript_path": str(own),
        "last_assistant_message": "done",
        "stop_hook_active": False,
    }
    hook(root, "subagent-stop", stop)
    assert run_cli(root, "next").returncode == 0
    after = read_book(str(root))
    assert after is not None
    assert (after["agents"]["k1"]["messages"], after["agents"]["k1"]["stopped"]) == (3, True)


def test_issue_32_an_agent_whose_stop_never_came_is_booked_at_session_start(
    root: Path, tmp_path: Path
) -> None:
    _at_phase_0(root)
    main, _own = _session(tmp_path, "k2")
    who = {"agent_id": "k2", "agent_type": "subagents:plan-agent"}
    hook(
        root,
        "subagent-start",
        {"hook_event_name": "SubagentStart", **who, "transcript_path": str(main)},
    )
    start = {
        "hook_event_name": "SessionStart",
        "source": "startup",
        "transcript_path": str(tmp_path / "new.jsonl"),
    }
    hook(root, "session-start", start)
    book = read_book(str(root))
    assert book is not None and book["agents"]["k2"]["messages"] == len(AGENT_IDS)
