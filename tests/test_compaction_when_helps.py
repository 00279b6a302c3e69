"""Issue 27, item 1: at a compaction point the engine asks for /compact only when it helps,
from the conversation's real usage (its transcript, via the post-tool-use hook)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clitools import cli_json, run_cli

MODEL = "claude-sonnet-4-5-20250929"  # a 200,000-token window: advice at 140,000


def _context(root: Path, tokens: int) -> None:
    """The main conversation's newest response held ``tokens``; the hook remembers it."""
    message = {
        "id": "m1",
        "model": MODEL,
        "usage": {"input_tokens": 1000, "cache_read_input_tokens": tokens - 1000},
    }
    path = root / "t.jsonl"
    path.write_text(json.dumps({"type": "assistant", "message": message}) + "\n")
    payload = {
        "hook_event_name": "PostToolUse",
        "cwd": str(root),
        "transcript_path": str(path),
        "tool_name": "Read",
    }
    assert run_cli(root, "hook", "post-tool-use", stdin=json.dumps(payload)).returncode == 0


def _explore_done(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    done = run_cli(root, "phase", "complete", "0", "--artifact", "-", stdin="notes")
    assert done.returncode == 0, done.stderr


def _state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def _first_line(root: Path, *args: str) -> str:
    proc = run_cli(root, *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[0]


def test_a_small_conversation_goes_on_without_asking(root: Path) -> None:
    _explore_done(root)
    _context(root, 30_000)
    a = cli_json(root, "next")
    assert a["kind"] != "compact" and a["phase"] == "1.1"
    assert a["compaction"] == {
        "after": "EXPLORE",
        "needed": False,
        "tokens": 30_000,
        "percent": 15,
        "window": 200_000,
        "advice": 70,
    }
    assert a["instructions"].startswith(
        "EXPLORE is done; no compaction needed: The conversation holds 30000 tokens, 15% of "
        "its 200000-token window (advice at 70%). The workflow goes on without one "
        "(do not ask the user). "
    )
    assert "/compact" not in a["instructions"]
    # going on records the boundary as skipped, not as a compaction
    (root / a["write"]).write_text("ideas")
    assert run_cli(root, *a["command"].split()[1:]).returncode == 0
    compaction = _state(root)["compaction"]
    assert compaction == {"history": [], "skipped": ["EXPLORE"]}  # None fields are left out


def test_a_full_conversation_is_asked_to_compact_and_told_how_under_p(root: Path) -> None:
    _explore_done(root)
    _context(root, 150_000)
    a = cli_json(root, "next")
    assert (a["kind"], a["command"]) == ("compact", "agents-state compact")
    assert a["compaction"]["needed"] is True and a["compaction"]["tokens"] == 150_000
    assert a["instructions"].startswith(
        "EXPLORE is done. The conversation holds 150000 tokens, 75% of its 200000-token "
        "window (advice at 70%). Record the boundary"
    )
    assert 'under claude -p: claude -p --continue "/compact"' in a["instructions"]
    line = _first_line(root, "compact")
    assert line.startswith("compaction after EXPLORE recorded as asked of the user")
    assert "compacts nothing" in line
    assert _state(root)["compaction"]["history"] == ["EXPLORE"]


def test_compact_when_not_needed_says_so_and_records_a_skip(root: Path) -> None:
    _explore_done(root)
    _context(root, 30_000)
    assert _first_line(root, "compact") == (
        "no compaction needed after EXPLORE: the conversation holds 30000 tokens, 15% of its "
        "200000-token window (advice at 70%); recorded as skipped; continue with: agents-state next"
    )
    compaction = _state(root)["compaction"]
    assert compaction["history"] == [] and compaction["skipped"] == ["EXPLORE"]
    assert "pending" not in compaction


def test_an_unknown_size_still_asks_at_the_boundary(root: Path) -> None:
    _explore_done(root)  # no transcript seen: design 004's advice stands
    a = cli_json(root, "next")
    assert a["kind"] == "compact" and a["compaction"] == {"after": "EXPLORE", "needed": True}
    assert "size is unknown (no transcript seen)" in a["instructions"]


def test_a_whole_small_workflow_never_asks_and_skips_every_boundary(root: Path) -> None:
    from test_e2e import _do

    assert run_cli(root, "dispatch", "Add a health endpoint").returncode == 0
    _context(root, 30_000)
    kinds = []
    for _ in range(60):
        action = cli_json(root, "next")
        kinds.append(action["kind"])
        if action["kind"] == "done":
            break
        _do(root, action)
    else:
        raise AssertionError("workflow did not finish")
    assert "compact" not in kinds and "ask_user" not in kinds
    compaction = _state(root)["compaction"]
    assert compaction["history"] == []
    # IMPLEMENT's boundary is passed by a wave of tasks, with no phase event (issue 27)
    assert compaction["skipped"] == ["EXPLORE", "PLAN", "IMPLEMENT", "TEST"]


def test_a_compaction_in_the_transcript_forgets_the_size_before_it(tmp_path: Path) -> None:
    """After /compact the newest usage is the pre-compaction one, and the next response may not
    be flushed yet: the size is what the compaction left, so a freshly compacted conversation is
    never told to compact again, whenever the host writes its next response."""
    from agents_state.contextsize import context_usage

    big = {"type": "assistant", "message": {"model": MODEL, "usage": {"input_tokens": 150_000}}}
    boundary = {
        "type": "system",
        "subtype": "compact_boundary",
        "compactMetadata": {"trigger": "manual", "preTokens": 150_000, "postTokens": 6_244},
    }
    bare = {"type": "system", "subtype": "compact_boundary"}
    small = {"type": "assistant", "message": {"model": MODEL, "usage": {"input_tokens": 9_000}}}
    path = tmp_path / "t.jsonl"

    def size(*entries: dict[str, Any]) -> tuple[int, str | None] | None:
        path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
        return context_usage(str(path))

    assert size(big, boundary) == (6_244, MODEL)  # the model (its window) still counts
    assert size(big, bare) == (0, MODEL)  # no figure: just compacted, nothing to gain
    assert size(boundary) == (6_244, None)
    assert size(big, boundary, small) == (9_000, MODEL)
    assert size(big, boundary, small, bare) == (0, MODEL)  # only the newest boundary counts
    assert size(big) == (150_000, MODEL)


def test_a_fresh_compaction_is_not_asked_for_again_at_the_boundary(root: Path) -> None:
    """The boundary's `next` right after /compact, before any new response is in the
    transcript: the workflow goes on, the boundary recorded as not needed."""
    _explore_done(root)
    _context(root, 150_000)
    path = root / "t.jsonl"
    boundary = {"type": "system", "subtype": "compact_boundary", "compactMetadata": {}}
    path.write_text(path.read_text() + json.dumps(boundary) + "\n")
    a = cli_json(root, "next")
    assert a["kind"] != "compact" and a["phase"] == "1.1", a
    assert a["compaction"] == {
        "after": "EXPLORE",
        "needed": False,
        "tokens": 0,
        "percent": 0,
        "window": 200_000,
        "advice": 70,
    }


def _calls(root: Path, n: int) -> None:
    """``n`` tool calls of the main conversation, as the PostToolUse hook logs them."""
    with open(root / ".agents" / "toolcalls.log", "a") as log:
        log.write("main\n" * n)


def test_issue_33_many_tool_calls_in_a_small_conversation_ask_nothing(root: Path) -> None:
    """50 tool calls at 5% of the window asked for /compact, `compact` recorded a skip, and the
    next `next` asked again: the count decides only where no size is known."""
    _explore_done(root)
    _context(root, 10_000)
    a = cli_json(root, "next")
    (root / a["write"]).write_text("ideas")
    assert run_cli(root, *a["command"].split()[1:]).returncode == 0
    _calls(root, 60)
    assert cli_json(root, "next")["kind"] != "compact"
    line = _first_line(root, "compact")  # a model that compacts anyway: recorded as skipped
    assert line.startswith("no compaction needed after ")
    assert cli_json(root, "next")["kind"] != "compact"


def test_issue_33_a_skipped_boundary_resets_the_tool_call_count(root: Path) -> None:
    _explore_done(root)
    _context(root, 10_000)
    _calls(root, 60)
    assert _first_line(root, "compact").startswith("no compaction needed after EXPLORE")
    assert (root / ".agents" / "toolcalls.log").read_text() == ""


def test_issue_33_the_count_still_asks_when_no_size_is_known(root: Path) -> None:
    _explore_done(root)
    assert run_cli(root, "compact").returncode == 0  # the boundary, asked (size unknown)
    a = cli_json(root, "next")
    assert a["kind"] != "compact"
    _calls(root, 60)
    a = cli_json(root, "next")
    assert (a["kind"], a["toolCalls"]) == ("compact", 60)
