"""Issue 36, acceptance: a person's gate through the real host.

The workflow runs only the FINAL stage, with a gate after phase 4.1.  The real
``claude -p --plugin-dir .`` runs ``/subagents:resume`` (whose ``allowed-tools`` grant
``Bash(agents-state *)``) with a scripted orchestrator that follows the next action: it writes
and records 4.1, and the next action is then the gate, an ``ask_user`` that tells it to stop and
tell the user.  The script then tries the answer itself, ``agents-state gate approve``: the
plugin's PreToolUse hook denies it (deny beats the command's grant), naming the person's
command, and the run ends asking the user.  The person approves on the command line (a real
process of the installed CLI), and a new session (``/subagents:resume`` again, no
``--continue``) goes on to done.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from claude_cli import require_claude, run_claude
from stub_api import Block, StubAPI, request_text, tool_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from clitools import CLI, run_cli

pytestmark = pytest.mark.slow

TASK = "Add a health endpoint"
RESUME = "<command-name>/subagents:resume</command-name>"
ASKED = "The workflow waits for your approval of phase 4.1"
CONFIG = {
    "gates": ["4.1"],
    "stages": {
        **{s: {"enabled": False} for s in ("EXPLORE", "PLAN", "IMPLEMENT", "TEST")},
        "FINAL": {"git": {"workflow": "none"}, "review": {"tool": "sonnet"}},
    },
}


class Orchestrator:
    """The scripted model: follows each next action literally, writing artifacts itself."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self.main = self.script()
        next(self.main)
        self.results: list[tuple[str, str]] = []
        self.actions: list[dict[str, Any]] = []
        self.read: list[str] = []  # everything the orchestrator was sent
        self.error: BaseException | None = None

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        everything = request_text({"messages": body.get("messages", [])})
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Bash" not in tools or RESUME not in everything:
            return None  # side requests: titles and the like
        with self.lock:
            self.read.append(request_text(body))
            try:
                return self.main.send(body)
            except BaseException as e:
                self.error = e
                return [{"type": "text", "text": f"script failed: {e!r}"}]

    def run(self, command: str) -> Generator[list[Block], dict[str, Any], str]:
        body = yield [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]
        (out,) = tool_results(body).values()
        self.results.append((command, out))
        return out

    def next_action(self) -> Generator[list[Block], dict[str, Any], dict[str, Any]]:
        action: dict[str, Any] = json.loads((yield from self.run("agents-state next --json")))
        self.actions.append(action)
        return action

    def record(self, action: dict[str, Any]) -> Generator[list[Block], dict[str, Any], str]:
        content = json.dumps({"issues": []}) if action["write"].endswith(".json") else "# done\n"
        write = {"file_path": str(self.root / action["write"]), "content": content}
        yield [{"type": "tool_use", "name": "Write", "input": write}]
        return (yield from self.run(action["command"]))

    def script(self) -> Generator[list[Block], dict[str, Any], None]:
        yield []
        action = yield from self.next_action()
        assert (action["kind"], action["phase"]) == ("work_inline", "4.1"), action
        yield from self.record(action)
        action = yield from self.next_action()
        assert (action["kind"], action.get("ask")) == ("ask_user", "gate"), action
        # what a model must never do; the plugin's hook refuses it
        yield from self.run(action["gate"]["personApproves"].replace("NAME", "claude"))
        body = yield [{"type": "text", "text": f"{ASKED}: {action['gate']['personApproves']}"}]
        # the second session: a new conversation, after the person's answer
        assert ASKED not in request_text(body)
        while True:
            action = yield from self.next_action()
            if action["kind"] == "done":
                break
            yield from self.record(action)
        yield [{"type": "text", "text": "The workflow is done."}]


def _state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def test_the_workflow_stops_at_a_gate_until_the_person_approves(root: Path) -> None:
    require_claude()
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "config.json").write_text(json.dumps(CONFIG))
    assert run_cli(root, "dispatch", TASK).returncode == 0
    flow = Orchestrator(root)
    with StubAPI(flow) as api:
        first = run_claude(root, api, "/subagents:resume")
        assert flow.error is None, (flow.error, flow.results[-3:])
        assert first.returncode == 0, first.stderr
        # the run ended asking the user; the gate still waits, nobody answered it
        assert ASKED in first.stdout
        waiting = _state(root)
        assert waiting["gate"]["phase"] == "4.1" and waiting.get("gateAnswers", []) == []
        command, refused = flow.results[-1]
        assert command == "agents-state gate approve 4.1 --by claude"
        assert "a gate is a person's decision; no model or agent answers it" in refused
        assert "run in their own shell: agents-state gate approve 4.1 --by NAME" in refused
        # what the model read about the gate: stop and tell the user, never answer it
        gate = flow.actions[-1]
        assert gate["command"] is None
        assert (
            "Do not answer the gate yourself and do not run the gate commands"
            in (gate["instructions"])
        )
        # the person answers in their own shell
        person = subprocess.run(
            [CLI, "--root", str(root), "gate", "approve", "4.1", "--by", "ann"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert person.returncode == 0, person.stderr
        assert person.stdout.startswith("gate 4.1 Documentation Updates approved by ann")
        second = run_claude(root, api, "/subagents:resume")
        assert flow.error is None, (flow.error, flow.results[-3:])
        assert second.returncode == 0, second.stderr
    state = _state(root)
    assert state["status"] == "completed" and "gate" not in state
    [answer] = state["gateAnswers"]
    assert (answer["phase"], answer["verdict"], answer["by"]) == ("4.1", "approved", "ann")
    assert [a["phase"] for a in flow.actions] == ["4.1", "4.1", "4.2", "4.3", None]
    # no text the model read told it to answer a gate itself (the action's data names the
    # person's commands as theirs: personApproves, personRejects; the script's own attempt)
    for text in flow.read:
        for line in text.splitlines():
            own = line.startswith('{"command": ') or line.strip().startswith('"person')
            if "gate approve" in line and not own:
                assert any(
                    w in line.lower() for w in ("their own shell", "do not run", "never run")
                ), line
