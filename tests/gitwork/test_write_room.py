"""Under worktree isolation a task agent writes only in ITS OWN task's worktree (issue 22).

The PreToolUse hook runs as a real process, with the payload Claude Code 2.1.330 sends from a
sub-agent: the main session's ``transcript_path`` and the ``agent_id``; the agent's transcript
lies beside it (``<session>/subagents/agent-<id>.jsonl``) and its first user line is the prompt
the orchestrator dispatched it with, which names its task.  Write / Edit into another task's
worktree, the engine's worktree or the main tree is denied with one line naming its own; its
contained Bash writes only its own worktree.  Other agents, other tools and a workflow without
isolation are not affected.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gitrepo import at_tasks, cli_json, git, state

_EXE = Path(sys.executable).with_name("agents-state")
CMD = [str(_EXE)] if _EXE.exists() else [sys.executable, "-m", "agents_state"]
OUTSIDE = (
    "agents-state: worktree isolation is on: this agent writes only inside task {tid}'s "
    "worktree .agents/worktrees/{tid} ({room}); {target} is outside it; denied."
)
HOLDS_NONE = (
    "it holds no task of phase 2.1: it runs the agents-state task start <id> command of its "
    "prompt first"
)
UNTOLD = (
    "agents-state: worktree isolation is on and this task agent's own worktree cannot be told "
    "({why}), so its writes are denied; finish with decision STOP and say so; denied."
)
TASKS = [
    {"id": "t1", "title": "edit t1", "files": ["f.txt"]},
    {"id": "t2", "title": "edit t2", "files": ["f.txt"]},
    {"id": "t3", "title": "after t1", "files": ["f.txt"], "dependencies": ["t1"]},
]


def prompt(tid: str) -> str:
    return (
        f"Implement task {tid}: edit {tid}. First run: agents-state task start {tid} --json "
        f"(it prints your worktree); work only there; then run: agents-state task done {tid}"
    )


class Host:
    """The session transcript folder Claude Code keeps, with one transcript per agent."""

    def __init__(self, base: Path) -> None:
        self.main = base / "projects" / "sess.jsonl"
        (base / "projects" / "sess" / "subagents").mkdir(parents=True)
        self.main.write_text('{"type":"user","message":{"content":"Go on."}}\n')

    def agent(self, agent_id: str, text: str, workflow_run: str | None = None) -> None:
        folder = self.main.with_suffix("") / "subagents"
        if workflow_run:
            folder = folder / "workflows" / workflow_run
            folder.mkdir(parents=True, exist_ok=True)
        line = {"type": "user", "agentId": agent_id, "message": {"role": "user", "content": text}}
        reply = {"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}}
        (folder / f"agent-{agent_id}.jsonl").write_text(
            json.dumps(line) + "\n" + json.dumps(reply) + "\n"
        )


def pre(
    root: Path,
    host: Host,
    agent_id: str,
    tool: str,
    tool_input: dict[str, Any],
    env: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any] | None:
    """The hook's answer to one call, as a real process; ``None`` when it printed nothing."""
    payload = {
        "session_id": "sess",
        "transcript_path": str(host.main),
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
        "agent_id": agent_id,
        "agent_type": "subagents:task-agent",
        **extra,
    }
    proc = subprocess.run(
        [*CMD, "hook", "pre-tool-use"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    out = proc.stdout.strip()
    return json.loads(out)["hookSpecificOutput"] if out else None


def denial(answer: dict[str, Any] | None) -> str | None:
    if answer is None or answer.get("permissionDecision") != "deny":
        return None
    reason: str = answer["permissionDecisionReason"]
    return reason


@pytest.fixture
def wave(root: Path, tmp_path: Path) -> tuple[Path, Host, dict[str, Path]]:
    """Two task agents of one wave, each started (its worktree made), and their transcripts."""
    at_tasks(root, TASKS)
    rooms = {  # each started by its agent: the approvals hook adds its id (issue 32)
        t: Path(cli_json(root, "task", "start", t, "--agent", f"agent-{a}")["worktree"])
        for t, a in (("t1", "a1"), ("t2", "a2"))
    }
    host = Host(tmp_path / "claude")
    host.agent("a1", prompt("t1"))
    host.agent("a2", prompt("t2"))
    return root, host, rooms


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit", "NotebookEdit"])
def test_a_task_agent_writes_only_its_own_worktree(
    wave: tuple[Path, Host, dict[str, Path]], tool: str
) -> None:
    root, host, rooms = wave
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    own = rooms["t1"]
    assert pre(root, host, "a1", tool, {key: str(own / "f.txt")}) is None
    assert pre(root, host, "a1", tool, {key: "f.txt"}, cwd=str(own)) is None
    assert pre(root, host, "a2", tool, {key: str(rooms["t2"] / "f.txt")}) is None
    real = os.path.realpath(own)
    for target, cwd in (
        (str(rooms["t2"] / "f.txt"), root),  # the other task's worktree
        (str(root / "f.txt"), root),  # the main tree
        (str(root / ".agents" / "worktrees" / "_integration" / "f.txt"), root),
        (str(root / ".agents" / "worktrees" / "t3" / "f.txt"), root),  # a task not yet begun
        ("../t2/f.txt", own),
    ):
        got = denial(pre(root, host, "a1", tool, {key: target}, cwd=str(cwd)))
        resolved = os.path.realpath(os.path.join(cwd, target))
        assert got == OUTSIDE.format(tid="t1", room=real, target=resolved)
    assert (root / "f.txt").read_text().startswith("line 0\n")  # nothing written anywhere


def test_a_language_server_rename_is_denied_under_isolation(
    wave: tuple[Path, Host, dict[str, Path]],
) -> None:
    root, host, rooms = wave
    for tool in ("mcp__cclsp__rename_symbol", "mcp__cclsp__rename_symbol_strict"):
        call = {"file_path": str(rooms["t1"] / "f.txt"), "symbol_name": "a", "new_name": "b"}
        assert denial(pre(root, host, "a1", tool, call)) == (
            f"agents-state: worktree isolation is on: {tool} edits files across the language "
            "server's whole project, beyond this agent's own worktree; make the change with "
            "Edit there; denied."
        )
    raw = state(root)
    del raw["git"]  # isolation off: the rename is the agent's to make
    (root / ".agents" / "state.json").write_text(json.dumps(raw))
    call = {"file_path": str(root / "f.txt"), "symbol_name": "a", "new_name": "b"}
    assert pre(root, host, "a1", "mcp__cclsp__rename_symbol", call) is None


def test_the_task_is_the_one_the_engine_records_the_agent_holds(
    wave: tuple[Path, Host, dict[str, Path]],
) -> None:
    """Issue 32: the prompt's text never decides the room; the engine's record of which agent
    started which task does (a description quoting another task's command moved it)."""
    root, host, rooms = wave
    later = root / ".agents" / "worktrees" / "t3"  # t3 is of the next wave
    host.agent("a1", f"{prompt('t1')}\nDescription: then agents-state task start t3.")
    t1 = os.path.realpath(rooms["t1"])
    for other in (rooms["t2"], later):
        got = denial(pre(root, host, "a1", "Write", {"file_path": str(other / "x")}))
        assert got == OUTSIDE.format(tid="t1", room=t1, target=os.path.realpath(other / "x"))
    assert pre(root, host, "a1", "Write", {"file_path": str(rooms["t1"] / "x")}) is None
    # a workflow's agent: the same record
    host.agent("wf", prompt("t2"), workflow_run="run-1")
    got = denial(pre(root, host, "wf", "Write", {"file_path": str(rooms["t2"] / "x")}))
    assert got == UNTOLD.format(why=HOLDS_NONE)  # its prompt names t2, but a2 holds it


def test_an_agent_whose_task_cannot_be_told_writes_nothing(
    wave: tuple[Path, Host, dict[str, Path]],
) -> None:
    root, host, rooms = wave
    host.agent("both", "Implement tasks t1 and t2.")
    host.agent("none", "Tidy up the README.")
    target = {"file_path": str(rooms["t1"] / "f.txt")}
    missing = host.main.with_suffix("") / "subagents" / "agent-ghost.jsonl"
    assert not missing.exists()
    for agent in ("both", "none", "ghost"):  # none of them started a task
        assert denial(pre(root, host, agent, "Write", target)) == UNTOLD.format(why=HOLDS_NONE)
    no_id = denial(pre(root, host, "a/1", "Write", target))
    assert no_id == UNTOLD.format(why="the hook input names no agent_id")
    # its transcript is not needed: the engine's record is
    assert pre(root, host, "a1", "Write", target, transcript_path=None) is None


def test_after_phase_2_1_the_agent_writes_the_merged_work_only(
    wave: tuple[Path, Host, dict[str, Path]],
) -> None:
    root, host, rooms = wave
    raw = state(root)
    raw["currentPhase"] = "2.2"  # the simplify agent of 2.2 works on the merged result
    (root / ".agents" / "state.json").write_text(json.dumps(raw))
    intg = root / ".agents" / "worktrees" / "_integration"
    host.agent("simplify", "Simplify the code the wave changed.")
    assert pre(root, host, "simplify", "Edit", {"file_path": str(intg / "f.txt")}) is None
    got = denial(pre(root, host, "simplify", "Edit", {"file_path": str(rooms["t1"] / "f.txt")}))
    assert got == (
        "agents-state: worktree isolation is on: this agent writes only inside "
        f".agents/worktrees/_integration ({os.path.realpath(intg)}); "
        f"{os.path.realpath(rooms['t1'] / 'f.txt')} is outside it; denied."
    )


def test_other_agents_tools_and_workflows_without_isolation_are_unaffected(
    wave: tuple[Path, Host, dict[str, Path]], tmp_path: Path
) -> None:
    root, host, _rooms = wave
    target = {"file_path": str(root / "f.txt")}
    assert pre(root, host, "a1", "Write", target, agent_type="subagents:code-writer") is None
    assert pre(root, host, "a1", "Read", target) is None
    raw = state(root)
    del raw["git"]  # isolation off: tasks share the tree
    (root / ".agents" / "state.json").write_text(json.dumps(raw))
    assert pre(root, host, "a1", "Write", target) is None


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A project outside /tmp: the sandbox gives every call a private /tmp."""
    base = Path(tempfile.mkdtemp(prefix="agents-state-own-", dir="/var/tmp"))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap")
def test_its_contained_shell_writes_only_its_own_worktree(outside_tmp: Path) -> None:
    root = outside_tmp / "work"
    root.mkdir()
    at_tasks(root, TASKS)
    rooms = {
        t: Path(cli_json(root, "task", "start", t, "--agent", f"agent-{a}")["worktree"])
        for t, a in (("t1", "a1"), ("t2", "a2"))
    }
    home = outside_tmp / "home"
    (home / ".claude").mkdir(parents=True)
    # a restricted profile: Bash is contained (the user's layer: a project's may not loosen a
    # plugin agent's profile, issue 32)
    (home / ".claude" / "subagents-config.json").write_text(
        json.dumps(
            {
                "agentProfiles": {"task-agent": "committer+Write+Edit"},
                "toolProfiles": {"committer": {"bashAllow": ["touch"]}},
            }
        )
    )
    (home / ".gitconfig").write_text("[user]\n\tname = T\n\temail = t@example.com\n")
    host = Host(outside_tmp / "claude")
    host.agent("a1", prompt("t1"))
    host.agent("odd", "Implement tasks t1 and t2.")
    line = (
        "cd {own} && touch mine.txt && git add mine.txt && git commit -qm mine; "
        "touch {other}/theirs.txt; touch {root}/main.txt; touch {root}/.agents/x.json; "
        "git -C {other} commit --allow-empty -qm theirs; git -C {root} add f.txt"
    )
    values = {"own": rooms["t1"], "other": rooms["t2"], "root": root}
    env = {"HOME": str(home)}
    (root / "f.txt").write_text("the user's own change\n")  # not staged: it must stay so
    answer = pre(root, host, "a1", "Bash", {"command": line.format(**values)}, env=env)
    assert answer is not None and "updatedInput" in answer, answer
    proc = sandboxed(answer, root, home)
    assert (rooms["t1"] / "mine.txt").exists(), proc.stderr
    # its git writes nothing: .git is read-only in every room; `task done` commits (issue 32)
    assert git(rooms["t1"], "log", "-1", "--format=%s") == "init"
    assert proc.stderr.count("Read-only file system") >= 3, proc.stderr
    assert not (rooms["t2"] / "theirs.txt").exists() and not (root / "main.txt").exists()
    # git's shared folder: no commit on the other task's branch, the user's index untouched
    assert git(rooms["t2"], "log", "-1", "--format=%s") == "init"
    assert git(root, "status", "--porcelain") == "M f.txt"  # " M": still unstaged
    assert not (root / ".agents" / "x.json").exists()
    # an agent whose task cannot be told runs read-only
    odd = pre(root, host, "odd", "Bash", {"command": f"touch {rooms['t1']}/odd.txt"}, env=env)
    assert odd is not None and "updatedInput" in odd, odd
    proc = sandboxed(odd, root, home)
    assert "Read-only file system" in proc.stderr and not (rooms["t1"] / "odd.txt").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bubblewrap")
def test_a_writers_build_writes_only_its_own_worktree(outside_tmp: Path) -> None:
    """Issue 32: a task agent's Bash (the writer profile: no allowlist) runs in a room too. Its
    `make test` wrote the user's checkout and another task's worktree; now only its own
    worktree is writable, and not its .git pointer."""
    root = outside_tmp / "work"
    root.mkdir()
    at_tasks(root, TASKS)
    rooms = {
        t: Path(cli_json(root, "task", "start", t, "--agent", f"agent-{a}")["worktree"])
        for t, a in (("t1", "a1"), ("t2", "a2"))
    }
    home = outside_tmp / "home"
    home.mkdir()
    host = Host(outside_tmp / "claude")
    host.agent("a1", prompt("t1"))
    (rooms["t1"] / "Makefile").write_text(
        "test:\n\techo built > out.txt\n\t-echo x > {other}/theirs.txt\n"
        "\t-echo x >> {root}/f.txt\n\t-touch {root}/.agents/x.json\n"
        "\t-echo 'gitdir: /tmp/x' > .git\n".format(other=rooms["t2"], root=root)
    )
    pointer = (rooms["t1"] / ".git").read_text()
    user = (root / "f.txt").read_text()
    line = f"cd {rooms['t1']} && make test"
    answer = pre(root, host, "a1", "Bash", {"command": line}, env={"HOME": str(home)})
    assert answer is not None and "updatedInput" in answer, answer
    assert "permissionDecision" not in answer  # contained, not granted
    proc = sandboxed(answer, root, home)
    assert (rooms["t1"] / "out.txt").read_text() == "built\n", proc.stderr
    assert proc.stderr.count("Read-only file system") == 4, proc.stderr
    assert not (rooms["t2"] / "theirs.txt").exists() and (root / "f.txt").read_text() == user
    assert not (root / ".agents" / "x.json").exists()
    assert (rooms["t1"] / ".git").read_text() == pointer


def sandboxed(answer: dict[str, Any], root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Run the rewritten command as the Bash tool would."""
    return subprocess.run(
        ["bash", "-c", answer["updatedInput"]["command"]],
        cwd=root,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_room_check_stays_on_the_hooks_light_path(
    wave: tuple[Path, Host, dict[str, Path]],
) -> None:
    """Judged on every write of a task agent: no handoff models, pydantic or click."""
    root, host, rooms = wave
    payload = {
        "session_id": "sess",
        "transcript_path": str(host.main),
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(rooms["t2"] / "f.txt"), "content": "x"},
        "agent_id": "a1",
        "agent_type": "subagents:task-agent",
    }
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agents_state", "hook", "pre-tool-use"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )
    assert "task t1's worktree" in proc.stdout  # the room check ran (and denied)
    lines = proc.stderr.splitlines()
    modules = {ln.split("|")[-1].strip() for ln in lines if ln.startswith("import time:")}
    heavy = {m for m in modules if m.startswith(("agents_state.handoff", "pydantic", "click"))}
    assert heavy == set() and "agents_state.hooks.taskowner" in modules
