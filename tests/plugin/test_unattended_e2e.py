"""Issue 33, "Must show": the rules docs/plugin.md gives for an unattended run are enough.

A whole workflow through the real ``claude -p --plugin-dir .`` (the scripted stub model) in a
git project, worktree isolation on, no TEST commands: the task agents start their tasks, write
their file in their worktree and check it with a command in their contained shell; the
orchestrator runs the project's check in the integration worktree at 3.1 and writes its report.
The user's settings hold only the rules of the documented block (read from docs/plugin.md, so
the two cannot drift) and the one rule the doc leaves to the project: its check's command.  The
run reaches done with no refused call: the engine recorded none, the host reported no
permission denial and raised no permission request.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from claude_cli import log_hook_events, require_claude
from pluginfiles import PLUGIN_ROOT
from stub_api import Block, StubAPI, request_text, tool_results
from test_workflow_e2e import TASK, Workflow, bash, fenced, handoff, run_host, text
from test_worktree_e2e import git, turns

pytestmark = pytest.mark.slow

CHECK = "python3 -B -m unittest discover -s .agents/worktrees/_integration"
FILES = {"t1": "model", "t2": "route"}  # test_workflow_e2e's tasks: health/model.py, route.py
REFUSED = ("haven't granted", "needs approval", "requires approval", "permission to use")


def documented_rules() -> list[str]:
    """The allow rules of the block after "The rules a headless run needs" in docs/plugin.md."""
    doc = (PLUGIN_ROOT / "docs" / "plugin.md").read_text()
    found = re.search(r"\*\*The rules a headless run needs\*\*.*?```json\n(.*?)```", doc, re.S)
    assert found, "docs/plugin.md has no block of the rules a headless run needs"
    rules = json.loads(found.group(1))["permissions"]["allow"]
    assert rules and all(isinstance(r, str) for r in rules), rules
    return list(rules)


class Unattended(Workflow):
    """test_workflow_e2e's orchestrator and agents, with task agents that do real work in their
    rooms and an orchestrator that runs the project's check at 3.1."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.grow_in_stages = False
        self.agent_results: list[str] = []
        self.checked: str | None = None

    def sub_agent(self, kind: str, body: dict[str, Any]) -> list[Block]:
        if kind != "task":
            return super().sub_agent(kind, body)
        first = request_text({"messages": (body.get("messages") or [])[:1]})
        found = re.search(r"task (t\d)", first)
        tid = found.group(1) if found else "t?"
        results = list(tool_results(body).values())
        with self.lock:
            self.agent_results += results
        worktree = self.root / ".agents" / "worktrees" / tid
        module = FILES.get(tid, "x")
        step = turns(body)
        if step == 0:
            return [bash(f"agents-state task start {tid}")]
        if step == 1:
            path = str(worktree / "health" / f"{module}.py")
            write = {"file_path": path, "content": f"NAME = {module!r}\n"}
            return [{"type": "tool_use", "name": "Write", "input": write}]
        if step == 2:  # its own check, in its contained shell
            return [
                bash(f"cd {worktree} && python3 -B -c 'import health.{module} as m; print(m.NAME)'")
            ]
        if step == 3:
            return [bash(f'agents-state task done {tid} --summary "wrote health/{module}.py"')]
        files = [f"health/{module}.py"]
        return text(fenced(handoff(tid, "write", f"Implemented {tid}.", files_changed=files)))

    def write(self, rel: str, content: str) -> Generator[list[Block], dict[str, Any], None]:
        if rel.endswith("3.1-test-results.json"):  # no TEST commands: it runs the check itself
            self.checked = yield from self.run(CHECK)
            report = {"commands": [{"name": "test", "command": CHECK, "exitCode": 0}]}
            content = json.dumps(report)
        yield from super().write(rel, content)
        said = self.engine_results[-1][1]
        if any(m in said for m in REFUSED):  # fail now, not by the run's timeout
            raise AssertionError(f"the write of {rel} was refused: {said}")


def settings(home: Path, log: Path, rules: list[str]) -> None:
    """The user's settings: ``rules`` only, and a hook that logs every PermissionRequest."""
    log_hook_events(home, log, ("PermissionRequest",), {"permissions": {"allow": rules}})
    # the end of the git workflow needs no rule with `branch` (docs/plugin.md)
    config = {"stages": {"FINAL": {"git": {"workflow": "branch"}}}}
    (home / ".claude" / "subagents-config.json").write_text(json.dumps(config))


def project(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    (root / "test_health.py").write_text(
        "import unittest\n\n\nclass Health(unittest.TestCase):\n"
        "    def test_runs(self) -> None:\n        self.assertTrue(True)\n"
    )
    git(root, "add", "test_health.py")
    git(root, "commit", "-qm", "init")


def test_the_documented_rules_carry_a_default_workflow_to_done(root: Path, tmp_path: Path) -> None:
    require_claude()
    project(root)
    log = tmp_path / "permission-requests.jsonl"
    settings(Path(os.environ["HOME"]), log, [*documented_rules(), f"Bash({CHECK})"])
    flow = Unattended(root)
    with StubAPI(flow) as api:
        run = run_host(root, api, "--output-format", "json", f"/subagents:dispatch {TASK}")
    assert flow.error is None, (flow.error, flow.trace[-3:])
    assert run.returncode == 0, run.stderr
    assert flow.stopped_with is None, flow.stopped_with
    state = json.loads((root / ".agents" / "state.json").read_text())
    assert state["status"] == "completed", state["status"]

    # the work was done where the rules allow it: both files on the branch done names
    branch = state["git"]["branch"]
    listed = git(root, "ls-tree", "-r", "--name-only", branch).splitlines()
    assert sorted(listed) == ["health/model.py", "health/route.py", "test_health.py"], listed
    assert flow.checked is not None and "Ran 1 test" in flow.checked, flow.checked
    checks = sorted(r.strip() for r in flow.agent_results if r.strip() in FILES.values())
    assert checks == ["model", "route"], flow.agent_results  # each agent's check ran in its room

    # no refusal: none recorded by the engine, none reported by the host, none asked
    refusals = root / ".agents" / "refusals.json"
    kept = json.loads(refusals.read_text())["refused"] if refusals.exists() else []
    assert kept == [], kept
    assert json.loads(run.stdout)["permission_denials"] == []
    assert not log.exists() or not log.read_text().strip(), log.read_text()
    said = [r for r in flow.agent_results if any(m in r for m in REFUSED)]
    said += [out for _, out in flow.engine_results if any(m in out for m in REFUSED)]
    assert said == [], said
