"""Issue 14, acceptance: the real host carries a whole workflow.

Three runs of the real ``claude -p --plugin-dir .`` share one scripted Messages API stub and one
session, the way a user works:

1. ``/subagents:dispatch <task>`` in a fresh ``CLAUDE_PLUGIN_DATA`` with no engine on PATH: the
   SessionStart hook installs the engine, the command's ``!`` block and the Bash tool use it.  The
   scripted orchestrator does literally what each next action says: it launches the explore
   agents in the background (the host's default), one of them tries to read ``.env`` (denied),
   their answers arrive one by one while phase 0 stays open, then it writes the merged artifact,
   ``phase complete 0`` succeeds; the conversation has grown past 70% of its window (the stub's
   usage says so at the end of every stage), so at the stage boundary it records the compaction
   and asks the user to compact (issue 27).
2. ``--continue /compact``: a real compaction; the summariser's SubagentStop (empty agent type,
   a summary that quotes a handoff) changes nothing; SessionStart(compact) fires.
3. ``--continue``: the orchestrator, told where it stands by the SessionStart context, goes on to
   the end: plan agents in the foreground, a reviewer agent, a wave of task agents that record
   their own tasks, every phase recorded by the orchestrator.  It is asked to compact at every
   later stage boundary, and nowhere else; each time the user runs ``--continue /compact`` and
   ``--continue`` again (a real compaction: the transcript's ``compact_boundary`` puts the large
   usage behind it, so the size `next` judges does not depend on when the host flushes its
   transcript; the script waits for the large usage to be in the transcript before the
   boundary's `next`).  The run where compaction never helps is ``test_compaction_e2e.py``.

A user-settings hook logs every PermissionRequest: the engine's own steps raise none.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
from claude_cli import SYSTEM_PATH, hook_events, log_hook_events, require_claude, run_claude
from stub_api import Block, StubAPI, request_text, tool_results

pytestmark = pytest.mark.slow

TASK = "Add a health endpoint"
DISPATCH = "<command-name>/subagents:dispatch</command-name>"
GO_ON = "Go on with the workflow."
SMALL, LARGE = 10, 800_000  # tokens in context: under, and over 70% of a 200k or 1M window
STAGE_ENDS = ("0", "1.3", "2.3", "3.3")  # the last phase of EXPLORE, PLAN, IMPLEMENT, TEST
AGENT_HEADERS = {
    "# Explore agent": "explore",
    "# Plan agent": "plan",
    "# Task agent": "task",
    "# PR reviewer": "reviewer",
}
TASKS = {
    "tasks": [
        {
            "id": "t1",
            "title": "health model",
            "complexity": "easy",
            "dependencies": [],
            "files": ["health/model.py"],
        },
        {
            "id": "t2",
            "title": "health route",
            "complexity": "easy",
            "dependencies": [],
            "files": ["health/route.py"],
        },
    ]
}


def handoff(task_id: str, phase: str, summary: str, **extra: Any) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "phase": phase,
        "status": "complete",
        "decision": "PROCEED",
        "context_summary": summary,
        "issues": [],
        **extra,
    }


def fenced(data: dict[str, Any]) -> str:
    return "Done.\n\n```json\n" + json.dumps(data, indent=2) + "\n```"


def bash(command: str) -> Block:
    return {
        "type": "tool_use",
        "name": "Bash",
        "input": {"command": command, "description": command[:40]},
    }


def text(words: str) -> list[Block]:
    return [{"type": "text", "text": words}]


def last_user_text(body: dict[str, Any]) -> str:
    messages = body.get("messages") or [{}]
    return request_text({"messages": messages[-1:]})


class Workflow:
    """The scripted model: an orchestrator that follows the next action literally, and the
    sub-agents it launches.  It also records what it saw for the assertions."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self.main = self.orchestrator()
        next(self.main)
        self.engine_results: list[tuple[str, str]] = []  # (command, tool result)
        self.open_at_notice: list[bool] = []  # phase 0 still open at each explore answer
        self.phase_open_after_agent: dict[str, bool] = {}
        self.summaries = 0
        self.first_after_compact: str | None = None
        self.denials: list[str] = []
        self.agent_models: list[str | None] = []
        self.error: BaseException | None = None
        self.trace: list[str] = []  # the last user message of each main request
        self.input_tokens = SMALL  # the usage the stub reports (usage_override)
        self.asked_to_compact: list[str] = []  # the boundary at each request to the user
        self.grow_in_stages = True
        self.stopped_with: dict[str, Any] | None = None  # the ask_user or blocked action
        self.waiting_for_compact = False  # the turn ended asking the user for /compact
        self.explore_noticed = 0  # explore answers the orchestrator has been told of

    @property
    def usage_override(self) -> dict[str, int]:
        """What stub_api puts over its usage: the tokens in context the script sets."""
        return {"input_tokens": self.input_tokens}

    # -- routing ------------------------------------------------------------------------------

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        system = request_text({"system": body.get("system")})
        everything = request_text({"messages": body.get("messages", [])})
        if "<summary>" in everything and "Do NOT call any tools" in everything:
            return self.summarise()
        for header, kind in AGENT_HEADERS.items():
            if header in system:
                return self.sub_agent(kind, body)
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Agent" not in tools or not (DISPATCH in everything or GO_ON in everything):
            return None  # side requests: titles and the like
        with self.lock:
            self.trace.append(last_user_text(body)[-300:])
            try:
                return self.main.send(body)
            except BaseException as e:  # shown by the test, not swallowed by the CLI
                self.error = e
                return text(f"script failed: {e!r}")

    def summarise(self) -> list[Block]:
        self.summaries += 1
        self.input_tokens = SMALL  # the compacted conversation is small
        quoted = fenced(handoff("explore-1", "research", "Health checks live nowhere yet."))
        return text(
            "<analysis>short</analysis>\n<summary>The user runs a subagents workflow "
            f"for '{TASK}'. An explore agent answered:\n{quoted}\n</summary>"
        )

    def sub_agent(self, kind: str, body: dict[str, Any]) -> list[Block]:
        first = request_text({"messages": (body.get("messages") or [])[:1]})
        results = tool_results(body)
        area = re.search(r"area (\d+)", first)
        n = area.group(1) if area else "1"
        if kind == "explore":
            if n == "1" and not results:  # tries a credential file first
                return [
                    {
                        "type": "tool_use",
                        "name": "Read",
                        "input": {"file_path": str(self.root / ".env")},
                    }
                ]
            if n == "1":
                self.denials.extend(results.values())
            # answers one by one, as real agents finish: area n once the orchestrator has been
            # told of n - 1 answers (a condition, not a time)
            self.wait_for(lambda: self.explore_noticed >= int(n) - 1, f"explore {n}'s turn")
            return text(
                fenced(
                    handoff(
                        f"explore-{n}",
                        "research",
                        f"Area {n} mapped.",
                        findings={"area": f"area {n}"},
                    )
                )
            )
        if kind == "plan":
            return text(
                fenced(
                    handoff(
                        f"plan-{n}",
                        "research",
                        f"Plan for area {n}.",
                        findings={"tasks": TASKS["tasks"]},
                    )
                )
            )
        if kind == "reviewer":
            return text(
                fenced(
                    handoff("review-1.3", "validate", "The plan is sound.", findings={"issues": []})
                )
            )
        task = re.search(r"task (t\d)", first)
        tid = task.group(1) if task else "t?"
        if not results:  # it starts its task first: only its holder may report it (issue 32)
            return [bash(f"agents-state task start {tid}")]
        if any("claimed and started" in r for r in results.values()):
            return [bash(f'agents-state task done {tid} --summary "Implemented {tid}"')]
        self.engine_results.append((f"task done {tid}", "\n".join(results.values())))
        return text(
            fenced(handoff(tid, "write", f"Implemented {tid}.", files_changed=[f"health/{tid}.py"]))
        )

    # -- the orchestrator ---------------------------------------------------------------------

    def run(self, command: str) -> Generator[list[Block], dict[str, Any], str]:
        body = yield [bash(command)]
        (out,) = tool_results(body).values()
        self.engine_results.append((command, out))
        if "needs approval" in out or "haven't granted" in out:
            raise AssertionError(f"`{command}` was not approved: {out}")
        return out

    def phase_status(self, pid: str) -> str:
        state = json.loads((self.root / ".agents" / "state.json").read_text())
        for stage in state["stages"].values():
            if pid in stage["phases"]:
                return str(stage["phases"][pid]["status"])
        raise KeyError(pid)

    def launch(
        self, action: dict[str, Any], prompts: list[str], background: bool
    ) -> Generator[list[Block], dict[str, Any], None]:
        agents = action["agents"]
        model = agents.get("agentModel")
        self.agent_models.append(model)
        calls: list[Block] = []
        for prompt in prompts:
            call: dict[str, Any] = {
                "subagent_type": agents["subagentType"],
                "description": prompt[:30],
                "prompt": prompt,
            }
            if model:
                call["model"] = model
            if not background:
                call["run_in_background"] = False
            calls.append({"type": "tool_use", "name": "Agent", "input": call})
        body = yield calls
        if not background:
            return
        assert len(tool_results(body)) == len(prompts)  # "launched" receipts
        answered: set[str] = set()
        body = yield text(f"Waiting for {len(prompts)} agents.")
        while True:
            notice = last_user_text(body)
            answered |= set(re.findall(r"<task-id>([^<]+)</task-id>", notice))
            if action["phase"] == "0":
                self.open_at_notice.append(self.phase_status("0") != "completed")
                self.explore_noticed = len(answered)
            if len(answered) >= len(prompts):
                return
            body = yield text(f"{len(answered)} of {len(prompts)} answered; waiting.")

    def write(self, rel: str, content: str) -> Generator[list[Block], dict[str, Any], None]:
        body = yield [
            {
                "type": "tool_use",
                "name": "Write",
                "input": {"file_path": str(self.root / rel), "content": content},
            }
        ]
        (out,) = tool_results(body).values()
        self.engine_results.append((f"Write {rel}", out))

    def artifact(self, action: dict[str, Any]) -> str:
        pid = action["phase"]
        if action["command"].startswith("agents-state tasks load"):
            return json.dumps(TASKS)
        if pid == "3.1":
            return json.dumps({"commands": [{"name": "test", "command": "pytest", "exitCode": 0}]})
        if action["write"].endswith(".json"):
            return json.dumps({"issues": []})
        return f"# {pid} {action['phaseName']}\n\nDone for: {TASK}\n"

    def orchestrator(self) -> Generator[list[Block], dict[str, Any], None]:
        body = yield []
        assert "workflow started: " + TASK in request_text(body)  # the command's `!` block
        body = yield [
            {"type": "tool_use", "name": "Skill", "input": {"skill": "subagents:workflow"}}
        ]
        while True:
            action = json.loads((yield from self.run("agents-state next --json")))
            kind = action["kind"]
            if kind == "done":
                yield text("The workflow is done.")
                return
            if kind in ("ask_user", "blocked"):  # a person decides: say why and stop
                self.stopped_with = action
                yield text(f"The workflow needs you: {action.get('reason')}")
                return
            if kind == "compact":  # the user compacts (a real /compact), then says to go on
                yield from self.run(action["command"])
                self.asked_to_compact.append(str(action.get("compaction", {}).get("after")))
                self.waiting_for_compact = True
                body = yield text("Stage done: please run /compact, then tell me to go on.")
                if self.first_after_compact is None:
                    self.first_after_compact = request_text(body)
                continue
            if kind == "dispatch_agents" and action.get("tasks"):
                prompts = [
                    f"Implement task {t['id']}: {t['title']}. When done run: "
                    f"agents-state task done {t['id']} --summary TEXT"
                    for t in action["tasks"]
                ]
                yield from self.launch(action, prompts, background=True)
                continue
            if kind == "dispatch_agents" or (kind == "review" and action["phase"] == "1.3"):
                if kind == "review":
                    action = {
                        **action,
                        "agents": {
                            **action["agents"],
                            "agentModel": "opus",
                            "subagentType": "subagents:pr-reviewer",
                        },
                    }
                count = action["agents"]["count"]
                prompts = [f"{action['phaseName']}: area {i + 1} of '{TASK}'" for i in range(count)]
                yield from self.launch(action, prompts, background=action["phase"] == "0")
                self.phase_open_after_agent[action["phase"]] = (
                    self.phase_status(action["phase"]) != "completed"
                )
            yield from self.write(action["write"], self.artifact(action))
            grown = action["phase"] in STAGE_ENDS and self.grow_in_stages
            if grown:
                self.input_tokens = LARGE  # the stage filled the conversation
            yield from self.run(action["command"])
            if grown:  # what `next` reads is in the transcript before `next` runs
                self.wait_for_context(LARGE)

    def wait_for_context(self, tokens: int) -> None:
        """Wait (a condition, not a time) until the main transcript's newest usage shows
        ``tokens``: the host writes its transcript in the background, and the next `next`
        must judge the size this script set, not the one before it."""
        from agents_state.contextsize import context_usage, transcript_of

        def shown() -> bool:
            path = transcript_of(str(self.root))
            found = context_usage(path) if path else None
            return found is not None and found[0] >= tokens

        self.wait_for(shown, f"{tokens} tokens in the transcript")

    @staticmethod
    def wait_for(fact: Callable[[], bool], what: str) -> None:
        """Poll until ``fact()`` holds; the bound only turns a hang into a failure."""
        deadline = time.monotonic() + 300
        while not fact():
            if time.monotonic() > deadline:
                raise AssertionError(f"never happened: {what}")
            time.sleep(0.05)


