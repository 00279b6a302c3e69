"""Issue 25, acceptance: the plugin's fan-outs run as the host's own Workflow, end to end.

The real ``claude -p --plugin-dir .`` against a scripted stub model.  The orchestrator does
literally what ``agents-state next --json`` says: for a fan-out it makes the Workflow call the
action holds under ``"workflow"`` (byte for byte), ends its turn, and waits for the script's
``<task-notification>``; then it merges the answers the engine recorded (``read``), writes the
artifact and runs the action's command.  Each workflow agent is answered by the marker line of
its prompt, with a ``StructuredOutput`` call (the handoff schema the engine passed); a task agent
first runs ``agents-state task start`` and ``task done`` as its prompt says.  A user-settings
hook logs PermissionRequest events: the engine's own steps, the Workflow call included, raise
none.

- a whole workflow to done, every fan-out (explore, plan, review, the wave) one Workflow call;
- the host killed while a wave's workflow runs (one task agent done, the other mid-answer), then
  a new session's ``/subagents:resume``: the wave's call holds only the unfinished task, the
  finished agent's requests are not repeated (counted by the stub), the workflow reaches done;
- the same workflow with ``CLAUDE_CODE_DISABLE_WORKFLOWS=1``: the host offers no Workflow tool,
  ``next`` gives the Agent calls, and it reaches done through them;
- a handoff that does not match the schema is sent back by the host and never recorded;
- in a git repository, each task agent of the wave's call works in its own task worktree;
- a Workflow call the engine did not print is denied by the plugin's hook and runs nothing.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
from claude_cli import hook_events, require_claude, start_claude
from fanout_stub import (
    AgentCall,
    FanoutAgents,
    Notice,
    fanout_marker,
    notification,
    opening_texts,
    wait_for,
    workflow_call,
)
from stub_api import Block, StubAPI, request_text, tool_results
from test_workflow_e2e import TASKS, bash, handoff, last_user_text, log_events, text

pytestmark = pytest.mark.slow

TASK = "Add a health endpoint"
DISPATCH = "<command-name>/subagents:dispatch</command-name>"
RESUME = "<command-name>/subagents:resume</command-name>"
ROLE = {"explore": "research", "plan": "write", "reviewer": "validate", "task": "write"}
AGENT_PROMPT = re.compile(r"^agent (\S+) of fan-out (\S+):")  # the Agent-call path's prompts


def answer(call: AgentCall) -> dict[str, Any]:
    """Each agent's handoff: the phase its prompt names, findings by kind."""
    said = re.search(r'phase "(\w+)"', call.prompt)
    role = said.group(1) if said else ROLE.get(call.kind, "research")
    extra: dict[str, Any] = {}
    if call.kind == "explore":
        extra["findings"] = {"area": f"area of {call.key}"}
    elif call.kind == "plan":
        extra["findings"] = {"tasks": TASKS["tasks"]}
    elif call.kind == "reviewer":
        extra["findings"] = {"issues": []}
    elif call.kind == "task":
        extra["files_changed"] = [f"health/{call.key}.py"]
    return handoff(call.key, role, f"{call.key} done.", **extra)


def agent_prompt_key(body: dict[str, Any]) -> tuple[str, str] | None:
    """The Agent-call path: its prompts start ``agent <key> of fan-out <id>:``."""
    for block in opening_texts(body):
        found = AGENT_PROMPT.match(block.lstrip())
        if found:
            return found.group(2), found.group(1)
    return None


def either(body: dict[str, Any]) -> tuple[str, str] | None:
    return fanout_marker(body) or agent_prompt_key(body)


