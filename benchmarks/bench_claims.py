"""The design's claims measured through the real host (issue 34, item 5): context and speed-up.

Drives the real Claude Code CLI against the project's Messages API stub with
bench_orchestration.py's scripted model (a model following the plugin's texts), and prints:

- **context**, for the default two-task workflow: the main conversation's peak context and its
  requests' inputs summed, against a one-conversation baseline that does every agent's work
  itself, in sequence (design 000: "50%+ context reduction"; design 003 NFR-1: at least 20%).
  The baseline is built from the stub's request log, which holds every request of every agent:

  * every agent's transcript is the messages of its last request (its prompt, its tool calls
    and their results, its answer), without its system prompt and tool definitions (the one
    conversation already carries the host's);
  * agents run one after another, in the order they first reached the stub; a request of an
    agent carries the main conversation's last request before the agent started, every earlier
    agent's whole transcript and its own messages so far;
  * a main request carries its own input and the transcripts of every agent that finished
    before it; the main turns that only exist because the work runs elsewhere (a reply that
    makes a ``Workflow`` or ``Agent`` call, or waits for a notification) are left out.

  The peak is the largest request; the reduction is ``1 - main / baseline``.  Two runs:
  ``floor``, the stub's agents as the e2e tests have them (they read nothing), and ``working``,
  agents that do their briefs' work through the host's tools on a copy of this repository
  (claims_work.py).  From each run's log, the **sensitivity**: both reductions with every
  agent's transcript scaled to 2 k-100 k characters, and the size at which each reaches 50%.
- **speed-up**, for a wave of 4 independent tasks whose agents take 2 s per response (the stub
  delays every reply to a wave agent), on each fan-out path (``workflow``: one Workflow call,
  the host's gate on its agents at its default or ``--host-agents N``; ``agents``: the host
  without Workflow, four Agent calls in one message): the whole workflow run twice, once with
  the default ``stages.IMPLEMENT.tasks.maxParallelAgents`` (one wave of 4) and once with 1 (4
  waves of one task, one at a time); the wall time from the reply that launches the first wave
  to the main request that brings the last wave's results, the span of the wave agents' own
  requests (first arrival to last reply), and the most of them the stub held at once.

    flock /tmp/e2e.lock env -u PYTHONUNBUFFERED -u PYTHONDONTWRITEBYTECODE \\
        .venv/bin/python benchmarks/bench_claims.py [--only floor working workflow agents] \\
        [--host-agents N] [--json]

Needs the CLI (``AGENTS_STATE_CLAUDE`` or .ci/node); the six runs take ten minutes or so.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import bench_orchestration as bo
import claims_work as cw
import test_native_e2e as native
from stub_api import Block, StubAPI, request_text
from test_native_e2e import (
    TASK,
    Agents,
    Orchestrator,
    assert_no_prompts,
    claude,
    finish,
    settings,
)

DELAY = 2.0  # seconds per response of a wave agent
WAVE = "2.1"
FOUR = {
    "tasks": [
        {
            "id": f"t{n}",
            "title": f"health part {n}",
            "complexity": "easy",
            "dependencies": [],
            "files": [f"health/part{n}.py"],
        }
        for n in range(1, 5)
    ]
}


class Slow(Agents):
    """The fan-out agents; a wave agent's every reply comes ``delay`` seconds late."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__()
        self.delay = delay
        self.spans: list[tuple[float, float]] = []  # (arrival, reply) of each wave request

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        found = self.identify(body)
        if found is None or not found[0].startswith(WAVE):
            return super().__call__(body)
        start = time.monotonic()
        time.sleep(self.delay)
        blocks = super().__call__(body)
        with self.lock:
            self.spans.append((start, time.monotonic()))
        return blocks


