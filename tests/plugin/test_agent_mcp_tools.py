"""Issue 27, item 5, and issue 34, item 4: an agent file's ``tools:`` line names each MCP server
its profile grants tools of, by the server's name (``mcp__cclsp``: the host gives the agent that
server's tools; a sub-agent gets only the tools its line names, so a server left out is one it can
never call), and no server the profile grants nothing of.  The server's name keeps the host's
listing small (issue 34: every main request carries the line); which of its tools the agent may
call is the profile's, enforced by the PreToolUse hook, which refuses the rest."""

from __future__ import annotations

from pathlib import Path

import pytest
from pluginfiles import Doc, agents

from agents_state.profiles import (
    CCLSP_EDIT,
    CCLSP_READ,
    CONTEXT7,
    Profile,
    get_profile,
    tool_allowed,
)


def server(tool: str) -> str:
    return "mcp__" + tool.split("__")[1]


def mcp_mismatch(tools_line: str, profile: Profile) -> tuple[set[str], set[str]]:
    """(servers granted but not on the line, on the line but not granted)."""
    listed = {t.strip() for t in tools_line.split(",") if t.strip().startswith("mcp__")}
    granted = {server(t) for t in profile.tools if t.startswith("mcp__")}
    return granted - listed, listed - granted


@pytest.mark.parametrize("doc", agents(), ids=[d.path.stem for d in agents()])
def test_the_tools_line_names_every_mcp_server_the_profile_grants(doc: Doc) -> None:
    profile = get_profile(doc.meta["profile"])
    assert profile is not None
    assert mcp_mismatch(doc.meta["tools"], profile) == (set(), set())
    named = [t.strip() for t in doc.meta["tools"].split(",") if t.strip().startswith("mcp__")]
    assert all(t.count("__") == 1 for t in named), named  # servers, not tools one by one


@pytest.mark.parametrize("doc", agents(), ids=[d.path.stem for d in agents()])
def test_the_hook_refuses_the_tools_of_a_listed_server_the_profile_does_not_grant(
    doc: Doc,
) -> None:
    profile = get_profile(doc.meta["profile"])
    assert profile is not None
    listed = {t.strip() for t in doc.meta["tools"].split(",")}
    for tool in (*CCLSP_READ, *CCLSP_EDIT, *CONTEXT7):
        if server(tool) in listed:
            assert tool_allowed(profile, tool) == (tool in profile.tools), tool


def test_the_lines_carry_what_each_profile_family_grants() -> None:
    by_name = {d.path.stem: d.meta["tools"] for d in agents()}
    assert "mcp__cclsp" in by_name["explore-agent"]
    assert "mcp__context7" in by_name["domain-researcher"]
    assert "mcp__cclsp" in by_name["task-agent"]
    reviewer = get_profile("validator")
    assert reviewer is not None and not any(tool_allowed(reviewer, t) for t in CCLSP_EDIT)


def test_a_line_without_them_is_found() -> None:
    profile = get_profile("researcher")
    assert profile is not None
    missing, extra = mcp_mismatch("Read, Grep, Glob, WebFetch, WebSearch", profile)
    assert missing == {"mcp__cclsp", "mcp__context7"} and extra == set()
    missing, extra = mcp_mismatch("Read, mcp__cclsp, mcp__context7, mcp__github", profile)
    assert (missing, extra) == (set(), {"mcp__github"})


def unknown(server_name: str) -> str:
    """A tool the server may add later: deny by default, whatever the host grants."""
    return f"{server_name}__a_tool_added_later"


@pytest.mark.parametrize("doc", agents(), ids=[d.path.stem for d in agents()])
def test_the_hook_denies_every_tool_of_a_listed_server_the_profile_does_not_grant(
    doc: Doc, tmp_path: Path
) -> None:
    """Issue 34 (second round): the host grants an agent the whole server its line names; the
    real PreToolUse hook (through the launcher, as Claude Code runs it) refuses every tool of it
    the agent's profile does not grant, one added later included, and lets a granted one through."""
    from test_profiles_everywhere import call, hook

    profile = get_profile(doc.meta["profile"])
    assert profile is not None
    listed = {t.strip() for t in doc.meta["tools"].split(",") if t.strip().startswith("mcp__")}
    agent = f"subagents:{doc.meta['name']}"
    for name in sorted(listed):
        known = [t for t in (*CCLSP_READ, *CCLSP_EDIT, *CONTEXT7) if server(t) == name]
        for tool in [t for t in known if t not in profile.tools] + [unknown(name)]:
            got = hook(tmp_path, call(tmp_path, agent, tool, {}))
            assert got.startswith(f"deny: agents-state: agent '{doc.meta['name']}' runs with"), (
                tool,
                got,
            )
        granted = next(t for t in known if t in profile.tools)
        assert hook(tmp_path, call(tmp_path, agent, granted, {})) == "allow", granted
