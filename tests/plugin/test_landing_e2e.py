"""Issue 33, "Must show": the work lands, through the real ``claude -p --plugin-dir .`` (stub
model).

A project that does not ignore ``__pycache__/``; two independent tasks of one wave edit one file
far apart, each in its own worktree, and each checks its change by importing the module (which
writes bytecode there), as a careful agent does.  The wave merges after the agents have stopped,
with no resolve step; no generated file is committed; the rest of the workflow is recorded and
the ``done`` action names the branch that holds both changes.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from claude_cli import require_claude, run_claude
from clitools import artifact_body, cli_json, run_cli, walk_to
from stub_api import Block, StubAPI, request_text, tool_results
from test_worktree_e2e import GO_ON, bash, git, turns

pytestmark = pytest.mark.slow

MODULE = "".join(f"LINE_{i} = {i}\n" for i in range(60))
EDITS = {
    "t1": ("LINE_2 = 2\n", "LINE_2 = 't1'\n"),
    "t2": ("LINE_50 = 50\n", "LINE_50 = 't2'\n"),
}


class Script:
    """The orchestrator: next, one Agent call per task (foreground, in one message), next.
    A task agent: task start, Read, Edit, import the module in its worktree, task done."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.results: list[tuple[str, str]] = []
        self.after: dict[str, Any] | None = None
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
        self.after = json.loads(got[0]) if got else None
        return [{"type": "text", "text": "Wave merged."}]

    def agent(self, body: dict[str, Any]) -> list[Block]:
        first = request_text({"messages": (body.get("messages") or [])[:1]})
        found = re.search(r"Implement task (t\d)", first)
        tid = found.group(1) if found else "t?"
        step = turns(body)
        self.note(tid, body)
        if step == 0:
            return [bash(f"agents-state task start {tid} --json")]
        found = re.search(r'"worktree": "([^"]+)"', request_text(body))
        worktree = found.group(1) if found else "/nonexistent"
        path = f"{worktree}/mod.py"
        if step == 1:
            return [{"type": "tool_use", "name": "Read", "input": {"file_path": path}}]
        if step == 2:
            old, new = EDITS[tid]
            edit = {"file_path": path, "old_string": old, "new_string": new}
            return [{"type": "tool_use", "name": "Edit", "input": edit}]
        if step == 3:  # the agent's own check: import the module (bytecode lands in its room)
            check = f"import sys; sys.path.insert(0, '{worktree}'); import mod; print(mod.LINE_2)"
            return [bash(f'python3 -c "{check}"')]
        if step == 4:
            return [bash(f'agents-state task done {tid} --summary "edited mod.py, imported it"')]
        handoff = {
            "task_id": tid,
            "phase": "write",
            "status": "complete",
            "decision": "PROCEED",
            "context_summary": f"{tid} edited mod.py in its worktree and imported it.",
            "files_changed": ["mod.py"],
            "issues": [],
        }
        return [{"type": "text", "text": "Done.\n\n```json\n" + json.dumps(handoff) + "\n```"}]


def _project(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    (root / "mod.py").write_text(MODULE)
    git(root, "add", "mod.py")
    git(root, "commit", "-qm", "init")
    walk_to(root, "2.1")
    tasks = [
        {"id": t, "title": f"edit {t}", "files": ["mod.py"], "complexity": "easy"} for t in EDITS
    ]
    (root / ".agents" / "phases" / "2.1-tasks.json").write_text(json.dumps({"tasks": tasks}))
    load = run_cli(root, "tasks", "load", ".agents/phases/2.1-tasks.json")
    assert load.returncode == 0, load.stderr


def _to_done(root: Path) -> dict[str, Any]:
    """The rest of the workflow, recorded as the orchestrator would; the final action."""
    for _ in range(40):
        action = cli_json(root, "next")
        if action["kind"] == "done":
            return dict(action)
        if action["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        assert action["kind"] not in ("work_inline", "run_commands") or "merge" not in str(
            action["command"]
        ), action  # no merge step, no resolve step
        body = artifact_body(action["write"])
        proc = run_cli(root, "phase", "complete", action["phase"], "--artifact", "-", stdin=body)
        assert proc.returncode == 0, proc.stderr
    raise AssertionError("the workflow never reached done")


def test_two_tasks_importing_one_module_land_on_the_branch_done_names(
    root: Path, tmp_path: Path
) -> None:
    require_claude()
    _project(root)
    script = Script()
    with StubAPI(script) as api:
        proc = run_claude(
            root,
            api,
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",  # a task agent's Bash runs contained (issue 32): its rule
            "Bash(python3 *)",
            "Bash(/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp:*)",
            "--",
            GO_ON,
        )
    assert script.error is None, script.error
    assert proc.returncode == 0, proc.stderr
    checks = [r for who, r in script.results if who in EDITS and r.strip() in ("2", "t1")]
    assert len(checks) == 2, script.results  # both agents imported the module in their room
    state = json.loads((root / ".agents" / "state.json").read_text())
    p21 = state["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert {t: p21["tasks"][t]["merge"] for t in EDITS} == {"t1": "merged", "t2": "merged"}
    assert script.after is not None and script.after["phase"] == "2.2", script.after
    assert "merged" not in script.after  # merged by the last agent's SubagentStop, before next
    done = _to_done(root)
    branch = done["handover"]["branch"]
    assert branch == state["git"]["branch"]
    assert f"The work is on branch {branch} at commit " in done["instructions"]
    lines = git(root, "show", f"{branch}:mod.py").splitlines()
    assert (lines[2], lines[50]) == ("LINE_2 = 't1'", "LINE_50 = 't2'")
    assert git(root, "ls-tree", "-r", "--name-only", branch).splitlines() == ["mod.py"]
    log = git(root, "log", "--format=%s", f"main..{branch}").splitlines()
    assert not any("resolve" in s.lower() or "conflict" in s.lower() for s in log), log
    assert (root / "mod.py").read_text() == MODULE  # the user's checkout is left alone
