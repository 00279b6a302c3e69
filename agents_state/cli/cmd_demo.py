"""demo: drive a whole workflow in a temporary folder by following ``next`` literally.

Every step is a real ``agents-state`` command run in this process, printed exactly as it ran
(``$ agents-state ...``) before its output.  The demo's test command fails until the analysis
phase "fixes" it, so the TEST gate (3.1 fails -> 3.2 -> 3.1 passes) is part of the walk.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path
from typing import Any

import click

from agents_state.workflow import TEST_ANALYSIS

__all__ = ["demo"]

_TASKS = b"""{"tasks": [
  {"id": "task-1", "title": "Add the OAuth client", "complexity": "medium", "dependencies": []},
  {"id": "task-2", "title": "Add the callback route", "complexity": "easy", "dependencies": []},
  {"id": "task-3", "title": "Wire login to the session", "complexity": "hard",
   "dependencies": ["task-1", "task-2"]}
]}"""
_CONFIG = b"""{"stages": {"TEST": {"commands": {
  "test": "test -f fixed && echo '3 passed' || { echo 'FAILED test_login'; exit 1; }"}}}}"""


def _sh(root: Path, *args: str) -> int:
    """Run one command in process, printed exactly as it ran."""
    from agents_state.cli import cli
    from agents_state.cli.runner import run

    click.echo(f"\n$ agents-state {shlex.join(args)}")
    code = run(cli, ["--root", str(root), *args])
    if code:
        raise click.ClickException(
            f"demo step failed with exit {code}: agents-state {shlex.join(args)}"
        )
    return code


def _step(root: Path, action: dict[str, Any]) -> None:
    kind, cmd = action["kind"], action["command"] or ""
    if kind == "compact":
        _sh(root, "compact")
    elif cmd.startswith("agents-state tasks load"):
        (root / ".agents/phases/2.1-tasks.json").write_bytes(_TASKS)
        _sh(root, *shlex.split(cmd)[1:])
    elif kind == "dispatch_agents" and action.get("tasks"):
        for t in action["tasks"]:
            _sh(root, "task", "start", t["id"], "--agent", f"demo-{t['id']}")
            _sh(
                root,
                "task",
                "done",
                t["id"],
                "--agent",
                f"demo-{t['id']}",
                "--summary",
                f"did: {t['title']}",
            )
    else:
        write = action.get("write")
        if write and not cmd.startswith("agents-state phase run"):
            body = (
                b'{"issues": []}'
                if write.endswith(".json")
                else f"# {action['phaseName']}\n\n(demo output)\n".encode()
            )
            (root / write).write_bytes(body)
        if action["phase"] == TEST_ANALYSIS:
            (root / "fixed").write_text("the fix\n")  # what the analysis phase changes
        _sh(root, *shlex.split(cmd)[1:])


@click.command()
@click.option("--keep", is_flag=True, help="Keep the temporary folder and print its path.")
@click.argument("task", default="Add OAuth login with Google and GitHub")
def demo(keep: bool, task: str) -> int:
    """Run a demo workflow end to end in a temporary folder, printing each command it runs.

    \b
    Example:
      agents-state demo
    """
    from agents_state.app import App

    root = Path(tempfile.mkdtemp(prefix="agents-state-demo-"))
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_bytes(_CONFIG)
    click.echo(f"(in {root}; .agents/config.json sets the test command)")
    cwd = os.getcwd()
    os.chdir(root)  # the actions name files relative to the project root
    try:
        _sh(root, "dispatch", task)
        for _ in range(100):
            app = App(root)
            action = app.next_action(app.state())
            if action["kind"] in ("done", "ask_user", "blocked"):
                _sh(root, "status")
                break
            _sh(root, "next")
            _step(root, action)
    finally:
        os.chdir(cwd)
    click.echo(f"\nfiles: {', '.join(sorted(p.name for p in (root / '.agents/phases').iterdir()))}")
    if keep:
        click.echo(f"kept: {root}")
    else:
        import shutil

        shutil.rmtree(root)
    return 0
