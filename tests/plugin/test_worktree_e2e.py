"""Issue 22, end to end: two task agents of one wave, run in parallel by the real
``claude -p --plugin-dir .`` (stub model), edit the same file, each in its own git worktree.

Each agent does what the next action and the task agent's file say: ``agents-state task start``
(which makes its worktree and prints the folder), Read and Edit ``f.txt`` there, ``task done``.
No Write or Edit is refused for a stale read, both changes land on the integration branch, and
the engine's steps raise no permission prompt (a user-settings hook logs every one).  The run
uses ``--permission-mode acceptEdits``: whether an agent's own edits need the user's approval is
the user's setting, not the engine's; with it, nothing at all asks.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from claude_cli import VENV_BIN, log_hook_events, require_claude, run_claude
from clitools import walk_to
from stub_api import Block, StubAPI, request_text, tool_results

pytestmark = pytest.mark.slow

GO_ON = "Go on with the workflow."
EDITS = {
    "t1": ("line 1\nline 2\n", "by t1\nline 2\n"),
    "t2": ("line 40\nline 41\n", "by t2\nline 41\n"),
}


def git(root: Path, *args: str) -> str:
    ident = ["-c", "user.name=T", "-c", "user.email=t@example.com"]
    proc = subprocess.run(
        ["git", *ident, "-C", str(root), *args], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def bash(command: str) -> Block:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command, "description": "x"}}


def turns(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")


class Script:
    def __init__(self, trespass: bool = False) -> None:
        self.trespass = trespass  # t1's agent first writes into t2's worktree and the main tree
        self.lock = threading.Lock()
        self.results: list[tuple[str, str]] = []  # (who, tool result)
        self.next_after: dict[str, Any] | None = None
        self.error: str | None = None

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        system = request_text({"system": body.get("system")})
        try:
            if "# Task agent" in system:
                return self.agent(body)
            tools = {t.get("name") for t in body.get("tools") or []}
            if "Agent" not in tools or GO_ON not in request_text(body):
                return None
            return self.main(body)
        except Exception as e:  # shown by the test, not swallowed by the CLI
            self.error = repr(e)
            return [{"type": "text", "text": f"script failed: {e!r}"}]

    def note(self, who: str, body: dict[str, Any]) -> list[str]:
        out = list(tool_results(body).values())
        with self.lock:
            self.results += [(who, r) for r in out]
        return out

    def main(self, body: dict[str, Any]) -> list[Block]:
        step = turns(body)
        got = self.note("main", body)
        if step == 0:
            return [bash("agents-state next --json")]
        if step == 1:
            action = json.loads(got[0])
            if action["kind"] != "dispatch_agents":
                self.error = f"expected dispatch_agents, got {action}"
                return [{"type": "text", "text": "stop"}]
            calls: list[Block] = []
            for t in action["tasks"]:
                prompt = (
                    f"Implement task {t['id']}: {t['title']}. First run: agents-state task start "
                    f"{t['id']} --json (it prints your worktree); work only there; then run: "
                    f"agents-state task done {t['id']} --summary TEXT"
                )
                call = {
                    "subagent_type": action["agents"]["subagentType"],
                    "description": f"task {t['id']}",
                    "prompt": prompt,
                    "model": t["agentModel"],
                    "run_in_background": False,
                }
                calls.append({"type": "tool_use", "name": "Agent", "input": call})
            return calls
        if step == 2:
            return [bash("agents-state next --json")]
        self.next_after = json.loads(got[0]) if got else None
        return [{"type": "text", "text": "Wave merged."}]

    def agent(self, body: dict[str, Any]) -> list[Block]:
        first = request_text({"messages": (body.get("messages") or [])[:1]})
        found = re.search(r"Implement task (t\d)", first)
        tid = found.group(1) if found else "t?"
        step = turns(body)
        got = self.note(tid, body)
        if step == 0:
            return [bash(f"agents-state task start {tid} --json")]
        worktree = self.worktree_of(body)
        path = f"{worktree}/f.txt"
        if self.trespass and tid == "t1":
            if step == 1:
                return [
                    {"type": "tool_use", "name": "Write", "input": {"file_path": p, "content": "x"}}
                    for p in (worktree.replace("/t1", "/t2") + "/f.txt", f"{self.root}/f.txt")
                ]
            step -= 1
        if step == 1:
            return [{"type": "tool_use", "name": "Read", "input": {"file_path": path}}]
        if step == 2:
            old, new = EDITS[tid]
            edit = {"file_path": path, "old_string": old, "new_string": new}
            return [{"type": "tool_use", "name": "Edit", "input": edit}]
        if step == 3:
            return [bash(f'agents-state task done {tid} --summary "edited f.txt"')]
        del got
        handoff = {
            "task_id": tid,
            "phase": "write",
            "status": "complete",
            "decision": "PROCEED",
            "context_summary": f"{tid} edited f.txt in its worktree.",
            "files_changed": ["f.txt"],
            "issues": [],
        }
        return [{"type": "text", "text": "Done.\n\n```json\n" + json.dumps(handoff) + "\n```"}]

    root = ""

    @staticmethod
    def worktree_of(body: dict[str, Any]) -> str:
        found = re.search(r'"worktree": "([^"]+)"', request_text(body))
        return found.group(1) if found else "/nonexistent"


def run_wave(root: Path, tmp_path: Path, script: Script) -> Path:
    """Two task agents of one wave run by the real CLI; the log of permission prompts."""
    require_claude()
    git(root, "init", "-q", "-b", "main")
    (root / "f.txt").write_text("".join(f"line {i}\n" for i in range(60)))
    git(root, "add", "f.txt")
    git(root, "commit", "-qm", "init")
    walk_to(root, "2.1")
    tasks = [
        {"id": t, "title": f"edit {t}", "files": ["f.txt"], "complexity": "easy"} for t in EDITS
    ]
    (root / ".agents" / "phases" / "2.1-tasks.json").write_text(json.dumps({"tasks": tasks}))
    load = subprocess.run(
        [
            f"{VENV_BIN}/agents-state",
            "--root",
            str(root),
            "tasks",
            "load",
            ".agents/phases/2.1-tasks.json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert load.returncode == 0, load.stderr
    log = tmp_path / "asked.jsonl"
    log_hook_events(Path(os.environ["HOME"]), log, ("PermissionRequest",))
    script.root = str(root)
    with StubAPI(script) as api:
        proc = run_claude(root, api, "--permission-mode", "acceptEdits", GO_ON)
    assert script.error is None, script.error
    assert proc.returncode == 0, proc.stderr
    return log


def test_two_task_agents_edit_one_file_each_in_its_own_worktree(root: Path, tmp_path: Path) -> None:
    script = Script()
    log = run_wave(root, tmp_path, script)
    state = json.loads((root / ".agents" / "state.json").read_text())
    branch = state["git"]["branch"]
    final = git(root, "show", f"{branch}:f.txt").splitlines()
    assert (final[1], final[40]) == ("by t1", "by t2"), script.results
    p21 = state["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert {t: p21["tasks"][t]["merge"] for t in EDITS} == {"t1": "merged", "t2": "merged"}
    assert p21["status"] == "completed"
    assert script.next_after is not None and script.next_after["phase"] == "2.2"
    refused = [r for _, r in script.results if "has changed since" in r or "hook error" in r]
    assert refused == []
    edits = [r for who, r in script.results if who in EDITS and "f.txt" in r and "updated" in r]
    assert len(edits) == 2, script.results
    assert not log.exists() or log.read_text().strip() == ""  # no permission prompt at all
    assert (root / "f.txt").read_text().splitlines()[1] == "line 1"  # the user's tree untouched


def test_a_task_agent_cannot_write_into_the_other_agents_worktree(
    root: Path, tmp_path: Path
) -> None:
    script = Script(trespass=True)
    log = run_wave(root, tmp_path, script)
    state = json.loads((root / ".agents" / "state.json").read_text())
    own = os.path.realpath(root / ".agents" / "worktrees" / "t1")
    denied = sorted(r for who, r in script.results if who == "t1" and "hook error" in r)
    assert denied == sorted(
        "PreToolUse:Write hook error: agents-state: worktree isolation is on: this agent "
        f"writes only inside task t1's worktree .agents/worktrees/t1 ({own}); {target} is "
        "outside it; denied."
        for target in (
            os.path.realpath(root / ".agents" / "worktrees" / "t2" / "f.txt"),
            os.path.realpath(root / "f.txt"),
        )
    ), script.results
    assert not any("hook error" in r for who, r in script.results if who != "t1")
    final = git(root, "show", f"{state['git']['branch']}:f.txt").splitlines()
    assert (final[1], final[40]) == ("by t1", "by t2")  # t2's work untouched, both merged
    assert "x" not in final and (root / "f.txt").read_text().startswith("line 0\n")
    assert not log.exists() or log.read_text().strip() == ""
