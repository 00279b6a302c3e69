"""Helpers to run the command line: in process through Click's ``CliRunner`` (the default), or
as a real process of the installed console script (races, kills, faults, the smoke run)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

DATA = Path(__file__).parent / "data"
CLI = str(Path(sys.executable).parent / "agents-state")


def invoke(
    argv: list[str],
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``agents-state ARGV`` in this process, through the same entry point as the script.

    ``agents_state.__main__.main`` is called inside ``CliRunner.isolation`` (stdin, stdout,
    stderr and the environment swapped for the call), so the hook fast path, the error handler
    and the exit codes are the ones a user gets; only the interpreter start-up is saved.
    """
    from agents_state.__main__ import main

    runner = CliRunner()
    # --store sets AGENTS_STATE_STORE for the rest of its process: restore it after the call
    scoped: dict[str, str | None] = {
        "AGENTS_STATE_STORE": os.environ.get("AGENTS_STATE_STORE"),
        **(env or {}),
    }
    with runner.isolation(input=stdin, env=scoped) as (out, err, _mixed):
        old_argv, old_cwd = sys.argv, os.getcwd()
        sys.argv = ["agents-state", *argv]
        if cwd is not None:
            os.chdir(cwd)
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        finally:
            sys.argv = old_argv
            os.chdir(old_cwd)
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    return subprocess.CompletedProcess(
        ["agents-state", *argv],
        code,
        stdout.decode(errors="replace"),
        stderr.decode(errors="replace"),
    )


def run_cli(
    root: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``agents-state --root ROOT ARGS`` in process (see ``invoke``)."""
    return invoke(["--root", str(root), *args], stdin=stdin, env=env)


def run_proc(
    root: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script as a real process."""
    return subprocess.run(
        [CLI, "--root", str(root), *args],
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def race(
    argvs: list[list[str]],
    *,
    root: Path | None = None,
    cwds: list[Path] | None = None,
    env: dict[str, str] | None = None,
    prefix: tuple[str, ...] = (),
) -> list[subprocess.CompletedProcess[str]]:
    """Real processes of ``agents-state ARGV`` for every argv, all started before any is waited
    for: the one race helper (issue 35).  ``root`` adds ``--root ROOT``; the i-th runs in
    ``cwds[i % len(cwds)]``; ``prefix`` goes before the command (``strace``, ``ip netns exec``).
    The default environment is this one with a lock timeout of 600 s: a race checks who wins,
    never how fast, and on a loaded machine the last writer waits long.  Each result's ``args``
    is its argv as given; the 900 s bound on each only turns a hang into a failure."""
    head = [*prefix, CLI, *(["--root", str(root)] if root is not None else [])]
    procs = [
        subprocess.Popen(
            [*head, *a],
            cwd=cwds[i % len(cwds)] if cwds else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env if env is not None else {**os.environ, "AGENTS_STATE_LOCK_TIMEOUT": "600"},
        )
        for i, a in enumerate(argvs)
    ]
    out = []
    for p, a in zip(procs, argvs, strict=True):
        stdout, stderr = p.communicate(timeout=900)
        out.append(subprocess.CompletedProcess(a, p.returncode, stdout, stderr))
    return out


def cli_json(root: Path, *args: str) -> Any:
    proc = run_cli(root, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


PASSING_RUN = '{"commands": [{"name": "test", "command": "true", "exitCode": 0}]}'


def artifact_body(write: str) -> str:
    """A minimal valid artifact for the phase file ``write``."""
    if write.endswith("3.1-test-results.json"):
        return PASSING_RUN
    return '{"issues": []}' if write.endswith(".json") else "x"


def walk_to(root: Path, phase: str, task: str = "test") -> None:
    """Start a workflow and complete every phase before ``phase`` with minimal artifacts."""
    assert run_cli(root, "dispatch", task).returncode == 0
    for _ in range(30):
        action = cli_json(root, "next")
        if action["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        if action["phase"] == phase:
            return
        body = artifact_body(action["write"])
        proc = run_cli(root, "phase", "complete", action["phase"], "--artifact", "-", stdin=body)
        assert proc.returncode == 0, proc.stderr
    raise AssertionError(f"phase {phase} not reached")


def wave_of(root: Path, n: int, task: str = "test") -> list[str]:
    """A workflow at phase 2.1 whose first wave holds ``n`` independent tasks, then 'final'."""
    walk_to(root, "2.1", task)
    ids = [f"t{i}" for i in range(n)]
    tasks = {
        "tasks": [{"id": t, "dependencies": []} for t in ids]
        + [{"id": "final", "dependencies": ids}]
    }
    (root / "tasks.json").write_text(json.dumps(tasks))
    proc = run_cli(root, "tasks", "load", str(root / "tasks.json"), "--wave-size", str(n))
    assert proc.returncode == 0, proc.stderr
    return ids
