"""Issue 36: the MCP server through the official SDK's client (the installed ``agents-state mcp``
over stdio): its list and sizes, each tool against its command's ``--json``, errors as the
command's one line, and a workflow driven through the tools alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from clitools import run_cli
from mcpclient import Session, differences, mask, serve

MAX_LIST = 10 * 1024
MAX_ANSWER = 4 * 1024
RESPONSE = {
    "task_id": "explore-1",
    "phase": "research",
    "status": "completed",
    "decision": "PROCEED",
    "context_summary": "The login lives in src/auth.",
}
TASKS = {
    "tasks": [
        {"id": "t1", "title": "one", "dependencies": []},
        {"id": "t2", "title": "two", "dependencies": []},
        {"id": "t3", "title": "three", "dependencies": ["t1", "t2"]},
    ]
}


def test_tools_list_has_at_most_eight_tools_in_10_kb_with_schemas(root: Path) -> None:
    async def body(s: Session) -> Any:
        return await s.client.list_tools()

    listed = serve(root, body)
    names = [t.name for t in listed.tools]
    assert names == ["status", "next", "compact", "dispatch", "phase", "task", "handoff"]
    for tool in listed.tools:
        assert tool.input_schema["type"] == "object" and tool.description
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    wire = orjson.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True))
    assert len(wire) <= MAX_LIST, len(wire)


def test_no_tool_answers_a_gate_or_takes_a_persons_decision(root: Path) -> None:
    async def body(s: Session) -> Any:
        return await s.client.list_tools()

    listed = serve(root, body)
    text = json.dumps([t.model_dump(mode="json", by_alias=True) for t in listed.tools]).lower()
    for word in ("gate", "approve", "reject", "replace", "force", "skip", "budget", "raise"):
        assert word not in text, word


def _lockstep() -> Steps:
    """(tool, its arguments, the command's words, the command's stdin) from dispatch to the
    tasks of 2.1: each tool of the server and each action of the multi-action ones."""
    response = json.dumps(RESPONSE)
    return [
        ("status", {}, ["status", "--brief"], None),
        ("dispatch", {}, ["dispatch"], None),
        ("dispatch", {"task": "add login"}, ["dispatch", "add login"], None),
        ("dispatch", {}, ["dispatch"], None),
        ("next", {}, ["next"], None),
        ("phase", {"action": "start", "phase": "0"}, ["phase", "start", "0"], None),
        (
            "handoff",
            {"response": response, "phase": "0"},
            ["handoff", "record", "-", "--phase", "0"],
            response,
        ),
        ("status", {}, ["status", "--brief"], None),
        ("phase", {"action": "start", "phase": "1.1"}, ["phase", "start", "1.1"], None),
        (
            "phase",
            {"action": "fail", "phase": "1.1", "error": "timed out"},
            ["phase", "fail", "1.1", "--error", "timed out"],
            None,
        ),
        (
            "phase",
            {"action": "complete", "phase": "1.1", "artifact": "# brainstorm\n", "plan_agents": 2},
            ["phase", "complete", "1.1", "--artifact", "-", "--plan-agents", "2"],
            "# brainstorm\n",
        ),
        ("next", {}, ["next"], None),
        ("compact", {}, ["compact"], None),
        ("status", {"verbose": True}, ["status", "--brief", "--verbose", "--limit", "20"], None),
    ]


def _cli(root: Path, words: list[str], stdin: str | None) -> tuple[int, Any]:
    proc = run_cli(root, *words, "--json", stdin=stdin)
    if proc.returncode:
        return proc.returncode, json.loads(proc.stderr)
    return 0, json.loads(proc.stdout)


Steps = list[tuple[str, dict[str, Any], list[str], str | None]]


def _twins(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    return a, b


def _walk(a: Path, b: Path, steps: Steps) -> None:
    """Run each step as a tool in project ``a`` and as its command in its twin ``b``: the
    same answers (times and the folder aside), the text block the same JSON, under 4 KB."""

    async def body(s: Session) -> None:
        for tool, args, words, stdin in steps:
            error, got, text = await s.call(tool, **args)
            code, want = _cli(b, words, stdin)
            shown = f"{tool} {args} vs {words}"
            assert error == bool(code), (shown, text, want)
            assert error or json.loads(text) == got, shown  # the text block: the same JSON
            assert len(text.encode()) <= MAX_ANSWER, (shown, len(text))
            got, want = mask(got, a, b), mask(want, a, b)
            assert got == want, (shown, differences(got, want))

    serve(a, body)


def test_each_tool_answers_as_its_command_json(tmp_path: Path) -> None:
    _walk(*_twins(tmp_path), _lockstep())


def _to_tasks(root: Path) -> None:
    from clitools import walk_to

    walk_to(root, "2.1")


def test_task_tool_answers_as_the_task_commands(tmp_path: Path) -> None:
    a, b = _twins(tmp_path)
    _to_tasks(a)
    _to_tasks(b)
    tasks = json.dumps(TASKS)
    (b / "tasks").write_text(tasks)  # the commands read files (the tools take their text)
    (b / "t1.md").write_text("# t1\n")
    result = str(b / "t1.md")
    steps: Steps = [
        ("task", {"action": "load", "tasks": tasks}, ["tasks", "load", "tasks"], None),
        ("task", {"action": "claim", "agent": "w1"}, ["task", "claim", "--agent", "w1"], None),
        (
            "task",
            {"action": "start", "id": "t1", "agent": "w1"},
            ["task", "start", "t1", "--agent", "w1"],
            None,
        ),
        (
            "task",
            {"action": "done", "id": "t1", "agent": "w1", "summary": "did it", "result": "# t1\n"},
            ["task", "done", "t1", "--agent", "w1", "--summary", "did it", "--result", result],
            None,
        ),
        (
            "task",
            {"action": "claim", "id": "t2", "agent": "w2"},
            ["task", "claim", "t2", "--agent", "w2"],
            None,
        ),
        (
            "task",
            {"action": "fail", "id": "t2", "agent": "w2", "error": "no"},
            ["task", "fail", "t2", "--agent", "w2", "--error", "no"],
            None,
        ),
        (
            "status",
            {"verbose": True, "offset": 1, "limit": 1},
            ["status", "--brief", "--verbose", "--offset", "1", "--limit", "1"],
            None,
        ),
    ]
    _walk(a, b, steps)


def test_an_error_is_the_commands_line_and_its_json_error(root: Path) -> None:
    assert run_cli(root, "dispatch", "add login").returncode == 0
    text_mode = run_cli(root, "task", "done", "nope", "--summary", "x")
    json_mode = run_cli(root, "task", "done", "nope", "--summary", "x", "--json")
    assert text_mode.returncode == json_mode.returncode != 0

    async def body(s: Session) -> tuple[bool, Any, str]:
        return await s.call("task", action="done", id="nope", summary="x")

    error, got, text = serve(root, body)
    assert error
    assert text == text_mode.stderr.strip() and "\n" not in text
    assert text.startswith("agents-state: error: ")
    assert got == json.loads(json_mode.stderr)


@pytest.mark.parametrize(
    ("tool", "args", "line"),
    [
        ("task", {"action": "done"}, "tool task: action done needs the argument id"),
        ("phase", {"phase": "0"}, "tool phase: argument action is required"),
        ("next", {"force": True}, "tool next: unknown argument force (arguments: none)"),
        (
            "status",
            {"limit": 0, "verbose": True},
            "tool status: argument limit: must be from 1 to 100",
        ),
        ("status", {"limit": 5}, "tool status: offset and limit page the tasks: add verbose true"),
        ("dispatch", {"task": "  "}, "the task is empty; describe what the workflow should do"),
    ],
)
def test_a_bad_argument_is_one_line(root: Path, tool: str, args: dict[str, Any], line: str) -> None:
    async def body(s: Session) -> tuple[bool, Any, str]:
        return await s.call(tool, **args)

    error, got, text = serve(root, body)
    assert error and text == f"agents-state: error: {line}"
    assert got == {"error": {"code": "usage", "message": line, "exit": 2}}
    assert not (root / ".agents").exists()  # nothing written


def test_a_workflow_goes_from_dispatch_to_phase_1_1_through_the_tools_alone(root: Path) -> None:
    """What a host's model does: dispatch, then follow ``next`` and record each step."""

    async def body(s: Session) -> list[str]:
        seen = []
        await s.ok("dispatch", task="add login")
        for _ in range(10):
            action = await s.ok("next")
            if action["kind"] == "compact":  # after EXPLORE
                await s.ok("compact")
                continue
            seen.append(action["phase"])
            if action["phase"] == "1.2":
                return seen
            assert action["command"].startswith(f"agents-state phase complete {action['phase']}")
            await s.ok("phase", action="start", phase=action["phase"])
            await s.ok("phase", action="complete", phase=action["phase"], artifact="# notes\n")
        raise AssertionError(seen)

    seen = serve(root, body)
    assert seen == ["0", "1.1", "1.2"]
    state = json.loads((root / ".agents/state.json").read_text())
    assert state["currentPhase"] == "1.2"
    for phase in ("0", "1.1"):
        stage = "EXPLORE" if phase == "0" else "PLAN"
        assert state["stages"][stage]["phases"][phase]["status"] == "completed"
    assert (root / ".agents/phases/0-explore.md").read_text() == "# notes\n"
    assert (root / ".agents/phases/1.1-brainstorm.md").read_text() == "# notes\n"


