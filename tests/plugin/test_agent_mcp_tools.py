"""Issue 27, item 5: an agent file's ``tools:`` line names the MCP tools its profile grants (a
sub-agent gets only the tools its line names, so a tool left out is one it can never call), and
no MCP tool the profile refuses (the PreToolUse hook would deny it)."""

from __future__ import annotations

import pytest
from pluginfiles import Doc, agents

from agents_state.profiles import CCLSP_EDIT, CCLSP_READ, CONTEXT7, Profile, get_profile


def mcp_mismatch(tools_line: str, profile: Profile) -> tuple[set[str], set[str]]:
    """(granted but not on the line, on the line but not granted)."""
    listed = {t.strip() for t in tools_line.split(",") if t.strip().startswith("mcp__")}
    granted = {t for t in profile.tools if t.startswith("mcp__")}
    return granted - listed, listed - granted


@pytest.mark.parametrize("doc", agents(), ids=[d.path.stem for d in agents()])
def test_the_tools_line_names_every_mcp_tool_the_profile_grants(doc: Doc) -> None:
    profile = get_profile(doc.meta["profile"])
    assert profile is not None
    assert mcp_mismatch(doc.meta["tools"], profile) == (set(), set())


def test_the_lines_carry_what_each_profile_family_grants() -> None:
    by_name = {d.path.stem: d.meta["tools"] for d in agents()}
    assert all(t in by_name["explore-agent"] for t in CCLSP_READ)
    assert all(t in by_name["domain-researcher"] for t in CONTEXT7)
    assert all(t in by_name["task-agent"] for t in CCLSP_EDIT)
    assert not any(t in by_name["pr-reviewer"] for t in CCLSP_EDIT)


def test_a_line_without_them_is_found() -> None:
    profile = get_profile("researcher")
    assert profile is not None
    missing, extra = mcp_mismatch("Read, Grep, Glob, WebFetch, WebSearch", profile)
    assert missing == set(CCLSP_READ) | set(CONTEXT7) and extra == set()
    missing, extra = mcp_mismatch(", ".join([*profile.tools, CCLSP_EDIT[0]]), profile)
    assert (missing, extra) == (set(), {CCLSP_EDIT[0]})
