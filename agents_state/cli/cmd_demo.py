"""demo: drive a whole workflow in a temporary folder by following ``next`` literally."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

__all__ = ["demo"]

_TASKS = b"""{"tasks": [
  {"id": "task-1", "title": "Add the OAuth client", "complexity": "medium", "dependencies": []},
  {"id": "task-2", "title": "Add the callback route", "complexity": "easy", "dependencies": []},
  {"id": "task-3", "title": "Wire login to the session", "complexity": "hard",
   "dependencies": ["task-1", "task-2"]}
]}"""


@click.command()
@click.option("--keep", is_flag=True, help="Keep the temporary folder and print its path.")
@click.argument("task", default="Add OAuth login with Google and GitHub")
def demo(keep: bool, task: str) -> int:
    """Run a demo workflow end to end in a temporary folder.

    \b
    Example:
      agents-state demo
    """
    from agents_state import events as ev
    from agents_state.app import App
    from agents_state.cli.render import render_action

    root = Path(tempfile.mkdtemp(prefix="agents-state-demo-"))
    app = App(root)
    click.echo(f"$ agents-state dispatch {task!r}   (in {root})")
    click.echo(app.dispatch(task).message)
    out: object = None
    for _ in range(100):
        action = app.next_action(app.state())
        click.echo("\n" + render_action(action))
        kind, cmd = action["kind"], action["command"] or ""
        if kind == "done":
            break
        if kind == "compact":
            out = app.run(ev.Compact())
        elif cmd.startswith("agents-state tasks load"):
            (root / ".agents/phases/2.1-tasks.json").write_bytes(_TASKS)
            out = _load_tasks(app, root)
        elif kind == "dispatch_agents" and action.get("tasks"):
            for t in action["tasks"]:
                out = app.run(ev.TaskDone(task_id=t["id"], agent=f"demo-{t['id']}",
                                          summary=f"did {t['title']}"))
        else:
            body = b'{"issues": []}' if (action["write"] or "").endswith(".json") \
                else f"# {action['phaseName']}\n\n(demo output)\n".encode()
            out = app.complete_phase(action["phase"], body)
        click.echo(f"$ {cmd}\n{getattr(out, 'message', '')}")
    click.echo(f"\nfiles: {', '.join(sorted(p.name for p in (root / '.agents/phases').iterdir()))}")
    if keep:
        click.echo(f"kept: {root}")
    else:
        import shutil

        shutil.rmtree(root)
    return 0


def _load_tasks(app: object, root: Path) -> object:
    from agents_state.app import App
    from agents_state.events import TasksLoad
    from agents_state.jsonio import loads_strict
    from agents_state.waves import parse_tasks, plan_waves

    assert isinstance(app, App)
    defs = parse_tasks(loads_strict(_TASKS, "tasks"), "tasks")
    waves = plan_waves(defs, 10)
    return app.run(TasksLoad(tasks=tuple((t.id, t.as_state()) for t in defs),
                             waves=tuple(tuple(w) for w in waves)))