class Timed(bo.Model):
    """bench_orchestration's model, with the arrival time of every main request; on the Agent
    path (the host without Workflow), test_native_e2e's orchestrator: one Agent call per agent,
    all of a fan-out's in one message."""

    def __init__(self, root: Path, agents: Agents, agent_path: bool = False) -> None:
        self.arrived: dict[int, float] = {}
        self.agent_path = agent_path
        super().__init__(root, agents)

    def orchestrate(self) -> Generator[list[Block], dict[str, Any], None]:
        if self.agent_path:
            yield from Orchestrator.orchestrate(self)
        else:
            yield from super().orchestrate()

    def __call__(self, body: dict[str, Any]) -> list[Block] | None:
        self.arrived[id(body)] = time.monotonic()
        return super().__call__(body)

    @property
    def times(self) -> list[float]:
        """The arrival time of each main request, in ``main_log``'s order."""
        return [self.arrived[id(body)] for body, _ in self.main_log]


def drive(
    work: Path,
    agents: Agents,
    config: dict[str, Any],
    env: dict[str, str] | None = None,
    real: bool = False,
) -> tuple[Timed, StubAPI]:
    """One whole workflow; ``real``: on a copy of this repository, the task agents' edits of
    it allowed by the user's settings (claims_work.py)."""
    root, home = work / "work", work / "home"
    root.mkdir(parents=True)
    home.mkdir()
    os.environ["HOME"] = str(home)
    if real:
        cw.project(root)
    log = work / "events.jsonl"
    settings(home, log, root)
    if real:
        cw.allow_edits(home, root)
    path = root / ".agents" / "config.json"
    merged = json.loads(path.read_text())
    for stage, extra in config.items():
        merged["stages"][stage] = {**merged["stages"].get(stage, {}), **extra}
    path.write_text(json.dumps(merged))
    agent_path = bool(env and env.get("CLAUDE_CODE_DISABLE_WORKFLOWS"))
    model = Timed(root, agents, agent_path)
    with StubAPI(model) as api:
        finish(claude(root, api, f"/subagents:dispatch {TASK}", env), model)
    assert model.error is None and model.done, (model.error, model.trace[-3:])
    status = native.state(root)["status"]
    got = native.phases(root)
    assert status == "completed" and got.pop("3.2") == "skipped", (status, got)
    assert set(got.values()) == {"completed"}, got
    assert set(native.tasks(root).values()) == {"completed"}, native.tasks(root)
    assert_no_prompts(log, model)
    return model, api


def messages_chars(body: dict[str, Any]) -> int:
    return len(request_text({"messages": body.get("messages") or []}))


def delegating(blocks: list[Block]) -> bool:
    """A main reply that only exists because the work runs elsewhere: a fan-out's call or a
    wait for its notification."""
    calls = {b.get("name") for b in blocks if b.get("type") == "tool_use"}
    waits = any(
        "Waiting" in b.get("text", "") or "Still waiting" in b.get("text", "")
        for b in blocks
        if b.get("type") == "text"
    )
    return bool(calls & {"Workflow", "Agent"}) or (not calls and waits)


def brief_chars(root: Path, key: tuple[str, str]) -> int:
    """The brief the engine wrote for an agent (``.agents/briefs/<fan-out>/<key>.md``)."""
    path = root / ".agents" / "briefs" / key[0] / f"{key[1]}.md"
    return len(path.read_text()) if path.is_file() else 0


