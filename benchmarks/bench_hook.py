"""Wall time of ``hook pre-tool-use`` through the plugin's launcher, against ``python -c pass``.

The engine is installed as the plugin installs it (``hooks/session-start.sh`` builds a venv
under ``CLAUDE_PLUGIN_DATA``), and hooks run as ``hooks/hooks.json`` runs them: through
``bin/agents-state``.  The baseline is the same venv's ``python -c pass``, run in pairs with each
case (alternating, so the ratio holds on a noisy machine).  Issue 18's target: within 2x.

Cases, with an active workflow (phase 0, a fresh ``state.json``):
  read      a sub-agent's Read, judged and allowed (the common call of a workflow)
  denied    a sub-agent's Write beyond its profile: judged and denied
  main      a call of the main conversation (not judged)
  main bash an ordinary Bash call of the main conversation (only the person's decisions are
            looked for, issue 32); ``main engine`` the same for ``agents-state next``, whose
            words are read as bash reads them
  task bash a task agent's Bash, rewritten to run in its room (issue 32's target: within 3x)
and ``read (engine)``: the Read case calling the installed engine directly, without the launcher;
``read, 1k tasks``: the Read case in a workflow at 1,000 tasks (a 330 KB state to parse);
with no workflow (issue 23): ``no wf, plugin`` (this plugin's agent, still judged: the launcher
reads the payload and starts Python), ``no wf, other`` (another agent: the launcher exits),
``no wf, bash`` (a plain Bash call: it exits) and ``no wf, quoted`` (a Bash call with a quote,
which could hide the engine's name: the hook reads it, issue 32).

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

from common import REPO, chained_tasks, plugin_engine, pre_tool_use, time_ms, workflow_at_tasks

TARGET = 2.0
TASK_BASH_TARGET = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine, python, env = plugin_engine(Path(tmp))
        project = Path(tmp) / "project"
        (project / ".agents").mkdir(parents=True)
        state = {"version": 2, "task": "Add auth", "status": "in_progress", "currentPhase": "0"}
        (project / ".agents" / "state.json").write_text(json.dumps(state))
        cwd = str(project)
        launcher = [str(REPO / "bin" / "agents-state"), "hook", "pre-tool-use"]
        cases = {
            "read": (launcher, pre_tool_use(cwd, "Read", {"file_path": f"{cwd}/src/a.ts"}, True)),
            "denied": (launcher, pre_tool_use(cwd, "Write", {"file_path": "a.ts"}, True)),
            "main": (launcher, pre_tool_use(cwd, "Read", {"file_path": "a.ts"}, False)),
            "read (engine)": (
                [str(engine), "hook", "pre-tool-use"],
                pre_tool_use(cwd, "Read", {"file_path": f"{cwd}/src/a.ts"}, True),
            ),
        }
        for name, line in (
            ("main bash", "git status --short"),
            ("main engine", "agents-state next"),
        ):
            cases[name] = (launcher, pre_tool_use(cwd, "Bash", {"command": line}, False))
        task_bash = json.loads(pre_tool_use(cwd, "Bash", {"command": "pytest -q"}, True))
        task_bash["agent_type"] = "subagents:task-agent"  # a writer: contained (issue 32)
        cases["task bash"] = (launcher, json.dumps(task_bash).encode())
        big = Path(tmp) / "big"
        big.mkdir()
        workflow_at_tasks(big, chained_tasks(1000), 10)
        cases["read, 1k tasks"] = (
            launcher,
            pre_tool_use(str(big), "Read", {"file_path": f"{big}/src/a.ts"}, True),
        )
        bare = Path(tmp) / "bare"  # no .agents/ anywhere: no workflow, no chain
        bare.mkdir()
        other = json.loads(pre_tool_use(str(bare), "Read", {"file_path": "a.ts"}, True))
        other["agent_type"] = "general-purpose"
        cases["no wf, plugin"] = (launcher, pre_tool_use(str(bare), "Read", {"file_path": "a"}))
        cases["no wf, other"] = (launcher, json.dumps(other).encode())
        cases["no wf, bash"] = (launcher, pre_tool_use(str(bare), "Bash", {"command": "ls"}, False))
        quoted = {"command": "grep -n 'a b' x"}  # a quote could hide the engine's name: judged
        cases["no wf, quoted"] = (launcher, pre_tool_use(str(bare), "Bash", quoted, False))
        base_cmd = [str(python), "-c", "pass"]
        version = subprocess.run(
            [str(python), "-c", "import sys; print(sys.version.split()[0])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        print(f"python {version}, {args.runs} paired runs per case, ratio of medians")
        for name, (cmd, stdin) in cases.items():
            where = str(bare) if name.startswith("no wf") else str(big) if "1k" in name else cwd
            for _ in range(3):  # warm the file cache
                time_ms(base_cmd, b"", where, env)
                time_ms(cmd, stdin, where, env)
            base, hooked = [], []
            for _ in range(args.runs):
                base.append(time_ms(base_cmd, b"", where, env))
                hooked.append(time_ms(cmd, stdin, where, env))
            ratio = statistics.median(hooked) / statistics.median(base)
            print(
                f"  {name:<14} median {statistics.median(hooked):6.1f} ms  "
                f"min {min(hooked):6.1f}  max {max(hooked):6.1f}   "
                f"python -c pass {statistics.median(base):5.1f} ms   ratio {ratio:4.2f}x"
                + (
                    f" (target {TASK_BASH_TARGET:.0f}x)"
                    if name == "task bash"
                    else f" (target {TARGET:.0f}x)"
                    if name != "read (engine)"
                    else ""
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