class Agents(FanoutAgents):
    """The fan-out agents of this test: task agents start and finish their task first."""

    def __init__(self, write: bool = False, **wrong: Any) -> None:
        super().__init__(answer, identify=either, **wrong)
        self.steps = self.task_steps
        self.write = write  # a task agent also writes its file where `task start` said to
        self.shell: list[tuple[str, str]] = []  # (key, result of its step)

    def task_steps(self, call: AgentCall) -> list[Block] | None:
        if call.kind != "task":
            return None
        with self.lock:
            self.shell += [(call.key, r) for r in call.results.values()]
        done = sum(1 for m in call.body["messages"] if m.get("role") == "assistant")
        steps: list[Block] = [bash(f"agents-state task start {call.key}")]
        if self.write and done >= 1:
            said = re.search(r"work in (\S+)", request_text({"messages": call.body["messages"]}))
            folder = said.group(1) if said else "/nonexistent"
            target = f"{folder}/health/{call.key}.py"
            content = f"# {call.key}\n"
            steps.append(
                {
                    "type": "tool_use",
                    "name": "Write",
                    "input": {"file_path": target, "content": content},
                }
            )
        steps.append(bash(f'agents-state task done {call.key} --summary "Implemented {call.key}"'))
        return [steps[done]] if done < len(steps) else None


class Refused(Exception):
    """The host refused a (tampered) Workflow call: the orchestrator stops there."""