def context(
    model: Timed, api: StubAPI, briefs: bool = False, per_agent: float | None = None
) -> dict[str, Any]:
    """The main conversation against the one-conversation baseline (see the module's text);
    with ``briefs``, every agent's transcript also holds its brief, as a real agent reads it;
    with ``per_agent``, every agent's transcript is scaled to that many characters (each of its
    requests in proportion), the main conversation as it was."""
    replies = {id(body): blocks for body, blocks in model.main_log}
    log: list[tuple[str, Any, dict[str, Any]]] = []  # ("main" | "agent", key, body)
    for body in api.requests:
        if id(body) in replies:
            log.append(("main", None, body))
        elif (found := model.agents.identify(body)) is not None:
            log.append(("agent", found, body))
    order: list[Any] = []  # agents by first request
    last: dict[Any, int] = {}  # agent -> index of its last request
    final: dict[Any, int] = {}  # agent -> its whole transcript
    for n, (kind, key, body) in enumerate(log):
        if kind == "agent":
            if key not in last:
                order.append(key)
            last[key] = n
            final[key] = max(final.get(key, 0), messages_chars(body))
    if briefs:
        final = {key: n + brief_chars(model.root, key) for key, n in final.items()}
    scale = {key: 1.0 if per_agent is None else per_agent / n for key, n in final.items()}
    final = {key: round(n * scale[key]) for key, n in final.items()}
    rank = {key: i for i, key in enumerate(order)}
    sizes: list[int] = []
    main_before = 0  # the main conversation's last request so far
    for n, (kind, key, body) in enumerate(log):
        if kind == "main":
            main_before = bo.input_chars(body)
            if not delegating(replies[id(body)]):
                done = sum(final[k] for k in order if last[k] < n)
                sizes.append(main_before + done)
        else:
            earlier = sum(final[k] for k in order[: rank[key]])
            sizes.append(main_before + earlier + round(messages_chars(body) * scale[key]))
    main = [bo.input_chars(body) for body, _ in model.main_log]
    return {
        "main_requests": len(main),
        "main_peak_chars": max(main),
        "main_input_chars": sum(main),
        "agents": len(order),
        "agent_requests": sum(1 for kind, _, _ in log if kind == "agent"),
        "agent_transcripts_chars": sum(final.values()),
        "transcripts_by_fanout": by_fanout(final),
        "baseline_requests": len(sizes),
        "baseline_peak_chars": max(sizes),
        "baseline_input_chars": sum(sizes),
        "peak_reduction": round(1 - max(main) / max(sizes), 3),
        "input_reduction": round(1 - sum(main) / sum(sizes), 3),
    }


def by_fanout(final: dict[Any, int]) -> dict[str, str]:
    """Per fan-out: its agents and their transcripts' characters (smallest-largest)."""
    groups: dict[str, list[int]] = {}
    for (fan, _key), n in final.items():
        groups.setdefault(fan, []).append(n)
    return {f: f"{len(ns)} x {min(ns):,}-{max(ns):,}" for f, ns in groups.items()}


SIZES = (2_000, 5_000, 10_000, 20_000, 50_000, 100_000)


def sensitivity(model: Timed, api: StubAPI) -> dict[str, Any]:
    """The reductions as a function of the characters of every agent's transcript (the run's
    main conversation and requests as they were), and the size at which each reaches 50%."""

    def crossing(figure: str) -> int:
        low, high = 1.0, 10_000_000.0
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (
                (low, mid) if context(model, api, per_agent=mid)[figure] >= 0.5 else (mid, high)
            )
        return round(high)

    rows = {}
    for size in SIZES:
        got = context(model, api, per_agent=size)
        rows[size] = (got["peak_reduction"], got["input_reduction"])
    return {
        "per_agent_chars": rows,
        "peak_50_at": crossing("peak_reduction"),
        "input_50_at": crossing("input_reduction"),
    }


def most_at_once(spans: list[tuple[float, float]]) -> int:
    """The most wave requests the stub held at one time (each delayed ``DELAY`` seconds)."""
    edges = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def wave_launches(model: Timed) -> list[int]:
    """The main replies that launch a wave: its Workflow call, or its Agent calls."""
    out = []
    for n, (_, blocks) in enumerate(model.main_log):
        for b in blocks:
            workflow = b.get("name") == "Workflow"
            if workflow and str(b["input"]["args"]["fanout"]).startswith(WAVE):
                out.append(n)
                break
            if b.get("name") == "Agent" and f"of fan-out {WAVE}:" in b["input"]["prompt"]:
                out.append(n)
                break
    return out