def run_host(root: Path, api: StubAPI, *args: str) -> subprocess.CompletedProcess[str]:
    """A run with no engine on PATH: the host finds it in the plugin's bin/ only."""
    return run_claude(root, api, *args, path=SYSTEM_PATH, timeout=420)


def log_events(home: Path, log: Path) -> None:
    """User settings: log every PermissionRequest, SessionStart and SubagentStop event (no allow
    rule: without TEST commands the plugin approves the 3.1 report, issue 33)."""
    log_hook_events(home, log, ("PermissionRequest", "SessionStart", "SubagentStop"))


def injections_per_prompt(transcript: Path) -> list[tuple[str, int]]:
    """Each prompt of the session (the host's queue line) with the number of workflow contexts
    the SessionStart hooks injected until the next prompt, from the transcript the host wrote
    (read after its processes ended)."""
    out: list[tuple[str, int]] = []
    for line in transcript.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "queue-operation" and entry.get("operation") == "enqueue":
            out.append((str(entry.get("content")), 0))
        attachment = entry.get("attachment") or {}
        if out and attachment.get("type") == "hook_additional_context":
            said = json.dumps(attachment.get("content"))
            if "agents-state workflow (resume from here" in said:
                out[-1] = (out[-1][0], out[-1][1] + 1)
    return out


