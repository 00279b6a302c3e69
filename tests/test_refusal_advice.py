"""Issue 27, item 2: a project step the host refused explains itself in the blocked next action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clitools import cli_json, run_cli

from agents_state.store.allowrules import PERSON
from agents_state.store.refusals import refusal_of, rule_for

TASK_AGENT = "subagents:task-agent"
REFUSED = (
    "Claude requested permissions to write to /work/src/app.py, but you haven't granted it yet."
)


@pytest.mark.parametrize(
    ("tool", "tool_input", "rule"),
    [
        ("Edit", {"file_path": "src/app.py"}, '"Edit(src/app.py)"'),
        ("MultiEdit", {"file_path": "/work/src/app.py"}, '"Edit(src/app.py)"'),
        ("Write", {"file_path": "/work/src/app.py"}, '"Edit(src/app.py)"'),
        ("Write", {"file_path": "/tmp/out.txt"}, '"Edit(//tmp/out.txt)"'),
        ("Write", {"file_path": "/work/.agents/worktrees/t1/a.py"}, '"Edit(.agents/worktrees/**)"'),
        ("Bash", {"command": "make test"}, '"Bash(make test)"'),
        ("Bash", {"command": "pytest " + "x" * 100}, f'"Bash(pytest {"x" * 100})"'),
        ("Bash", {"command": "cd src && make"}, '"Bash(cd src)", "Bash(make)"'),
        ("Bash", {"command": "echo 'a && b' | wc"}, '"Bash(echo \'a && b\')", "Bash(wc)"'),
        ("Bash", {"command": "agents-state budget --raise 9"}, PERSON),
        ("Bash", {"command": "agents-state dispatch --replace x"}, PERSON),
        ("Write", {"file_path": "/work/.agents/phases/3.1-test-results.json"}, PERSON),
        ("Bash", {"command": "git log --skip 3 resume"}, '"Bash(git log --skip 3 resume)"'),
        ("Bash", {}, '"Bash"'),
        ("WebFetch", {"url": "https://example.org"}, '"WebFetch"'),
    ],
)
def test_the_rule_that_lets_a_call_run(tool: str, tool_input: dict[str, Any], rule: str) -> None:
    assert rule_for(tool, tool_input, "/work") == rule


def test_only_refusals_are_kept() -> None:
    failed = {"tool_name": "Bash", "tool_input": {"command": "make test"}, "error": "Exit code 2"}
    assert refusal_of(failed, "2026-01-01T00:00:00Z") is None
    refused = {
        "tool_name": "Write",
        "tool_input": {"file_path": "/work/src/app.py"},
        "error": REFUSED,
        "agent_id": "a7",
        "agent_type": "subagents:task-agent",
    }
    assert refusal_of(refused, "2026-01-01T00:00:00Z") == {
        "agent": "a7",
        "agentType": "subagents:task-agent",
        "tool": "Write",
        "target": "/work/src/app.py",
        "rules": ["Edit(//work/src/app.py)"],
        "rule": '"Edit(//work/src/app.py)"',
        "error": REFUSED,
        "at": "2026-01-01T00:00:00Z",
    }


def _failure(root: Path, **payload: Any) -> None:
    data = {"hook_event_name": "PostToolUseFailure", "cwd": str(root), "session_id": "s", **payload}
    proc = run_cli(root, "hook", "post-tool-use-failure", stdin=json.dumps(data))
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr


def _block(root: Path) -> None:
    stop = {
        "task_id": "explore-1",
        "phase": "research",
        "status": "blocked",
        "decision": "STOP",
        "reason": REFUSED,
        "context_summary": "The write was refused.",
    }
    proc = run_cli(root, "handoff", "record", "-", "--phase", "0", stdin=json.dumps(stop))
    assert proc.returncode == 0, proc.stderr


def test_a_blocked_workflow_names_the_refusal_and_the_rule(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    _failure(  # a task agent's write, refused headless; then a test command of another agent
        root,
        tool_name="Write",
        tool_input={"file_path": "src/app.py", "content": "x"},
        error=REFUSED,
        agent_id="a1",
        agent_type="subagents:task-agent",
    )
    _failure(root, tool_name="Read", tool_input={"file_path": "x"}, error="File does not exist.")
    (kept,) = json.loads((root / ".agents" / "refusals.json").read_text())["refused"]
    assert kept["rule"] == '"Edit(src/app.py)"'
    _block(root)
    a = cli_json(root, "next")
    assert a["kind"] == "ask_user"
    said = (
        "Claude Code refused calls of this step. To let an unattended run (claude -p) go on, add "
        "to permissions.allow in .claude/settings.local.json (docs/plugin.md, Unattended runs), "
        "then retry the step:\n"
        '- Write src/app.py (subagents:task-agent a1): allow "Edit(src/app.py)"'
    )
    assert a["reason"] == f"research explore-1 said STOP: {REFUSED} {said}"
    assert a["instructions"].endswith(
        "ask the user which option to take, then run that option's command only. "
        "The reason names the refused calls and the rules to add."
    )
    (refusal,) = a["refusals"]
    assert refusal["agent"] == "a1" and refusal["tool"] == "Write"


def test_a_block_without_a_refusal_is_worded_as_before(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    _failure(root, tool_name="Bash", tool_input={"command": "make"}, error="Exit code 2")
    _block(root)
    a = cli_json(root, "next")
    assert a["kind"] == "ask_user" and "refusals" not in a
    assert a["reason"] == f"research explore-1 said STOP: {REFUSED}"


def _asked(root: Path, **payload: Any) -> None:
    data = {"hook_event_name": "PermissionRequest", "cwd": str(root), "session_id": "s", **payload}
    proc = run_cli(root, "hook", "permission-request", stdin=json.dumps(data))
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr


def test_a_permission_request_headless_is_the_refusal(root: Path) -> None:
    """Headless, the host refuses what it would ask, and PostToolUseFailure does not fire."""
    assert run_cli(root, "dispatch", "x").returncode == 0
    command = {"command": "make test"}
    _asked(root, tool_name="Bash", tool_input=command, agent_id="a2", agent_type=TASK_AGENT)
    assert not (root / ".agents" / "toolcalls.log").exists()  # asked, not yet a call
    _block(root)
    a = cli_json(root, "next")
    assert a["reason"].endswith('\n- Bash (subagents:task-agent a2): allow "Bash(make test)"')


def test_a_request_a_person_approved_is_forgotten(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    write = {"file_path": "src/app.py", "content": "x"}
    _asked(root, tool_name="Write", tool_input=write, agent_id="a3", agent_type=TASK_AGENT)
    data = {"cwd": str(root), "tool_name": "Write", "tool_input": write, "agent_id": "a3"}
    assert run_cli(root, "hook", "post-tool-use", stdin=json.dumps(data)).returncode == 0
    assert json.loads((root / ".agents" / "refusals.json").read_text()) == {"refused": []}
    _block(root)
    assert "refusals" not in cli_json(root, "next")


VALIDATOR = "subagents:validator"
CONTAINED = (
    "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run --clearenv "
    "-- /bin/bash -c 'python -m pytest -q && ruff check .' 3</p/.agents/seccomp.bpf"
)
LONG = "cd .agents/worktrees/_integration && python -m pytest -q tests/test_health.py --maxfail=1"


def test_issue33_every_refused_call_of_the_step_names_its_rule(root: Path) -> None:
    """Headless with only the plugin's rules: a task's Write in its worktree, a validator's
    contained Bash and a plain command of the main conversation, all refused in one step, each
    get the rule docs/plugin.md gives; a person's decision gets none; never ``Bash(cd *)``."""
    assert run_cli(root, "dispatch", "x").returncode == 0
    write = {"file_path": str(root / ".agents/worktrees/t1/src/app.py"), "content": "x"}
    _asked(root, tool_name="Write", tool_input=write, agent_id="a1", agent_type=TASK_AGENT)
    again = {"file_path": str(root / ".agents/worktrees/t2/src/b.py"), "content": "y"}
    _asked(root, tool_name="Write", tool_input=again, agent_id="a2", agent_type=TASK_AGENT)
    _asked(
        root,
        tool_name="Bash",
        tool_input={"command": CONTAINED},
        agent_id="v1",
        agent_type=VALIDATOR,
    )
    _asked(root, tool_name="Bash", tool_input={"command": LONG})
    _asked(root, tool_name="Bash", tool_input={"command": LONG})  # the same call: kept once
    _asked(root, tool_name="Bash", tool_input={"command": "agents-state resume --skip"})
    kept = json.loads((root / ".agents" / "refusals.json").read_text())["refused"]
    assert len(kept) == 5
    _block(root)
    a = cli_json(root, "next")
    lines = a["reason"].split("\n")[1:]
    assert lines == [
        "- Write .agents/worktrees/t2/src/b.py (subagents:task-agent a2): "
        'allow "Edit(.agents/worktrees/**)"',
        '- Bash (subagents:validator v1): allow "Bash(/usr/bin/bwrap --ro-bind / / --dev /dev '
        '--proc /proc --tmpfs /tmp:*)"',
        '- Bash (orchestrator): allow "Bash(cd .agents/worktrees/_integration)", "Bash(python -m '
        'pytest -q tests/test_health.py --maxfail=1)"',
        "- Bash agents-state resume --skip (orchestrator): the person's decision: they run it "
        "themselves, no rule",
    ]
    assert "cd *" not in json.dumps(a)
    assert [r["agent"] for r in a["refusals"]] == ["a1", "a2", "v1", "main", "main"]
    text = run_cli(root, "status")
    assert text.returncode == 0 and '"Edit(.agents/worktrees/**)"' in text.stdout