def test_the_server_works_on_the_root_it_is_given(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()

    async def body(s: Session) -> Any:
        return await s.ok("dispatch", task="elsewhere")

    got = serve(tmp_path, body, "--root", str(project))
    assert got["status"] == "in_progress"
    assert (project / ".agents/state.json").is_file()
    assert not (tmp_path / ".agents").exists()


def test_without_the_sdk_the_command_says_to_install_the_extra(root: Path) -> None:
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['mcp'] = None\n"
        "from agents_state.__main__ import main\n"
        "sys.exit(main(['mcp']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=root, check=False
    )
    assert proc.returncode == 3
    assert proc.stderr == (
        "agents-state: error: the MCP server needs the mcp package: "
        "pip install 'agents-state[mcp]'\n"
    )


_BUG = """
import agents_state.verbs.flow as flow

def _status(*args, **kwargs):
    raise RuntimeError("boom: token sk-live-SECRET in the text")

flow.status = _status
"""


def test_a_bug_in_a_tool_is_one_line_and_the_server_goes_on(root: Path, tmp_path: Path) -> None:
    """A crash inside a tool (a fault injected into the real server process: its ``status``
    core raises) answers the model one line naming the exception's type, never its text (it
    may hold a secret); the traceback goes to the server's stderr (the host's log); the next
    call is answered as usual."""
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(_BUG)
    assert run_cli(root, "dispatch", "add login").returncode == 0

    async def body(s: Session) -> tuple[tuple[bool, Any, str], Any]:
        return await s.call("status"), await s.ok("next")

    with (tmp_path / "server.log").open("w") as errlog:
        (error, got, text), after = serve(
            root, body, extra_env={"PYTHONPATH": str(inject)}, errlog=errlog
        )
    line = "internal error (RuntimeError); the traceback is in the server's log"
    assert error and text == f"agents-state: error: {line}"
    assert got == {"error": {"code": "internal", "message": line, "exit": 1}}
    assert "SECRET" not in text + json.dumps(got)
    assert after["kind"] == "dispatch_agents"  # the server still answers
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" in log and "boom: token sk-live-SECRET" in log