def test_a_whole_workflow_through_the_real_host(root: Path, tmp_path: Path) -> None:
    require_claude()
    assert shutil.which("agents-state", path=SYSTEM_PATH) is None, "an engine is on PATH"
    # nor can the launcher's last resort (python3 -m agents_state) answer in its place
    python = shutil.which("python3", path=SYSTEM_PATH)
    assert (
        python
        and subprocess.run(
            [python, "-c", "import click, pydantic, orjson"], capture_output=True, check=False
        ).returncode
        != 0
    )
    home = Path(os.environ["HOME"])
    log = tmp_path / "events.jsonl"
    log_events(home, log)
    (root / ".env").write_text("HEALTH_TOKEN=do-not-leak-42\n")
    flow = Workflow(root)
    with StubAPI(flow) as api:
        first = run_host(root, api, f"/subagents:dispatch {TASK}")
        assert flow.error is None, flow.error
        assert first.returncode == 0, first.stderr
        compacted: list[tuple[bytes, str, bytes, str]] = []  # state and calls around each
        while flow.waiting_for_compact and len(compacted) < 5:
            # asked at a boundary: the user compacts (a real /compact), then says to go on
            flow.waiting_for_compact = False
            before = (root / ".agents" / "state.json").read_bytes()
            calls_before = (root / ".agents" / "toolcalls.log").read_text()
            second = run_host(root, api, "--continue", "/compact")
            assert second.returncode == 0, second.stderr
            after = (root / ".agents" / "state.json").read_bytes()
            compacted.append(
                (before, calls_before, after, (root / ".agents" / "toolcalls.log").read_text())
            )
            third = run_host(root, api, "--continue", GO_ON)
            assert flow.error is None, (flow.error, flow.trace[-3:])
            assert third.returncode == 0, third.stderr
    state_before_compact, calls_before_compact, state_after_compact, calls_after_compact = (
        compacted[0]
    )

    # install: the first session built the engine; the `!` block and the Bash tool used it
    data = hook_events(log, "SessionStart")
    assert data, "no SessionStart"
    installed = list((home / ".claude" / "plugins" / "data").glob("*/bin/agents-state"))
    assert len(installed) == 1 and os.access(installed[0], os.X_OK), installed
    assert any(c == "agents-state next --json" for c, _ in flow.engine_results)

    # phase 0: three or more background explore agents, answers one by one, phase still open
    assert flow.agent_models[0] == "sonnet"
    assert len(flow.open_at_notice) >= 3 and all(flow.open_at_notice), flow.open_at_notice
    done0 = [out for c, out in flow.engine_results if c.startswith("agents-state phase complete 0")]
    assert done0 and "completed" in done0[0].lower(), done0
    assert flow.phase_open_after_agent == {"0": True, "1.2": True, "1.3": True}

    # the explore agent's Read of .env was denied; the secret never reached the model
    assert any(
        "PreToolUse:Read hook error" in d and "credential files" in d for d in flow.denials
    ), flow.denials
    assert not any("do-not-leak-42" in json.dumps(r) for r in api.requests)

    # /compact: the summariser's SubagentStop changed nothing; SessionStart brought it back
    assert flow.summaries >= 1
    stops = hook_events(log, "SubagentStop")
    assert any(e.get("agent_type") == "" for e in stops)
    assert state_after_compact == state_before_compact
    assert calls_before_compact and not calls_after_compact  # session-start(compact) reset it
    # every later compaction too: nothing changed in the state, the call count started again
    assert all(a == b and cb and not ca for b, cb, a, ca in compacted)
    assert flow.summaries >= len(compacted) == 4
    assert any(e.get("source") == "compact" for e in data)
    # one injection per session start: of each `--continue /compact`'s resume and compact
    # hooks, one injects the workflow, whichever the host runs first (issue 27)
    transcripts = {e["transcript_path"] for e in data}
    assert len(transcripts) == 1, transcripts
    per_prompt = injections_per_prompt(Path(transcripts.pop()))
    # (counted over the session: the host may write a hook's output after the next prompt's
    # queue line; a second injection in any start would make it 3 per compaction)
    assert sum(n for _, n in per_prompt) == 2 * len(compacted), per_prompt
    assert [p for p, _ in per_prompt].count("/compact") == len(compacted), per_prompt
    assert flow.first_after_compact is not None
    assert "NEXT: " in flow.first_after_compact and f"task: {TASK}" in flow.first_after_compact

    # the whole workflow: done, every phase recorded by the orchestrator
    state = json.loads((root / ".agents" / "state.json").read_text())
    assert state["status"] == "completed"
    # asked to compact exactly at the stage boundaries, where it helped (issue 27)
    boundaries = ["EXPLORE", "PLAN", "IMPLEMENT", "TEST"]
    assert flow.asked_to_compact == boundaries, flow.asked_to_compact
    assert state["compaction"]["history"] == boundaries
    assert state["compaction"].get("skipped", []) == []
    phases = {pid: p["status"] for s in state["stages"].values() for pid, p in s["phases"].items()}
    # the tests passed at their first run, so 3.2 (analyse and fix) had nothing to do (issue 15)
    assert phases.pop("3.2") == "skipped", phases
    assert set(phases.values()) == {"completed"}, phases
    recorded = [
        c.split()[3]
        for c, out in flow.engine_results
        if c.startswith("agents-state phase complete")
    ]
    # 2.1 completes with its last task, which the task agents recorded themselves
    assert sorted(recorded) == sorted(pid for pid in phases if pid != "2.1"), recorded
    assert {c for c, _ in flow.engine_results if c.startswith("task done")} == {
        "task done t1",
        "task done t2",
    }
    targets = {r["target"] for r in state["handoffs"]["records"]}
    assert all(t.startswith(("the ledger of phase", "task ")) for t in targets), targets

    # zero permission prompts: every engine step ran, none asked
    asked = hook_events(log, "PermissionRequest")
    assert asked == [], asked
    for command, out in flow.engine_results:
        assert "needs approval" not in out and "haven't granted" not in out, (command, out)

    # what it cost (issue 24): every agent booked where it started, each task by its agent
    book = json.loads((root / ".agents" / "usage.json").read_text())
    booked = {(a["type"], a["phase"], a["phaseBy"], a["task"]) for a in book["agents"].values()}
    assert {(t, p) for t, p, _, _ in booked} == {
        ("subagents:explore-agent", "0"),
        ("subagents:plan-agent", "1.2"),
        ("subagents:pr-reviewer", "1.3"),
        ("subagents:task-agent", "2.1"),
    }, booked
    assert {by for _, _, by, _ in booked} == {"start"}
    assert {task for t, _, _, task in booked if t == "subagents:task-agent"} == {"t1", "t2"}
    assert book["notes"] == []