def wave_time(model: Timed, agents: Slow) -> dict[str, Any]:
    """From the reply that launches the first wave to the request that brings the last wave's
    results (its notification, or its Agent calls' results); and the span of the wave agents'
    own requests."""
    launches = wave_launches(model)
    first, final = launches[0], launches[-1]
    if model.agent_path:
        back = final + 1  # foreground Agent calls: their results are the next request
    else:
        back = next(
            n
            for n in range(final + 1, len(model.main_log))
            if "<task-notification>"
            in request_text({"messages": model.main_log[n][0]["messages"][-1:]})
        )
    start = model.times[first]  # the scripted reply leaves at once
    return {
        "wave_launches": len(launches),
        "wave_requests": len(agents.spans),
        "wave_wall_s": round(model.times[back] - start, 1),
        "most_at_once": most_at_once(agents.spans),
        "wave_agents_span_s": round(
            max(e for _, e in agents.spans) - min(s for s, _ in agents.spans), 1
        ),
    }


RUNS = ("floor", "working", "workflow", "agents")


def speedup(env: dict[str, str]) -> dict[str, Any]:
    """The wave of 4, parallel and one at a time, on the path ``env`` gives."""
    out: dict[str, Any] = {}
    saved, native.TASKS = native.TASKS, FOUR  # type: ignore[attr-defined]
    try:
        for name, cap in (("parallel", 10), ("one_at_a_time", 1)):
            with tempfile.TemporaryDirectory(prefix="bench-claims-") as tmp:
                agents = Slow(DELAY)
                config = {"IMPLEMENT": {"tasks": {"maxParallelAgents": cap}}}
                model, _api = drive(Path(tmp), agents, config, env)
                out[name] = wave_time(model, agents)
            print(name, json.dumps(out[name]), flush=True)
    finally:
        native.TASKS = saved  # type: ignore[attr-defined]
    par, one = out["parallel"], out["one_at_a_time"]
    out["speedup"] = {
        "wall": round(one["wave_wall_s"] / par["wave_wall_s"], 2),
        "agents_span": round(one["wave_agents_span_s"] / par["wave_agents_span_s"], 2),
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only",
        nargs="+",
        choices=RUNS,
        default=list(RUNS),
        help="floor: context with the stub's idle agents; working: context with working agents "
        "on a copy of this repository (claims_work.py); workflow / agents: the speed-up on "
        "each fan-out path",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--host-agents",
        type=int,
        help="CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS for the host (its own default if not)",
    )
    args = parser.parse_args()
    threading.excepthook = lambda a: None  # a held stub thread at exit is not a failure
    out: dict[str, Any] = {}
    if "floor" in args.only:
        with tempfile.TemporaryDirectory(prefix="bench-claims-") as tmp:
            model, api = drive(Path(tmp), Slow(), {})
            out["floor"] = context(model, api)
            out["floor_with_briefs"] = context(model, api, briefs=True)
            out["floor_sensitivity"] = sensitivity(model, api)
        print("floor", json.dumps(out["floor"]), flush=True)
    if "working" in args.only:
        saved, native.TASKS = native.TASKS, cw.TASKS  # type: ignore[attr-defined]
        try:
            with tempfile.TemporaryDirectory(prefix="bench-claims-") as tmp:
                agents = cw.Working(Path(tmp) / "work")
                model, api = drive(Path(tmp), agents, {}, real=True)
                edited = [r for _, r in agents.shell if "has been updated" in r]
                assert len(edited) == 2, agents.shell  # each task agent's Edit went through
                out["working"] = context(model, api)
                out["working_sensitivity"] = sensitivity(model, api)
        finally:
            native.TASKS = saved  # type: ignore[attr-defined]
        print("working", json.dumps(out["working"]), flush=True)
    if "workflow" in args.only:
        env = {}
        if args.host_agents:
            env["CLAUDE_CODE_WORKFLOW_MAX_CONCURRENT_AGENTS"] = str(args.host_agents)
        out["workflow_path"] = speedup(env)
    if "agents" in args.only:
        out["agent_path"] = speedup({"CLAUDE_CODE_DISABLE_WORKFLOWS": "1"})
    print(json.dumps(out) if args.json else json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
