"""Wall time of ``hook pre-tool-use`` through the plugin's launcher, against ``python -c pass``.

The engine is installed as the plugin installs it (``hooks/session-start.sh`` builds a venv
under ``CLAUDE_PLUGIN_DATA``), and hooks run as ``hooks/hooks.json`` runs them: through
``bin/agents-state``.  The baseline is the same venv's ``python -c pass``, run in pairs with each
case (alternating, so the ratio holds on a noisy machine).  Issue 18's target: within 2x.

Cases, with an active workflow (phase 0, a fresh ``state.json``):
  read      a sub-agent's Read, judged and allowed (the common call of a workflow)
  denied    a sub-agent's Write beyond its profile: judged and denied
  main      a call of the main conversation (not judged)
and ``read (engine)``: the Read case calling the installed engine directly, without the launcher.

    .venv/bin/python benchmarks/bench_hook.py [--runs 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO, plugin_engine, time_ms

TARGET = 2.0


def _payload(cwd: str, tool: str, tool_input: dict[str, str], agent: bool) -> bytes:
    data: dict[str, object] = {
        "session_id": "s",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "t",
    }
    if agent:
        data |= {"agent_id": "a1", "agent_type": "subagents:explore"}
    return json.dumps(data).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("installing the engine as the plugin does (hooks/session-start.sh) ...")
        engine, python, env = plugin_engine(Path(tmp))
        project = Path(tmp) / "project"
        (project / ".agents").mkdir(parents=True)
        state = {"version": 2, "task": "Add auth", "status": "in_progress", "currentPhase": "0"}
        (project / ".agents" / "state.json").write_text(json.dumps(state))
        cwd = str(project)
        launcher = [str(REPO / "bin" / "agents-state"), "hook", "pre-tool-use"]
        cases = {
            "read": (launcher, _payload(cwd, "Read", {"file_path": f"{cwd}/src/a.ts"}, True)),
            "denied": (launcher, _payload(cwd, "Write", {"file_path": "a.ts"}, True)),
            "main": (launcher, _payload(cwd, "Read", {"file_path": "a.ts"}, False)),
            "read (engine)": (
                [str(engine), "hook", "pre-tool-use"],
                _payload(cwd, "Read", {"file_path": f"{cwd}/src/a.ts"}, True),
            ),
        }
        base_cmd = [str(python), "-c", "pass"]
        version = subprocess.run(
            [str(python), "-c", "import sys; print(sys.version.split()[0])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        print(f"python {version}, {args.runs} paired runs per case, ratio of medians")
        for name, (cmd, stdin) in cases.items():
            for _ in range(3):  # warm the file cache
                time_ms(base_cmd, b"", cwd, env)
                time_ms(cmd, stdin, cwd, env)
            base, hooked = [], []
            for _ in range(args.runs):
                base.append(time_ms(base_cmd, b"", cwd, env))
                hooked.append(time_ms(cmd, stdin, cwd, env))
            ratio = statistics.median(hooked) / statistics.median(base)
            print(
                f"  {name:<14} median {statistics.median(hooked):6.1f} ms  "
                f"min {min(hooked):6.1f}  max {max(hooked):6.1f}   "
                f"python -c pass {statistics.median(base):5.1f} ms   ratio {ratio:4.2f}x"
                + (f" (target {TARGET:.0f}x)" if name != "read (engine)" else "")
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
