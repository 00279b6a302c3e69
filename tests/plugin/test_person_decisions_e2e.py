"""Issue 32 item 5: every person's decision, not only a gate, is refused to a model.

The real ``claude -p --plugin-dir .`` runs ``/subagents:resume``, whose ``allowed-tools`` grant
``Bash(agents-state *)`` would cover ``budget --raise``, ``budget --once``, ``resume --skip``,
``task done --force`` and ``dispatch --replace``: before the fix every one of them ran (the
budget was raised twice, quoted or not, and ``dis\\patch --replace`` archived the workflow, with
nobody asked; the others reached the engine, which refused them only for the workflow's
state).  A scripted model tries each, plainly and hidden by quoting as bash reads it
(``bud''get``, ``"re"sume``, ``dis\\patch``); the plugin's first PreToolUse hook denies every
one, naming the command the person runs in their own shell, and the workflow's state is
unchanged.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from claude_cli import require_claude, run_claude
from stub_api import Block, StubAPI, request_text, tool_results

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from clitools import run_cli

pytestmark = pytest.mark.slow

RESUME = "<command-name>/subagents:resume</command-name>"
# (what the model runs, what the person's command in the refusal starts with)
ATTEMPTS = [
    ("agents-state budget --raise 5000000", "agents-state budget --raise"),
    ("agents-state bud''get --raise 6000000", "agents-state budget --raise"),
    ("agents-state budget --once", "agents-state budget --once"),
    ("agents-state resume --skip", "agents-state resume --skip"),
    ('agents-state "re"sume --sk\\ip', "agents-state resume --skip"),
    ("agents-state task done T1 --force", "agents-state task done"),
    ("agents-state dis\\patch --replace 'Something else'", "agents-state dispatch --replace"),
]


class Model:
    """The scripted model: runs each attempt, then ends its turn."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.main = self.script()
        next(self.main)
        self.results: list[tuple[str, str]] = []
        self.error: BaseException | None = None

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Bash" not in tools or RESUME not in request_text({"messages": body["messages"]}):
            return None  # side requests: titles and the like
        with self.lock:
            try:
                return self.main.send(body)
            except BaseException as e:
                self.error = e
                return [{"type": "text", "text": f"script failed: {e!r}"}]

    def script(self) -> Generator[list[Block], dict[str, Any], None]:
        yield []
        for command, _person in ATTEMPTS:
            body = yield [{"type": "tool_use", "name": "Bash", "input": {"command": command}}]
            (out,) = tool_results(body).values()
            self.results.append((command, out))
        yield [{"type": "text", "text": "Tried them all."}]


def test_no_persons_decision_runs_for_a_model_under_the_plugins_grant(root: Path) -> None:
    require_claude()
    (root / ".agents").mkdir(parents=True)
    assert run_cli(root, "dispatch", "Add a health endpoint").returncode == 0
    before = (root / ".agents" / "state.json").read_text()
    model = Model()
    with StubAPI(model) as api:
        done = run_claude(root, api, "/subagents:resume")
    assert model.error is None, (model.error, model.results)
    assert done.returncode == 0, done.stderr
    assert [c for c, _ in model.results] == [c for c, _ in ATTEMPTS]
    for (command, out), (_c, person) in zip(model.results, ATTEMPTS, strict=True):
        assert "is a person's decision; no model or agent" in out, (command, out)
        assert f"run in their own shell: {person}" in out, (command, out)
    # nothing ran: the budget, the workflow and its tasks are as they were
    assert (root / ".agents" / "state.json").read_text() == before
    budget = json.loads(run_cli(root, "--json", "budget").stdout)
    assert budget["maxTokens"] != 5000000 and budget["maxTokens"] != 6000000
