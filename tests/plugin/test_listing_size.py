"""Issue 34, item 4: the plugin's agents, skills, commands and workflow take at most 5,000
characters of the host's listing, which every main-conversation request carries.

The listing is built from the plugin files as the host builds it (``listing.py``); the slow test
holds that builder to what the real CLI puts in its first request."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_cli import require_claude, run_claude
from listing import LISTED, listing_lines, listing_size
from stub_api import StubAPI, request_text

LIMIT = 5_000


def test_the_listing_is_at_most_5000_characters() -> None:
    lines = listing_lines()
    longest = sorted(lines, key=len, reverse=True)[:3]
    assert listing_size() <= LIMIT, (listing_size(), longest)


def test_no_agent_line_names_an_mcp_tool_one_by_one() -> None:
    """An MCP server's tools are granted by its name (``mcp__cclsp``), not listed one by one."""
    named = [
        line for line in listing_lines() if "mcp__cclsp__" in line or "mcp__context7__" in line
    ]
    assert named == []


@pytest.mark.slow
def test_the_builder_is_what_the_real_host_lists(root: Path) -> None:
    require_claude()
    with StubAPI() as api:
        proc = run_claude(root, api, "hello", path="/usr/bin:/bin", timeout=180)
        assert proc.returncode == 0, proc.stderr
    first = api.requests[0]
    text = request_text({"messages": first.get("messages") or []})
    host = sorted(line for line in text.splitlines() if line.startswith(LISTED))
    assert host == sorted(listing_lines())
