"""Issue 23, item 3: profiles hold everywhere, checked through the launcher as Claude Code runs
the hook (``bin/agents-state hook pre-tool-use`` with the payload on stdin).

Before issue 23 each of these was allowed without Python ever starting: the launcher's fast
path exits when no ``.agents/state.json`` exists, which is so with a server store (the state is
in the database), in a folder with only chains, and for this plugin's agents outside a workflow.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from hookcalls import launch_hook, tool_call

VENV_BIN = Path(sys.executable).parent
SECRET = "KEY=do-not-leak\n"


def hook(cwd: Path, call: dict[str, Any], **env: str) -> str:
    """The hook's decision: "allow" (silence) or "deny: <reason>"."""
    proc = launch_hook(cwd, "pre-tool-use", call, CLAUDE_PROJECT_DIR=str(cwd), **env)
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return "allow"
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    return f"{out['permissionDecision']}: {out['permissionDecisionReason']}"


def call(cwd: Path, agent: str, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return tool_call(cwd, tool, tool_input, agent=agent)


def read_env(cwd: Path, agent: str) -> dict[str, Any]:
    return call(cwd, agent, "Read", {"file_path": ".env"})


def credential_denial(profile: str) -> str:
    return (
        f"deny: agents-state: the {profile} profile may not read or search credential files: "
        ".env: a credential file (.env, environment file); handoffs must stay free of secrets: "
        "continue without it, and if the task needs a value from it, finish with decision "
        "CLARIFY and ask the user."
    )


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_server_store_reaches_the_check(root: Path) -> None:
    """No state file on disk: the workflow is on the server, so the check must run (here the
    server cannot be reached, and a sub-agent's call is denied: fail closed)."""
    (root / ".env").write_text(SECRET)
    url = f"postgresql://me@127.0.0.1:{closed_port()}/db?workflow=w"
    got = hook(root, read_env(root, "explore"), AGENTS_STATE_STORE=url)
    assert got.startswith("deny: agents-state: cannot read the workflow from the server ("), got


def start_chain(root: Path) -> None:
    proc = subprocess.run(
        [str(VENV_BIN / "agents-state"), "chain", "start", "code", "add a thing"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (root / ".agents" / "state.json").exists()


def test_a_folder_with_only_chains(root: Path) -> None:
    (root / ".env").write_text(SECRET)
    start_chain(root)
    # a project's own agent type (scaffolded templates are named like this)
    assert hook(root, read_env(root, "domain-researcher")) == credential_denial("researcher")
    ls = call(root, "quality-validator", "Bash", {"command": "cat .env"})
    assert hook(root, ls).startswith("deny: agents-state: the validator profile may not read")
    # the chain done: no active chain, no workflow, and this agent is not the plugin's
    chain = root / ".agents" / "chains" / "code-1.json"
    chain.write_text(chain.read_text().replace('"status": "running"', '"status": "aborted"', 1))
    assert hook(root, read_env(root, "domain-researcher")) == "allow"


def test_an_unreadable_chain_fails_closed(root: Path) -> None:
    start_chain(root)
    (root / ".agents" / "chains" / "code-1.json").write_text("{not json")
    got = hook(root, call(root, "domain-researcher", "Read", {"file_path": "a.py"}))
    assert got.startswith("deny: agents-state: ") and "code-1.json is not valid JSON" in got, got


def test_plugin_agents_without_a_workflow(root: Path) -> None:
    """No .agents/ at all: this plugin's agents still run with their profiles."""
    (root / ".env").write_text(SECRET)
    assert hook(root, read_env(root, "subagents:explore-agent")) == credential_denial("reader")
    write = call(root, "subagents:explore-agent", "Write", {"file_path": "a.py", "content": ""})
    assert hook(root, write).startswith(
        "deny: agents-state: agent 'explore-agent' runs with the reader profile"
    )
    grep = call(root, "subagents:quality-validator", "Grep", {"pattern": "KEY", "path": "."})
    assert hook(root, grep).startswith("deny: agents-state: the validator profile may not read")
    # what they may do stays allowed; other agents are not this plugin's business here
    assert hook(root, call(root, "subagents:explore-agent", "Read", {"file_path": "a.py"})) == (
        "allow"
    )
    assert hook(root, read_env(root, "general-purpose")) == "allow"
    assert hook(root, read_env(root, "Explore")) == "allow"


def test_an_explore_agents_first_glob_is_allowed(root: Path) -> None:
    """Item 4: `Glob **/*` lists names; it was denied in any project with a .env."""
    (root / ".env").write_text(SECRET)
    (root / ".agents").mkdir()
    (root / ".agents" / "state.json").write_text('{"status": "in_progress"}')
    glob = call(root, "subagents:explore-agent", "Glob", {"pattern": "**/*"})
    assert hook(root, glob) == "allow"
    grep = call(root, "subagents:explore-agent", "Grep", {"pattern": "KEY", "glob": "**/*"})
    assert hook(root, grep) == credential_denial("reader").replace(
        ".env: a credential", "Grep over '.' with glob '**/*' would reach .env: a credential"
    )
    assert hook(root, read_env(root, "subagents:explore-agent")) == credential_denial("reader")
