"""The one smoke run of the installed console script as real processes (issue 18): everything
else drives the same entry point in process.  It proves the script, its shebang and the package
install, stdin and stdout of a real pipe, and exit codes seen by a shell."""

from __future__ import annotations

import json
import os
from pathlib import Path

from clitools import run_proc


def test_installed_script_walks_a_phase_and_refuses_cleanly(root: Path) -> None:
    version = run_proc(root, "--version")
    assert version.returncode == 0 and version.stdout.startswith("agents-state, version ")
    started = run_proc(root, "dispatch", "Add a health endpoint")
    assert started.returncode == 0 and started.stdout.startswith("workflow started: ")
    action = json.loads(run_proc(root, "next", "--json").stdout)
    assert (action["kind"], action["phase"]) == ("dispatch_agents", "0")
    done = run_proc(root, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n")
    assert done.returncode == 0, done.stderr
    assert (root / ".agents/phases/0-explore.md").read_text() == "# notes\n"
    refused = run_proc(root, "phase", "start", "2.1")
    assert (refused.returncode, refused.stdout) == (4, "")
    assert refused.stderr == (
        "agents-state: error: phase 2.1 is pending: cannot start (the current phase is 1.1)\n"
    )
    status = json.loads(run_proc(root, "status", "--json").stdout)["workflow"]
    assert (status["revision"], status["currentPhase"]) == (2, "1.1")
    usage = run_proc(root, "phase", "frobnicate")
    assert usage.returncode == 2 and "Traceback" not in usage.stderr


def test_the_program_tunes_the_collector_and_main_alone_does_not() -> None:
    """The console script runs ``program``: the collector runs every 100,000 allocations, and a
    command that returns leaves at once after flushing its
    output (start-up, issue 26), unless an ``atexit`` function (coverage's) needs the normal
    exit; ``main``, which the tests call in process, leaves the collector as it found it."""
    import gc
    import subprocess
    import sys
    from importlib.metadata import entry_points

    from clitools import invoke

    from agents_state import __version__

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "agents-state"]
    assert script.value == "agents_state.__main__:program"
    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    assert invoke(["--version"]).returncode == 0
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before

    def probe(setup: str) -> subprocess.CompletedProcess[str]:
        code = (
            "import atexit, gc, sys; import agents_state.__main__ as m; real = m.main\n"
            "def main(): print(gc.get_threshold()[0]); return real(['--version'])\n"
            f"m.main = main; {setup}\n"
            "code = m.program(); print('returned', code)\n"
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS")}
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )

    left = probe("")  # nothing needs the teardown: out at once, the output flushed
    assert (left.returncode, left.stderr) == (0, "")
    assert left.stdout.splitlines() == ["100000", f"agents-state, version {__version__}"]
    kept = probe("atexit.register(lambda: print('teardown'))")
    assert (kept.returncode, kept.stderr) == (0, "")
    assert kept.stdout.splitlines()[-2:] == ["returned 0", "teardown"]
