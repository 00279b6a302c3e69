"""What the main conversation costs for one whole workflow (issue 34), through the real host.

Drives the real Claude Code CLI (``claude -p --plugin-dir .``) against the project's Messages API
stub (tests/plugin/stub_api.py) through the default two-task workflow (4 explore agents, plan,
the plan's review, one wave of two tasks, its review, tests, the test review, docs, the final
review, completion), every fan-out one ``Workflow`` call as ``next`` prints it, every review a
Claude agent (tests/plugin/test_native_e2e.py's project settings).  The scripted orchestrator is
test_native_e2e's, made to work as a model following the plugin's texts does:

- it loads the ``workflow`` skill first, as ``/subagents:dispatch`` says, and a phase's own
  skill at the phase when the plugin has one (``PHASE_SKILLS``: the dispatcher skills, folded
  into the ``workflow`` skill in issue 34's second round);
- it acts on the action ``/subagents:dispatch``'s output ends with when the command's text says
  to (no ``next`` first);
- it writes an artifact and runs the recording command in one message when the ``workflow``
  skill says to;
- it reads (the Read tool, one turn for all of them) every file an action lists under ``read``
  before it acts, and the fan-out answers it merges;
- it takes the next action from a recording command's own output when that output holds it and
  the ``workflow`` skill says to go on from it (issue 34), and runs ``agents-state next --json``
  otherwise; it reads no file the action printed ``inline``; after a fan-out whose command
  drafts the artifact from the answers (``--from-answers``) and whose every agent has an
  outcome, it runs that command at once.

From the stub's request log it prints, per run: the main conversation's requests, their inputs
summed (system prompt, tool definitions and messages, in characters), the largest one (the peak
context), the characters the model wrote in the main conversation (text and tool inputs), and
the plugin's listing: the ``- subagents:...`` lines (agents, skills, commands, workflows) the
host puts in the first request.  Every verdict of a good run is checked: all phases done (3.2
skipped), both tasks completed, no permission prompt.

    flock /tmp/e2e.lock env -u PYTHONUNBUFFERED -u PYTHONDONTWRITEBYTECODE \\
        .venv/bin/python benchmarks/bench_orchestration.py [--runs 1] [--json]

Needs the CLI (``AGENTS_STATE_CLAUDE`` or .ci/node); a run takes a few minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "plugin"))

from stub_api import Block, StubAPI, request_text, tool_results  # noqa: E402
from test_native_e2e import (  # noqa: E402
    DISPATCH,
    TASK,
    Agents,
    Orchestrator,
    assert_done,
    assert_no_prompts,
    claude,
    finish,
    settings,
)
from test_workflow_e2e import bash  # noqa: E402

ENGINE = str(Path(sys.executable).parent / "agents-state")
PHASE_SKILLS = {"0": "explore-dispatcher", "1.2": "plan-dispatcher", "2.1": "task-dispatcher"}
LISTED = "- subagents:"


def input_chars(body: dict[str, Any]) -> int:
    """What one request sends the model: system prompt and messages as text, tool definitions."""
    return len(request_text(body)) + len(json.dumps(body.get("tools") or []))


def output_chars(blocks: list[Block]) -> int:
    return sum(
        len(b.get("text", "")) if b.get("type") == "text" else len(json.dumps(b.get("input", {})))
        for b in blocks
    )


def listing(body: dict[str, Any]) -> int:
    """Characters of the plugin's lines in the host's listings (agent types, skills, commands)."""
    text = request_text({"messages": body.get("messages") or []})
    return sum(len(line) + 1 for line in text.splitlines() if line.startswith(LISTED))


def plugin_skills() -> set[str]:
    return {p.name for p in (REPO / "skills").iterdir() if (p / "SKILL.md").is_file()}


class Model(Orchestrator):
    """The orchestrator as a model that follows the plugin's texts (see the module's text)."""

    def __init__(self, root: Path, agents: Agents) -> None:
        self.main_log: list[tuple[dict[str, Any], list[Block]]] = []
        self.skills = plugin_skills()
        self.loaded: set[str] = set()
        self.pending: dict[str, Any] | None = None  # an action a recording command printed
        # the texts say to go on from the action a recording command prints (issue 34)
        skill = (REPO / "skills" / "workflow" / "SKILL.md").read_text()
        self.acts_on_printed = "only when a command printed no next action" in skill
        self.write_with_command = "the Write call and\n   the recording command in ONE" in skill
        command = (REPO / "commands" / "dispatch.md").read_text()
        self.acts_on_dispatch = "It ends with the **next action**: do exactly that step" in command
        super().__init__(root, agents, DISPATCH)

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        if self.agents.identify(body) is not None:
            return self.agents(body)
        blocks = super().__call__(body)
        tools = {t.get("name") for t in body.get("tools") or []}
        if blocks is not None and "Agent" in tools and self.command in request_text(body):
            self.main_log.append((body, blocks))
        return blocks

    def skill(self, name: str) -> Generator[list[Block], dict[str, Any], None]:
        if name in self.loaded or name not in self.skills:
            return
        self.loaded.add(name)
        yield [{"type": "tool_use", "name": "Skill", "input": {"skill": f"subagents:{name}"}}]

    def read_all(self, rels: list[str]) -> Generator[list[Block], dict[str, Any], None]:
        if not rels:
            return
        yield [
            {"type": "tool_use", "name": "Read", "input": {"file_path": str(self.root / rel)}}
            for rel in rels
        ]

    def run(self, command: str) -> Generator[list[Block], dict[str, Any], str]:
        out = yield from super().run(command)
        self.pending = None
        if not command.startswith("agents-state next"):
            self.take_printed(out)
        return out

    def take_printed(self, out: str) -> None:
        """The next action a recording command's output holds, when the texts say to take it."""
        try:
            said = json.loads(out)
        except ValueError:
            said = None
        if isinstance(said, dict) and isinstance(said.get("kind"), str):
            self.pending = said
        elif self.acts_on_printed and any(ln.startswith("NEXT: ") for ln in out.splitlines()):
            self.pending = self.printed_action()

    def write_and_run(
        self, rel: str, content: str, command: str
    ) -> Generator[list[Block], dict[str, Any], str]:
        """The artifact's Write and the recording command in one message (the Write first)."""
        if not self.write_with_command:
            yield from self.write(rel, content)
            return (yield from self.run(command))
        write: Block = {
            "type": "tool_use",
            "name": "Write",
            "input": {"file_path": str(self.root / rel), "content": content},
        }
        body = yield [write, bash(command)]
        wrote, out = tool_results(body).values()
        self.engine_results += [(f"Write {rel}", wrote), (command, out)]
        if "needs approval" in out or "haven't granted" in out:
            raise AssertionError(f"`{command}` was not approved: {out}")
        self.pending = None
        self.take_printed(out)
        # the host ran the Write first: the command recorded the step and printed the next one
        assert self.pending is not None, f"`{command}` after its Write in one message: {out}"
        return out

    def from_answers(self, action: dict[str, Any]) -> bool:
        """Whether the fan-out's command may run right after its notification: the action says
        it drafts the artifact from the answers, and every agent has an outcome."""
        result = self.notices[-1].result if self.notices else None
        rows = result.get("results") if isinstance(result, dict) else None
        return (
            self.acts_on_printed
            and "--from-answers" in str(action.get("command"))
            and isinstance(rows, list)
            and all(isinstance(r, dict) and r.get("outcome") for r in rows)
        )

    def printed_action(self) -> dict[str, Any]:
        """The action a recording command printed as text, as the JSON the script acts on (the
        same engine state, read outside the conversation: it costs the model nothing)."""
        env = {**os.environ, "AI_AGENT": "claude-code_2-1-330_sdk-cli"}
        for name in ("CLAUDE_PROJECT_DIR", "CLAUDECODE"):
            env.pop(name, None)
        cmd = [ENGINE, "--root", str(self.root), "next", "--json"]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
        action: dict[str, Any] = json.loads(out)
        return action

    def orchestrate(self) -> Generator[list[Block], dict[str, Any], None]:
        yield []
        yield from self.skill("workflow")
        if self.acts_on_dispatch:  # the command's output ends with the first action
            self.pending = self.printed_action()
        while True:
            action = self.pending or json.loads((yield from self.run("agents-state next --json")))
            self.pending = None
            self.actions.append(action)
            kind = action["kind"]
            if kind == "done":
                self.done = True
                yield [{"type": "text", "text": "The workflow is done."}]
                return
            if kind == "compact":
                yield from self.run(action["command"])
                continue
            if kind == "wait":
                self.retried = yield from self.run("agents-state resume --retry")
                continue
            yield from self.skill(PHASE_SKILLS.get(str(action.get("phase")), ""))
            if action.get("workflow"):
                yield from self.fan_out(action)
                if self.from_answers(action):  # the engine drafts the artifact (issue 34)
                    yield from self.run(action["command"])
                continue
            yield from self.read_all(list(action.get("read") or []))
            if action.get("write"):
                yield from self.write_and_run(
                    action["write"], self.merged(action), action["command"]
                )
                continue
            yield from self.run(action["command"])