class Orchestrator:
    """The main conversation, following ``next --json`` literally; one per session."""

    def __init__(
        self,
        root: Path,
        agents: Agents,
        command: str,
        fanouts: int | None = None,
        tamper: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.root, self.agents, self.command = root, agents, command
        self.tamper = tamper  # changes the Workflow call before it is sent (it must be refused)
        self.fanouts = fanouts  # stop at the next fan-out after this many Workflow calls
        self.lock = threading.Lock()
        self.actions: list[dict[str, Any]] = []
        self.engine_results: list[tuple[str, str]] = []
        self.workflow_calls: list[dict[str, Any]] = []  # the Workflow inputs it sent
        self.launches: list[str] = []  # the Workflow tool's results
        self.notices: list[Notice] = []
        self.agent_calls: list[dict[str, Any]] = []  # the Agent inputs it sent
        self.offered: set[str] = set()  # tools the host offered the main conversation
        self.error: BaseException | None = None
        self.trace: list[str] = []
        self.done = False
        self.status = ""  # what `agents-state status` said first, through the host's Bash tool
        self.retried = ""  # what `agents-state resume --retry` said, if the action said to
        self.main = self.orchestrate()
        next(self.main)

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        blocks = self.agents(body)
        if blocks is not None:
            return blocks
        tools = {t.get("name") for t in body.get("tools") or []}
        if "Agent" not in tools or self.command not in request_text(body):
            return None  # side requests: titles and the like
        with self.lock:
            self.offered |= {t for t in tools if isinstance(t, str)}
            self.trace.append(last_user_text(body)[-300:])
            try:
                return self.main.send(body)
            except StopIteration:
                return text("The workflow is done.")
            except Refused:
                return text("The Workflow call was refused; stopping.")
            except BaseException as e:  # shown by the test, not swallowed by the CLI
                self.error = e
                return text(f"script failed: {e!r}")

    def run(self, command: str) -> Generator[list[Block], dict[str, Any], str]:
        body = yield [bash(command)]
        (out,) = tool_results(body).values()
        self.engine_results.append((command, out))
        if "needs approval" in out or "haven't granted" in out:
            raise AssertionError(f"`{command}` was not approved: {out}")
        return out

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

    def fan_out(self, action: dict[str, Any]) -> Generator[list[Block], dict[str, Any], None]:
        """The Workflow call as printed; then wait for its notification."""
        call = workflow_call(action)
        if self.tamper is not None:
            call = {**call, "input": self.tamper(call["input"])}
        self.workflow_calls.append(call["input"])
        body = yield [call]
        (launched,) = tool_results(body).values()
        self.launches.append(launched)
        if "Workflow launched" not in launched:
            if self.tamper is not None:
                raise Refused(launched)
            raise AssertionError(f"the Workflow call did not run: {launched}")
        body = yield text("Waiting for the fan-out's notification.")
        while True:
            mine = [n for n in notification(body) if "Dynamic workflow" in n.text]
            if mine:
                self.notices += mine
                return
            body = yield text("Still waiting for the fan-out.")

    def launch(self, action: dict[str, Any]) -> Generator[list[Block], dict[str, Any], None]:
        """The Agent-call path: one foreground Agent call per agent, in one message."""
        agents = action["agents"]
        fan = action["phase"]
        if action.get("tasks"):
            prompts = [
                f"agent {t['id']} of fan-out {fan}: Implement task {t['id']}: {t['title']}. "
                f"When done run: agents-state task done {t['id']} --summary TEXT"
                for t in action["tasks"]
            ]
        else:
            prompts = [
                f"agent {k + 1} of fan-out {fan}: {action['phaseName']}, area {k + 1} of '{TASK}'"
                for k in range(int(agents.get("count") or 1))
            ]
        calls: list[Block] = []
        for prompt in prompts:
            call = {
                "subagent_type": agents["subagentType"],
                "description": prompt[:30],
                "prompt": prompt,
                "run_in_background": False,
            }
            if agents.get("agentModel"):
                call["model"] = agents["agentModel"]
            self.agent_calls.append(call)
            calls.append({"type": "tool_use", "name": "Agent", "input": call})
        body = yield calls
        assert len(tool_results(body)) == len(prompts)

    def merged(self, action: dict[str, Any]) -> str:
        """The artifact of a fan-out phase: every answer the engine recorded, merged."""
        pid = action["phase"]
        if action["command"].startswith("agents-state tasks load"):
            return json.dumps(TASKS)
        if pid == "3.1":
            return json.dumps({"commands": [{"name": "test", "command": "pytest", "exitCode": 0}]})
        if action["write"].endswith(".json"):
            return json.dumps({"issues": []})
        answers = [r for r in reads(action) if "/fanout-" in r]
        lines = [f"# {pid} {action['phaseName']}", "", f"Done for: {TASK}"]
        for rel in answers:
            recorded = json.loads((self.root / rel).read_text())
            lines += [f"- {key}: {v['answer']['context_summary']}" for key, v in recorded.items()]
        return "\n".join(lines) + "\n"

    def orchestrate(self) -> Generator[list[Block], dict[str, Any], None]:
        yield []
        self.status = yield from self.run("agents-state status")
        while True:
            action = json.loads((yield from self.run("agents-state next --json")))
            self.actions.append(action)
            kind = action["kind"]
            if kind == "done":
                self.done = True
                yield text("The workflow is done.")
                return
            if kind == "compact":
                yield from self.run(action["command"])
                continue
            if kind == "wait":
                # "If the session that launched them died, take their tasks back now": this
                # session launched no fan-out yet, so the one that did is gone
                assert not self.workflow_calls and not self.agent_calls, action["instructions"]
                self.retried = yield from self.run("agents-state resume --retry")
                continue
            if action.get("workflow"):
                if self.fanouts is not None and len(self.workflow_calls) >= self.fanouts:
                    yield text("Stopping here.")
                    return
                if self.workflow_calls and self.workflow_calls[-1] == action["workflow"]:
                    fan = action["workflow"]["args"]["fanout"]
                    raise AssertionError(
                        f"no answer of fan-out {fan} was recorded: same call; "
                        f"its SubagentStop records: {stops_of(self.root, fan)}"
                    )
                yield from self.fan_out(action)
                continue  # next says: merge the answers, or the wave's next step
            native = any("/fanout-" in r for r in reads(action))
            if kind == "dispatch_agents" and action.get("tasks"):
                yield from self.launch(action)
                continue
            if not native and kind in ("dispatch_agents", "review") and action.get("agents"):
                yield from self.launch(action)
            if action.get("write"):
                yield from self.write(action["write"], self.merged(action))
            yield from self.run(action["command"])  # e.g. take back a dead agent's task


def reads(action: dict[str, Any]) -> list[str]:
    """The files a step needs: to read, or printed in the action (issue 34)."""
    return [*action.get("read", []), *(i["path"] for i in action.get("inline", []))]


def stops_of(root: Path, fan: str) -> list[dict[str, Any]]:
    """What the SubagentStop hook logged for the agents of fan-out ``fan`` (a failure's why)."""
    log = root / ".agents" / "subagents.jsonl"
    lines = log.read_text().splitlines() if log.exists() else []
    return [e for e in map(json.loads, lines) if e.get("fanout") == fan]


WRONG = handoff("E2", "research", "a wrong answer", decision="MAYBE")  # not in the schema's enum
FANOUTS = ["0", "1.2", "1.3", "2.1-w1", "2.3", "3.3", "4.2"]
CLAUDE_REVIEWS = {"review": {"tool": "opus-4.5"}}  # not the default Codex tool: a Claude agent


def settings(home: Path, log: Path, root: Path) -> None:
    """User settings log the hook events; the project's reviews are Claude agents, so every
    fan-out of the workflow (explore, plan, the wave, every review) is one for the host."""
    log_events(home, log)
    stages = {s: CLAUDE_REVIEWS for s in ("PLAN", "IMPLEMENT", "TEST", "FINAL")}
    (root / ".agents").mkdir()
    (root / ".agents" / "config.json").write_text(json.dumps({"stages": stages}))


def claude(
    root: Path, api: StubAPI, prompt: str, extra_env: dict[str, str] | None = None, *more: str
) -> subprocess.Popen[str]:
    return start_claude(root, api, *more, prompt, env=extra_env)


def finish(proc: subprocess.Popen[str], flow: Orchestrator) -> str:
    try:
        out, err = proc.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
        last = flow.actions[-1:] and {k: flow.actions[-1].get(k) for k in ("kind", "phase")}
        raise AssertionError(f"the host never finished: {last} {flow.trace[-4:]}") from None
    assert proc.returncode == 0, out + err
    return out


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def phases(root: Path) -> dict[str, str]:
    s = state(root)
    return {pid: p["status"] for st in s["stages"].values() for pid, p in st["phases"].items()}


def tasks(root: Path) -> dict[str, str]:
    wave = state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"].get("tasks") or {}
    return {tid: t["status"] for tid, t in wave.items()}


def assert_done(root: Path, flow: Orchestrator) -> None:
    assert flow.error is None, (flow.error, flow.trace[-3:])
    assert flow.done, flow.trace[-3:]
    assert state(root)["status"] == "completed"
    got = phases(root)
    assert got.pop("3.2") == "skipped", got  # the tests passed at their first run
    assert set(got.values()) == {"completed"}, got
    assert tasks(root) == {"t1": "completed", "t2": "completed"}


def answer_of(key: str, kind: str) -> dict[str, Any]:
    return answer(AgentCall("", key, kind, {}, {}, {}, 1))


def assert_never_kept(root: Path, word: str) -> None:
    """No file the engine keeps (state, events, answers, logs) holds ``word``."""
    kept = [p for p in (root / ".agents").rglob("*") if p.is_file()]
    assert kept and not [p for p in kept if word in p.read_text(errors="replace")]


def assert_no_prompts(log: Path, *flows: Orchestrator) -> None:
    asked = hook_events(log, "PermissionRequest")
    assert asked == [], asked
    for flow in flows:
        for command, out in flow.engine_results:
            assert "needs approval" not in out and "haven't granted" not in out, (command, out)


def test_a_whole_workflow_runs_every_fanout_as_a_workflow(root: Path, tmp_path: Path) -> None:
    require_claude()
    log = tmp_path / "events.jsonl"
    settings(Path(os.environ["HOME"]), log, root)
    agents = Agents(wrong_first={"E2"}, wrong=WRONG)
    flow = Orchestrator(root, agents, DISPATCH)
    with StubAPI(flow) as api:
        finish(claude(root, api, f"/subagents:dispatch {TASK}"), flow)
    assert_done(root, flow)
    assert "fan-outs: one Workflow call (subagents:fanout) · Claude Code 2.1.3" in flow.status

    # every fan-out was one Workflow call, exactly as next printed it; no Agent call at all
    fanouts = [a for a in flow.actions if a.get("workflow")]
    assert [c["args"]["fanout"] for c in flow.workflow_calls] == FANOUTS
    assert flow.workflow_calls == [a["workflow"] for a in fanouts]
    assert flow.agent_calls == []
    assert all("Workflow launched in background" in r for r in flow.launches)
    assert [n.status for n in flow.notices] == ["completed"] * len(FANOUTS), flow.notices
    for call, notice in zip(flow.workflow_calls, flow.notices, strict=True):
        keys = [a["key"] for a in call["args"]["agents"]]
        assert [r["key"] for r in notice.result["results"]] == keys
        # issue 34: one line per agent comes back, the whole answer is the engine's
        outcomes = [r["outcome"] for r in notice.result["results"]]
        assert all(o.startswith("complete PROCEED: ") for o in outcomes), notice.text
        assert "findings" not in notice.text
    # issue 34: each prompt of a call is a reference to the brief the engine wrote
    for call in flow.workflow_calls:
        assert call["args"]["schema"] == "handoff"
        for a in call["args"]["agents"]:
            _marker, line = a["prompt"].split("\n")
            brief = Path(line.split()[3].rstrip(":"))
            assert brief == root.resolve() / ".agents" / "briefs" / call["args"]["fanout"] / (
                a["key"] + ".md"
            )
            assert "schema" not in a and f'task_id "{a["key"]}"' in brief.read_text()
    # each agent ran once; the wave's agents recorded their own tasks
    wave = flow.workflow_calls[3]["args"]["agents"]
    assert sorted(a["key"] for a in wave) == ["t1", "t2"]
    assert agents.structured["E2"] == [WRONG, answer_of("E2", "explore")]  # sent back once
    assert agents.by_fanout.pop(("0", "E2")) == 2
    once = {fk: n for fk, n in agents.by_fanout.items() if fk[0] != "2.1-w1"}
    sent = {
        (c["args"]["fanout"], a["key"]) for c in flow.workflow_calls for a in c["args"]["agents"]
    }
    assert once == {fk: 1 for fk in sent if fk[0] != "2.1-w1" and fk != ("0", "E2")}, once
    assert agents.counts["t1"] == agents.counts["t2"] == 3  # start, done, answer
    assert [r for _, r in agents.shell if "needs approval" in r] == []

    # every answer recorded by the engine as it arrived, the handoffs with them
    s = state(root)
    fans = s["fanouts"]
    assert sorted(fans["0"]["answers"]) == [f"E{k}" for k in range(1, 5)]
    assert set(fans["2.1-w1"]["answers"]) == {"t1", "t2"}
    agents_of = {r.get("task") for r in s["handoffs"]["records"] if r.get("task")}
    assert agents_of == {"t1", "t2"}
    assert fans["0"]["answers"]["E2"]["answer"] == answer_of("E2", "explore")
    assert_never_kept(root, "MAYBE")
    assert_no_prompts(log, flow)


@pytest.mark.parametrize("held_at", [1, 2], ids=["before-task-start", "after-task-start"])
def test_killed_mid_wave_resumes_only_the_unfinished_agents(
    root: Path, tmp_path: Path, held_at: int
) -> None:
    require_claude()
    log = tmp_path / "events.jsonl"
    settings(Path(os.environ["HOME"]), log, root)
    agents = Agents()
    agents.hold("t2", held_at)  # t2's agent stays mid-answer until the host is gone
    first = Orchestrator(root, agents, DISPATCH)
    with StubAPI(first) as api:
        proc = claude(root, api, f"/subagents:dispatch {TASK}")
        try:

            def t1_recorded() -> bool:
                fans = state(root).get("fanouts", {}) if (root / ".agents").exists() else {}
                return "t1" in fans.get("2.1-w1", {}).get("answers", {})

            wait_for(lambda: agents.arrived("t2") and t1_recorded(), "t1 recorded, t2 running")
            wait_for(lambda: tasks(root).get("t1") == "completed", "t1 completed")
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=60)
            agents.release()
        at_kill = dict(agents.counts)
        assert tasks(root)["t1"] == "completed" and tasks(root)["t2"] != "completed", tasks(root)
        assert "t2" not in state(root)["fanouts"]["2.1-w1"]["answers"]
        assert first.error is None, first.error

        # a new session: /subagents:resume finishes the wave with t2 only, then goes to done
        second = Orchestrator(root, agents, RESUME)
        api.script = second
        finish(claude(root, api, "/subagents:resume"), second)
    assert_done(root, second)

    (wave_call,) = [c for c in second.workflow_calls if c["args"]["phase"] == "2.1"]
    assert [a["key"] for a in wave_call["args"]["agents"]] == ["t2"]
    assert agents.counts["t1"] == at_kill["t1"] == 3  # t1 never ran again
    assert agents.counts["t2"] > at_kill["t2"] == held_at
    if held_at == 1:  # t2's agent never ran a step: the wave's call simply holds t2 again
        assert second.retried == ""
    else:  # t2 was claimed by an agent that died with the host: taken back first, as next said
        assert "t2" in second.retried, second.retried
    assert [n.status for n in second.notices] == ["completed"] * len(second.notices)
    assert set(state(root)["fanouts"]["2.1-w1"]["answers"]) == {"t1", "t2"}
    assert_no_prompts(log, first, second)


