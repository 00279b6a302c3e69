"""Wall time of ``hook subagent-stop`` booking token usage (issue 24), against ``python -c pass``.

The engine is installed as the plugin installs it (``--engine here``: this checkout's venv), and
the hook runs through ``bin/agents-state``, with an active workflow.  The transcripts are built
from the one the real CLI wrote (tests/data/usage/agent.jsonl): its responses repeated with new
message ids, between lines that carry no usage (tool results, attachments), as long sessions
are.  Cases, each a whole SubagentStop hook process:

  no usage     the same hook with no transcript named (what it cost before issue 24)
  start        the SubagentStart hook, which writes the agent's entry with its phase
  small        an agent's first stop on a 110 KB transcript (read whole)
  50 MB, new   an agent's stop after one more response was appended to a 50 MB transcript whose
               offset the book remembers (the incremental read: what every later stop costs)
  50 MB, first the first stop on a 50 MB transcript (read whole, once per agent)

    .venv/bin/python benchmarks/bench_usage.py [--runs 20] [--engine here]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import CLI, REPO, compile_package, plugin_engine, time_ms

FIXTURE = REPO / "tests" / "data" / "usage" / "agent.jsonl"
SIZE = 50 * 1024 * 1024


def big_transcript(path: Path, size: int) -> int:
    """Write ``size`` bytes of transcript; returns how many responses it holds."""
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    filler = [ln for ln in lines if b'"usage"' not in ln]
    answers = [ln for ln in lines if b'"usage"' in ln]
    n = written = 0
    with path.open("wb") as f:
        while written < size:
            for ln in filler:
                f.write(ln)
                written += len(ln)
            for ln in answers:
                out = ln.replace(b'"id":"msg_stub_', b'"id":"msg_%d_' % n)
                f.write(out)
                written += len(out)
            n += 1
    return n * len({ln.split(b'"id":"')[1][:12] for ln in answers})


def append_response(path: Path, k: int) -> None:
    answer = next(ln for ln in FIXTURE.read_bytes().splitlines(keepends=True) if b'"usage"' in ln)
    with path.open("ab") as f:
        f.write(answer.replace(b'"id":"msg_stub_', b'"id":"msg_more_%d_' % k))


def payload(cwd: str, agent: str, transcript: Path | None) -> bytes:
    data = {
        "session_id": "s",
        "transcript_path": "/nowhere",
        "cwd": cwd,
        "hook_event_name": "SubagentStop",
        "agent_id": agent,
        "agent_type": "subagents:task-agent",
        "agent_transcript_path": str(transcript),
        "last_assistant_message": "done",
        "stop_hook_active": False,
    }
    if transcript is None:
        del data["agent_transcript_path"]
    return json.dumps(data).encode()


def start_payload(cwd: str, agent: str) -> bytes:
    data = {
        "session_id": "s",
        "transcript_path": "/nowhere",
        "cwd": cwd,
        "hook_event_name": "SubagentStart",
        "agent_id": agent,
        "agent_type": "subagents:task-agent",
    }
    return json.dumps(data).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--engine", choices=["plugin", "here"], default="plugin")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.engine == "plugin":
            engine, python, env = plugin_engine(Path(tmp))
        else:
            compile_package()
            engine, python, env = Path(CLI), Path(sys.executable), None
        project = Path(tmp) / "project"
        project.mkdir()
        subprocess.run(
            [str(engine), "--root", str(project), "dispatch", "Add auth"],
            capture_output=True,
            check=True,
            env=env,
        )
        cwd = str(project)
        hook = [str(REPO / "bin" / "agents-state"), "hook", "subagent-stop"]
        start = [str(REPO / "bin" / "agents-state"), "hook", "subagent-start"]
        base_cmd = [str(python), "-c", "pass"]
        big = Path(tmp) / "big.jsonl"
        responses = big_transcript(big, SIZE)
        print(
            f"{args.engine} engine, {args.runs} paired runs, transcript "
            f"{big.stat().st_size / 1e6:.1f} MB with {responses} responses"
        )
        firsts = []
        for i in range(3):  # the first stop: reads the whole file (a path of its own each)
            alias = Path(tmp) / f"big-{i}.jsonl"
            os.link(big, alias)
            firsts.append(time_ms(hook, payload(cwd, f"first-{i}", alias), cwd, env))
        big = Path(tmp) / "big-0.jsonl"
        book = json.loads((project / ".agents" / "usage.json").read_text())
        assert book["transcripts"][str(big)]["offset"] == big.stat().st_size, "not booked"
        cases: dict[str, list[float]] = {
            "no usage": [],
            "start": [],
            "small": [],
            "50 MB, new": [],
        }
        base: list[float] = []
        for k in range(args.runs):
            small = Path(tmp) / f"small-{k}.jsonl"
            small.write_bytes(FIXTURE.read_bytes())
            base.append(time_ms(base_cmd, b"", cwd, env))
            cases["no usage"].append(time_ms(hook, payload(cwd, f"none-{k}", None), cwd, env))
            cases["start"].append(time_ms(start, start_payload(cwd, f"small-{k}"), cwd, env))
            cases["small"].append(time_ms(hook, payload(cwd, f"small-{k}", small), cwd, env))
            append_response(big, k)
            cases["50 MB, new"].append(time_ms(hook, payload(cwd, "first-0", big), cwd, env))
        book = json.loads((project / ".agents" / "usage.json").read_text())
        assert book["agents"]["first-0"]["messages"] == responses + args.runs, "a count was lost"
        assert book["agents"]["small-0"]["phaseBy"] == "start", "the start was not recorded"
        b = statistics.median(base)
        print(f"  python -c pass median {b:6.1f} ms")
        for name, xs in {**cases, "50 MB, first": firsts}.items():
            m = statistics.median(xs)
            print(
                f"  {name:<13} median {m:6.1f} ms  min {min(xs):6.1f}  max {max(xs):6.1f}  "
                f"ratio {m / b:4.2f}x"
            )
        inc, small_m = statistics.median(cases["50 MB, new"]), statistics.median(cases["small"])
        none = statistics.median(cases["no usage"])
        print(f"  incremental 50 MB stop / small first stop: {inc / small_m:4.2f}x")
        print(f"  incremental 50 MB stop / the hook without usage: {inc / none:4.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
