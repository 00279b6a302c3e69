"""Issue 24, item 4: compaction advice from the window of the model in use, read from the
transcript (the recorded one of the real CLI, and hand-made ones for the thresholds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clitools import DATA, cli_json, run_cli, walk_to

from agents_state.contextsize import DEFAULT_WINDOW, context_usage, window_for


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("claude-opus-5-5", 1_000_000),
        ("claude-sonnet-4-6", 1_000_000),
        ("claude-sonnet-4-5-20250929", 200_000),
        ("claude-sonnet-4-5-20250929[1m]", 1_000_000),
        ("claude-haiku-4-5-20251001", 200_000),
        (None, DEFAULT_WINDOW),
        ("", DEFAULT_WINDOW),
    ],
)
def test_window_of_a_model(model: str | None, window: int) -> None:
    assert window_for(model) == window


def test_configured_windows_add_to_the_table() -> None:
    assert window_for("claude-sonnet-4-5-x", {"claude-sonnet-4-5": 1_000_000}) == 1_000_000
    assert window_for("claude-opus-5-5", {"claude-opus-5-5": 500_000}) == 500_000


def test_the_recorded_transcript_names_its_model() -> None:
    # the newest response of the main conversation: msg_stub_5 (501 + 5003 + 50004 in context)
    assert context_usage(str(DATA / "usage" / "main.jsonl")) == (55_508, "claude-opus-5-5")


def _context(root: Path, tokens: int, model: str | None) -> None:
    message: dict[str, object] = {
        "id": "m1",
        "usage": {"input_tokens": 1000, "cache_read_input_tokens": tokens - 1000},
    }
    if model:
        message["model"] = model
    path = root / "t.jsonl"
    path.write_text(json.dumps({"type": "assistant", "message": message}) + "\n")
    payload = {
        "hook_event_name": "PostToolUse",
        "cwd": str(root),
        "transcript_path": str(path),
        "tool_name": "Read",
    }
    assert run_cli(root, "hook", "post-tool-use", stdin=json.dumps(payload)).returncode == 0


def test_a_1m_model_is_not_told_to_compact_at_140k(root: Path) -> None:
    walk_to(root, "1.1")
    _context(root, 141_000, "claude-opus-5-5")
    assert cli_json(root, "next")["kind"] == "work_inline"
    _context(root, 700_000, "claude-opus-5-5")
    a = cli_json(root, "next")
    assert (a["kind"], a["contextWindow"]) == ("compact", 1_000_000)
    assert a["instructions"].startswith(
        "The conversation holds 700000 tokens, 70% of its 1000000-token window (advice at 70%)."
    )


def test_a_200k_model_and_a_configured_window(root: Path) -> None:
    walk_to(root, "1.1")
    _context(root, 141_000, "claude-sonnet-4-5-20250929")
    assert cli_json(root, "next")["contextWindow"] == 200_000
    _context(root, 141_000, "claude-opus-5-5")
    (root / ".agents" / "config.json").write_text(
        json.dumps({"compaction": {"contextWindowTokens": 200_000, "contextPercent": 60}})
    )
    a = cli_json(root, "next")  # a configured window wins over the model's
    assert a["kind"] == "compact"
    assert a["instructions"].startswith(
        "The conversation holds 141000 tokens, 70% of its 200000-token window (advice at 60%)."
    )