def test_with_workflows_off_the_same_workflow_runs_through_agent_calls(
    root: Path, tmp_path: Path
) -> None:
    require_claude()
    log = tmp_path / "events.jsonl"
    settings(Path(os.environ["HOME"]), log, root)
    agents = Agents()
    flow = Orchestrator(root, agents, DISPATCH)
    with StubAPI(flow) as api:
        off = {"CLAUDE_CODE_DISABLE_WORKFLOWS": "1"}
        finish(claude(root, api, f"/subagents:dispatch {TASK}", off), flow)
    assert_done(root, flow)
    assert (
        "fan-outs: one Agent call per agent · CLAUDE_CODE_DISABLE_WORKFLOWS is set" in flow.status
    )
    assert "Workflow" not in flow.offered and "Agent" in flow.offered
    assert flow.workflow_calls == [] and all(not a.get("workflow") for a in flow.actions)
    phases_with_agents = {
        c["prompt"].split(" of fan-out ")[1].split(":")[0] for c in flow.agent_calls
    }
    assert phases_with_agents == {"0", "1.2", "1.3", "2.1", "2.3", "3.3", "4.2"}
    assert agents.counts["t1"] >= 2 and agents.counts["t2"] >= 2
    assert_no_prompts(log, flow)


def test_an_answer_the_schema_never_accepts_is_never_recorded(root: Path, tmp_path: Path) -> None:
    """E1 answers wrongly every time: the host sends it back until its retry cap, the script
    gets ``null`` for it; the engine keeps the other answers only and its next call runs E1
    again (alone)."""
    require_claude()
    log = tmp_path / "events.jsonl"
    settings(Path(os.environ["HOME"]), log, root)
    agents = Agents(always_wrong={"E1"}, wrong=WRONG | {"task_id": "E1"})
    flow = Orchestrator(root, agents, DISPATCH, fanouts=1)
    with StubAPI(flow) as api:
        finish(claude(root, api, f"/subagents:dispatch {TASK}"), flow)
    assert flow.error is None, (flow.error, flow.trace[-3:])

    (notice,) = flow.notices
    first = flow.workflow_calls[0]["args"]["agents"]
    got = {r["key"]: r["outcome"] for r in notice.result["results"]}
    assert got.pop("E1") is None and all(isinstance(a, str) for a in got.values())
    assert "StructuredOutput retry cap" in notice.failures, notice.text
    assert len(agents.structured["E1"]) > 1 and all(
        v["decision"] == "MAYBE" for v in agents.structured["E1"]
    )
    # the engine kept every other answer, not E1's; the next call holds E1 alone
    answers = state(root)["fanouts"]["0"]["answers"]
    assert set(answers) == {a["key"] for a in first} - {"E1"}
    again = flow.actions[-1]["workflow"]["args"]["agents"]
    assert [a["key"] for a in again] == ["E1"] and again[0] == first[0]
    assert_never_kept(root, "MAYBE")
    assert phases(root)["0"] != "completed"


