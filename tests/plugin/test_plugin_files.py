"""Issue 6: what `claude plugin validate --strict` does not check in the plugin's files.

Skill names and description lengths (Agent Skills rules), agent names, models and profiles,
every shell line of a command covered by its allowed-tools, user arguments only inside quoted
here-documents, hook event names and commands, and no ``hooks`` key in plugin.json.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pluginfiles import (
    PLACEHOLDER,
    PLUGIN_ROOT,
    Doc,
    agents,
    bash_rules,
    commands,
    manifest,
    rule_covers,
    shell_blocks,
    simple_commands,
    skills,
    split_heredocs,
)

from agents_state.handoff.protocol import check_handoff
from agents_state.hooks import EVENTS
from agents_state.profiles import get_profile, tool_allowed

KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
SKILLS = {
    "workflow",
    "configuration",
    "complexity-scorer",
    "plan-writer",
}
AGENTS = {
    # design 004: the workers the orchestrator launches per phase
    "explore-agent",
    "plan-agent",
    "task-agent",
    # design 000: the eleven consolidated templates
    "domain-researcher",
    "domain-writer",
    "quality-validator",
    "quality-checker",
    "spec-analyzer",
    "git-content-generator",
    "code-analyzer",
    "git-executor",
    "pr-reviewer",
    "security-scanner",
    "parallel-executor",
}
COMMANDS = {"dispatch", "resume", "status", "stop", "next", "dry-run", "report"}
# issue 10: the orchestrator chains of designs 000 / 002
COMMANDS |= {"code", "plan", "ui", "docs", "eval", "check", "git"}
MODELS = {"sonnet", "opus", "haiku", "inherit"}
TOOLS = {
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Bash",
    "Grep",
    "Glob",
    "WebFetch",
    "WebSearch",
    "Agent",
    "Task",
    "TodoWrite",
}
# Hook events of Claude Code 2.1.330 that this plugin may use.
HOOK_EVENTS = {
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Notification",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "PermissionRequest",
}
LAUNCHER_HOOK = '"${CLAUDE_PLUGIN_ROOT}/bin/agents-state" hook '
INSTALL_HOOK = '"${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"'
# event -> the hook commands, in order: install first, then the engine's handlers
WIRED = {
    "SessionStart": [INSTALL_HOOK],
    "PreToolUse": [LAUNCHER_HOOK + "pre-tool-use", LAUNCHER_HOOK + "permission"],
    "PostToolUse": [LAUNCHER_HOOK + "post-tool-use"],
    "PostToolUseFailure": [LAUNCHER_HOOK + "post-tool-use-failure"],
    "SubagentStart": [LAUNCHER_HOOK + "subagent-start"],
    "SubagentStop": [LAUNCHER_HOOK + "subagent-stop"],
    "Stop": [LAUNCHER_HOOK + "stop"],  # the main conversation's token usage (issue 24)
    "PermissionRequest": [LAUNCHER_HOOK + "permission-request"],
}


def ids(docs: list[Doc]) -> list[str]:
    return [d.path.parent.name if d.path.name == "SKILL.md" else d.path.stem for d in docs]


# -- manifest --------------------------------------------------------------------------------


def test_manifest_fields() -> None:
    m = manifest()
    assert m["name"] == "subagents"
    assert re.fullmatch(r"\d+\.\d+\.\d+", m["version"])
    assert 20 <= len(m["description"]) <= 1024
    assert isinstance(m["author"], dict) and m["author"]["name"]
    assert m["license"]
    assert isinstance(m["keywords"], list) and all(isinstance(k, str) for k in m["keywords"])


def test_manifest_does_not_name_hooks() -> None:
    # hooks/hooks.json loads by itself; naming it again made Claude Code load no hooks at all
    assert "hooks" not in manifest()


def test_marketplace_lists_this_plugin() -> None:
    market = json.loads((PLUGIN_ROOT / ".claude-plugin" / "marketplace.json").read_text())
    m = manifest()
    (entry,) = market["plugins"]
    assert KEBAB.fullmatch(market["name"])
    assert entry["name"] == m["name"]
    assert entry["source"] == "./"
    assert entry["version"] == m["version"]


def test_package_version_matches_plugin() -> None:
    from agents_state import __version__

    assert manifest()["version"] == __version__


# -- skills ----------------------------------------------------------------------------------


def test_every_designed_skill_exists() -> None:
    assert set(ids(skills())) == SKILLS


@pytest.mark.parametrize("doc", skills(), ids=ids(skills()))
def test_skill_name_and_description(doc: Doc) -> None:
    name = doc.meta["name"]
    assert name == doc.path.parent.name
    assert 1 <= len(name) <= 64 and KEBAB.fullmatch(name), name
    assert 1 <= len(doc.meta["description"]) <= 1024


@pytest.mark.parametrize("doc", skills(), ids=ids(skills()))
def test_skill_drives_the_cli(doc: Doc) -> None:
    assert "agents-state " in doc.body
    assert doc.meta.get("allowed-tools") == "Bash(agents-state *)"
    if "state.json" in doc.body:
        assert re.search(r"[Nn]ever (edit|write) [`]?\.agents/state\.json", doc.body), (
            "a skill that names state.json must say never to edit it"
        )


# -- agents ----------------------------------------------------------------------------------


def test_every_designed_agent_exists() -> None:
    assert set(ids(agents())) == AGENTS


@pytest.mark.parametrize("doc", agents(), ids=ids(agents()))
def test_agent_front_matter(doc: Doc) -> None:
    name = doc.meta["name"]
    assert name == doc.path.stem
    assert KEBAB.fullmatch(name) and ":" not in name
    assert 20 <= len(doc.meta["description"]) <= 1024
    model = doc.meta["model"]
    assert model in MODELS or model.startswith("claude-"), model
    tools = [t.strip() for t in doc.meta["tools"].split(",")]
    host = {t for t in tools if not t.startswith("mcp__")}  # MCP tools: test_agent_mcp_tools.py
    assert tools and host <= TOOLS, host - TOOLS
    assert "Agent" not in tools and "Task" not in tools, "sub-agents cannot start sub-agents"


@pytest.mark.parametrize("doc", agents(), ids=ids(agents()))
def test_agent_tools_fit_its_profile(doc: Doc) -> None:
    # the PreToolUse hook denies what the profile does not allow: the two must agree
    profile = get_profile(doc.meta["profile"])
    assert profile is not None, doc.meta["profile"]
    for tool in doc.meta["tools"].split(","):
        tool = tool.strip()
        if tool.startswith("mcp__") and tool.count("__") == 1:  # a server: some of its tools
            assert any(t.startswith(tool + "__") for t in profile.tools), tool
            continue
        assert tool_allowed(profile, tool), f"{tool} not in {profile.name}"


@pytest.mark.parametrize("doc", agents(), ids=ids(agents()))
def test_agent_sections(doc: Doc) -> None:
    headings = re.findall(r"^## (\w+)", doc.body, re.M)
    assert headings == ["Role", "Profile", "Input", "Behaviour", "Output"]
    assert ".agents/" in doc.body  # every agent is told to keep out of the state


def _first_choice(value: Any) -> Any:
    if isinstance(value, str) and " | " in value:
        return value.split(" | ")[0]
    if isinstance(value, dict):
        return {k: _first_choice(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_first_choice(v) for v in value]
    return value


@pytest.mark.parametrize("doc", agents(), ids=ids(agents()))
def test_agent_output_is_a_valid_handoff(doc: Doc) -> None:
    output = doc.body.split("## Output", 1)[1]
    blocks = re.findall(r"```json\n(.*?)```", output, re.S)
    assert blocks, "the output section shows its handoff JSON"
    example = _first_choice(json.loads(blocks[-1]))
    check_handoff(example, str(doc.path))  # raises with every problem


# -- commands --------------------------------------------------------------------------------


def test_every_command_exists() -> None:
    assert set(ids(commands())) == COMMANDS


@pytest.mark.parametrize("doc", commands(), ids=ids(commands()))
def test_command_front_matter(doc: Doc) -> None:
    assert 10 <= len(doc.meta["description"]) <= 200
    if "argument-hint" in doc.meta:
        # an unquoted [hint] is a YAML list, which Claude Code 2.1.197 rejects
        assert doc.raw_meta["argument-hint"][0] == '"'


@pytest.mark.parametrize("doc", commands(), ids=ids(commands()))
def test_every_shell_line_is_allowed(doc: Doc) -> None:
    rules = bash_rules(doc.meta["allowed-tools"])
    blocks = shell_blocks(doc.body)
    assert blocks, "each command runs agents-state"
    for block in blocks:
        script, _ = split_heredocs(block)
        for command in simple_commands(script):
            assert any(rule_covers(r, command) for r in rules), (command, rules)


@pytest.mark.parametrize("doc", commands(), ids=ids(commands()))
def test_arguments_reach_the_shell_only_as_heredoc_data(doc: Doc) -> None:
    for block in shell_blocks(doc.body):
        script, bodies = split_heredocs(block)
        assert not PLACEHOLDER.search(script), f"argument placeholder in shell text: {block!r}"
        for body in bodies:
            # the placeholder alone on its line: the delimiter can only be forged on a line of
            # its own, and then the permission check refuses the whole block
            assert body.strip() in ("", "$ARGUMENTS"), body


@pytest.mark.parametrize("doc", commands(), ids=ids(commands()))
def test_command_runs_agents_state_and_cannot_abort(doc: Doc) -> None:
    for block in shell_blocks(doc.body):
        script, _ = split_heredocs(block)
        lines = [c for c in simple_commands(script)]
        assert lines[0].startswith("agents-state ")
        # a non-zero exit would abort the command before the model reads the CLI's message
        assert lines[-1] == "true"


@pytest.mark.parametrize("doc", [*skills(), *agents()], ids=ids([*skills(), *agents()]))
def test_skills_and_agents_run_no_shell_on_load(doc: Doc) -> None:
    assert not shell_blocks(doc.body)


# -- hooks -----------------------------------------------------------------------------------


def _hooks() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PLUGIN_ROOT / "hooks" / "hooks.json").read_text())
    return data


def test_hook_events_are_known_and_wired() -> None:
    hooks = _hooks()["hooks"]
    assert set(hooks) <= HOOK_EVENTS, set(hooks) - HOOK_EVENTS
    assert set(hooks) == set(WIRED)


def test_hook_commands_call_the_launcher() -> None:
    for event, groups in _hooks()["hooks"].items():
        hooks = [hook for group in groups for hook in group["hooks"]]
        assert [h["command"] for h in hooks] == WIRED[event]
        for hook in hooks:
            assert hook["type"] == "command"
            if hook["command"] == INSTALL_HOOK:  # may build the engine's venv: minutes
                assert 60 <= hook["timeout"] <= 600
                continue
            assert hook["command"].removeprefix(LAUNCHER_HOOK) in EVENTS  # the CLI handles it
            assert 1 <= hook["timeout"] <= 30  # a stuck hook cannot hold the session long


def test_approvals_run_only_for_the_tools_they_judge() -> None:
    (_, approvals) = _hooks()["hooks"]["PreToolUse"]
    assert approvals["matcher"] == "Bash|Write|Edit|MultiEdit|Skill|Workflow"  # issue 25


# -- the checks above catch what they are meant to ---------------------------------------------


def test_the_checks_catch_unsafe_shell_lines() -> None:
    body = 'Run: !`agents-state dispatch "$ARGUMENTS"` then !`rm -rf x`\n'
    blocks = shell_blocks(body)
    assert blocks == ['agents-state dispatch "$ARGUMENTS"', "rm -rf x"]
    assert PLACEHOLDER.search(split_heredocs(blocks[0])[0])
    assert not any(rule_covers("agents-state *", c) for c in simple_commands(blocks[1]))
    script, bodies = split_heredocs("agents-state x <<'E'\n$ARGUMENTS; rm -rf ~\nE\ntrue")
    assert (simple_commands(script), bodies) == (
        ["agents-state x <<'E'", "true"],
        ["$ARGUMENTS; rm -rf ~"],
    )
    # an unquoted delimiter expands its body: it does not count as data
    script, bodies = split_heredocs("agents-state x <<E\n$ARGUMENTS\nE")
    assert bodies == [] and PLACEHOLDER.search(script)
    assert simple_commands("a; b && c || d | e") == ["a", "b", "c", "d", "e"]


def test_the_install_hook_says_what_it_does_while_it_runs() -> None:
    # issue 27: the host shows a hook's statusMessage in its spinner while the hook runs
    (group,) = _hooks()["hooks"]["SessionStart"]
    (hook,) = group["hooks"]
    assert hook["command"] == INSTALL_HOOK
    assert hook["statusMessage"] == (
        "agents-state: checking the engine (the first session after an install or update "
        "builds it: usually 15-40 s)"
    )
