"""Issue 33, item 2: a room outlives its agent.

The wave merges once its agents have stopped (the SubagentStop hook of the last one, or the next
``next``), never inside the last agent's ``task done``: its worktree is still there for its last
commands.  Real git, the installed CLI and its hook, as Claude Code runs them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from clitools import CLI
from gitrepo import at_tasks, cli_json, edit_line, integration, run_cli, show, task_of, trash_gone


def _hook(root: Path, event: str, agent: str) -> subprocess.CompletedProcess[str]:
    payload = {
        "session_id": "s",
        "transcript_path": "/tmp/t",
        "cwd": str(root),
        "hook_event_name": "SubagentStart" if event == "subagent-start" else "SubagentStop",
        "agent_id": agent,
        "agent_type": "subagents:task-agent",
        "last_assistant_message": "done",
        "stop_hook_active": False,
    }
    proc = subprocess.run(
        [CLI, "hook", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc


def _two_done(root: Path) -> dict[str, Path]:
    at_tasks(root, [{"id": t, "title": t.upper()} for t in ("a", "b")])
    rooms = {}
    for tid, line in (("a", 1), ("b", 9)):
        rooms[tid] = Path(cli_json(root, "task", "start", tid)["worktree"])
        edit_line(rooms[tid] / "f.txt", line, f"by {tid}")
    assert run_cli(root, "task", "done", "a", "--summary", "a").returncode == 0
    last = cli_json(root, "task", "done", "b", "--summary", "b")
    assert last["message"].endswith(
        f"; the wave is done: it is merged into {integration(root)} once its agents have "
        "stopped (this worktree stays until then)"
    )
    return rooms


def test_the_last_agents_worktree_stays_until_the_agents_have_stopped(root: Path) -> None:
    rooms = _two_done(root)
    # the last agent's later command (a final check) runs in its folder, which is still there
    proc = subprocess.run(
        ["git", "status", "--porcelain"], cwd=rooms["b"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert [task_of(root, t)["merge"] for t in "ab"] == ["pending", "pending"]
    assert all(p.is_dir() for p in rooms.values())


def test_the_stop_of_the_last_running_agent_merges_the_wave(root: Path) -> None:
    at_tasks(root, [{"id": t, "title": t.upper()} for t in ("a", "b")])
    for agent in ("agent-a", "agent-b"):
        _hook(root, "subagent-start", agent)
    rooms = {}
    for tid, line in (("a", 1), ("b", 9)):
        rooms[tid] = Path(cli_json(root, "task", "start", tid)["worktree"])
        edit_line(rooms[tid] / "f.txt", line, f"by {tid}")
        assert run_cli(root, "task", "done", tid, "--summary", tid).returncode == 0
    _hook(root, "subagent-stop", "agent-b")  # agent-a still runs (its last commands)
    assert task_of(root, "a")["merge"] == "pending" and rooms["a"].is_dir()
    _hook(root, "subagent-stop", "agent-a")
    assert [task_of(root, t)["merge"] for t in "ab"] == ["merged", "merged"]
    final = show(root, integration(root)).splitlines()
    assert (final[1], final[9]) == ("by a", "by b")
    assert not any(p.exists() for p in rooms.values())
    trash_gone(root)


def test_the_next_next_merges_the_wave_and_removes_its_worktrees(root: Path) -> None:
    rooms = _two_done(root)
    action = cli_json(root, "next")
    assert action["merged"].startswith(f"merged 2 task(s) into {integration(root)}")
    assert action["phase"] == "2.2"
    assert [task_of(root, t)["merge"] for t in "ab"] == ["merged", "merged"]
    assert not any(p.exists() for p in rooms.values())
    trash_gone(root)


def test_next_leaves_the_merge_while_an_agent_of_the_wave_still_runs(root: Path) -> None:
    at_tasks(root, [{"id": t, "title": t.upper()} for t in ("a", "b")])
    for agent in ("agent-a", "agent-b"):
        _hook(root, "subagent-start", agent)
    rooms = {}
    for tid, line in (("a", 1), ("b", 9)):
        rooms[tid] = Path(cli_json(root, "task", "start", tid)["worktree"])
        edit_line(rooms[tid] / "f.txt", line, f"by {tid}")
        assert run_cli(root, "task", "done", tid, "--summary", tid).returncode == 0
    _hook(root, "subagent-stop", "agent-b")
    action = cli_json(root, "next")
    assert "merged" not in action
    assert (action["kind"], action["command"]) == ("run_commands", "agents-state merge")
    assert action["instructions"].startswith(
        "Wave 1 is done but not merged yet (an agent of it may still be running, or a merge was "
        "interrupted): once its agents have answered, merge its tasks"
    )
    assert all(p.is_dir() for p in rooms.values())
    merged = cli_json(root, "merge")  # the explicit command always runs
    assert merged["message"].startswith(f"merged 2 task(s) into {integration(root)}")