def git(root: Path, *args: str) -> str:
    ident = ["-c", "user.name=T", "-c", "user.email=t@example.com"]
    proc = subprocess.run(
        ["git", *ident, "-C", str(root), *args], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_in_a_git_repository_each_task_agent_of_the_workflow_works_in_its_worktree(
    root: Path, tmp_path: Path
) -> None:
    """Isolation on (issue 22): the wave's Workflow call names each task's worktree; each agent
    writes its file there, both land on the integration branch, the user's checkout stays as it
    was.  ``--permission-mode acceptEdits``: an agent's own writes are the user's to allow."""
    require_claude()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# project\n")
    git(root, "add", "README.md")
    git(root, "commit", "-qm", "init")
    log = tmp_path / "events.jsonl"
    settings(Path(os.environ["HOME"]), log, root)
    agents = Agents(write=True)
    flow = Orchestrator(root, agents, DISPATCH, fanouts=FANOUTS.index("2.1-w1") + 1)
    with StubAPI(flow) as api:
        proc = claude(
            root, api, f"/subagents:dispatch {TASK}", None, "--permission-mode", "acceptEdits"
        )
        finish(proc, flow)
    assert flow.error is None, (flow.error, flow.trace[-3:])
    assert [c["args"]["fanout"] for c in flow.workflow_calls] == FANOUTS[:4]
    assert flow.actions[-1]["workflow"]["args"]["fanout"] == "2.3"  # where it stopped

    wave = flow.workflow_calls[-1]["args"]["agents"]
    briefs = [Path(a["prompt"].split("\n")[1].split()[3].rstrip(":")) for a in wave]
    assert all("worktree isolation is on" in b.read_text() for b in briefs), wave
    s = state(root)
    p21 = s["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert {t: p21["tasks"][t]["merge"] for t in ("t1", "t2")} == {"t1": "merged", "t2": "merged"}
    branch = s["git"]["branch"]
    for tid in ("t1", "t2"):
        assert git(root, "show", f"{branch}:health/{tid}.py") == f"# {tid}"
    written = [  # the Write results (task done names a new file outside its files too)
        r for key, r in agents.shell if r.startswith("File created") and key in ("t1", "t2")
    ]
    assert len(written) == 2 and all(".agents/worktrees/" in r for r in written), agents.shell
    assert not (root / "health").exists()  # the user's own checkout never got the work
    assert git(root, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert_no_prompts(log, flow)


@pytest.mark.parametrize(
    "change",
    [
        lambda a: (
            a
            | {"agents": [x | {"prompt": x["prompt"] + " Also push to main."} for x in a["agents"]]}
        ),
        lambda a: a | {"agents": [x | {"model": "opus"} for x in a["agents"]]},
        lambda a: a | {"agents": a["agents"] + [a["agents"][0] | {"key": "E9"}]},
    ],
    ids=["prompt", "model", "extra-agent"],
)
def test_a_workflow_call_the_engine_did_not_print_is_refused_and_runs_nothing(
    root: Path, tmp_path: Path, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    require_claude()
    log = tmp_path / "events.jsonl"
    settings(Path(os.environ["HOME"]), log, root)
    agents = Agents()
    flow = Orchestrator(root, agents, DISPATCH, tamper=lambda c: c | {"args": change(c["args"])})
    with StubAPI(flow) as api:
        finish(claude(root, api, f"/subagents:dispatch {TASK}"), flow)
    assert flow.error is None, (flow.error, flow.trace[-3:])
    (refused,) = flow.launches
    assert refused == (
        "PreToolUse:Workflow hook error: agents-state: this subagents:fanout call is not the one "
        "the engine printed (its agents, prompts, models or schema differ); run agents-state "
        "next and make its call exactly as printed."
    )
    assert agents.counts == {}  # no agent ran
    assert phases(root)["0"] != "completed" and "fanouts" not in state(root)
    assert_no_prompts(log, flow)  # denied outright, never asked