def one_run(work: Path, trace: bool = False) -> dict[str, Any]:
    root, home = work / "work", work / "home"
    root.mkdir(parents=True)
    home.mkdir()
    os.environ["HOME"] = str(home)
    log = work / "events.jsonl"
    settings(home, log, root)
    model = Model(root, Agents())
    with StubAPI(model) as api:
        finish(claude(root, api, f"/subagents:dispatch {TASK}"), model)
    assert_done(root, model)
    assert_no_prompts(log, model)
    sizes = [input_chars(body) for body, _ in model.main_log]
    if trace:
        for n, ((_, blocks), size) in enumerate(zip(model.main_log, sizes, strict=True), 1):
            said = "; ".join(
                f"{b['name']} {json.dumps(b['input'])[:90]}"
                if b["type"] == "tool_use"
                else f"text {b['text'][:60]!r}"
                for b in blocks
            )
            print(f"  {n:3} {size:>8,}  {said}")
    return {
        "main_requests": len(model.main_log),
        "main_input_chars": sum(sizes),
        "peak_input_chars": max(sizes),
        "first_input_chars": sizes[0],
        "main_output_chars": sum(output_chars(blocks) for _, blocks in model.main_log),
        "listing_chars": listing(model.main_log[0][0]),
        "all_requests": len(api.requests),
        "fanouts": len(model.workflow_calls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per run")
    parser.add_argument("--trace", action="store_true", help="each main request's reply")
    args = parser.parse_args()
    threading.excepthook = lambda a: None  # a held stub thread at exit is not a failure
    runs = []
    for n in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-orch-") as tmp:
            figures = one_run(Path(tmp), args.trace)
        runs.append(figures)
        print(json.dumps(figures) if args.json else f"run {n + 1}: {figures}", flush=True)
    if args.json:
        return
    print(f"{args.runs} run(s), median (min-max):")
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"  {key:18} {statistics.median(values):>12,.0f}  ({min(values):,}-{max(values):,})")


if __name__ == "__main__":
    main()