def test_issue33_a_refused_call_that_then_runs_is_forgotten(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    _asked(root, tool_name="Bash", tool_input={"command": "make lint"}, agent_id="a1")
    _asked(root, tool_name="Bash", tool_input={"command": "make test"}, agent_id="a1")
    ran = {"cwd": str(root), "tool_name": "Bash", "tool_input": {"command": "make lint"}}
    assert run_cli(root, "hook", "post-tool-use", stdin=json.dumps(ran)).returncode == 0
    kept = json.loads((root / ".agents" / "refusals.json").read_text())["refused"]
    assert [r["target"] for r in kept] == ["make test"]
    _block(root)
    a = cli_json(root, "next")
    assert "make lint" not in a["reason"] and '"Bash(make test)"' in a["reason"]


def test_issue33_refusals_are_bounded_oldest_dropped(root: Path) -> None:
    from agents_state.store.refusals import KEPT, refusal_of, remember

    assert run_cli(root, "dispatch", "x").returncode == 0
    for n in range(KEPT + 3):
        payload = {"tool_name": "Bash", "tool_input": {"command": f"make t{n}"}, "error": REFUSED}
        refusal = refusal_of(payload, f"2026-01-01T00:00:{n:02d}Z", str(root))
        assert refusal is not None
        remember(str(root), refusal)
    kept = json.loads((root / ".agents" / "refusals.json").read_text())["refused"]
    assert [r["target"] for r in kept] == [f"make t{n}" for n in range(3, KEPT + 3)]


def test_issue33_the_advice_for_a_task_agents_calls_is_the_documented_block() -> None:
    """The rules a blocked run names for a task agent's write in its worktree and its contained
    call are the ones docs/plugin.md lists for a headless run (the block test_unattended_e2e
    runs a whole workflow with): advice and doc cannot drift."""
    import re

    from agents_state.store.allowrules import rules_for

    doc = (Path(__file__).resolve().parents[1] / "docs" / "plugin.md").read_text()
    found = re.search(r"\*\*The rules a headless run needs\*\*.*?```json\n(.*?)```", doc, re.S)
    assert found is not None
    block = json.loads(found.group(1))["permissions"]["allow"]
    write = rules_for("Write", {"file_path": "/p/.agents/worktrees/t2/src/b.py"}, "/p")
    contained = " ".join(
        ["/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp", "--chdir /p -- x"]
    )
    assert [*write, *rules_for("Bash", {"command": contained}, "/p")] == block
