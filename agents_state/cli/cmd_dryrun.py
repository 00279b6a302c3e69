"""``dispatch --dry-run``: the whole plan, written nowhere."""

from __future__ import annotations

from typing import Any

import click

from agents_state.cli.options import emit_json

__all__ = ["print_dry_run"]


def print_dry_run(app: Any, task: str | None, as_json: bool) -> int:
    if task is None:
        state = app.state()
        if state is None:
            raise click.UsageError("--dry-run needs a task")
        task = state.task
    from agents_state.engine.dispatchplan import dispatch_plan

    plan = dispatch_plan(app.config, task)
    if as_json:
        emit_json(plan)
        return 0
    click.echo(f"DRY RUN (nothing written): {task}")
    for st in plan["stages"]:
        click.echo(f"{st['stage']}{'' if st['enabled'] else ' (disabled: skipped)'}")
        for p in st["phases"]:
            a = p["agents"]
            who = ""
            if a:
                model = a.get("model") or a.get("models")
                who = f" · {a['count']} {a['type']} agent(s), {model}"
                if a.get("gate"):
                    who += f" · gate: {a['gate']} (max {a['maxRetries']})"
            click.echo(f"  {p['id']:<4} {p['name']} [{p['kind']}] -> {p['artifact']}{who}")
        if st["compactAfter"]:
            click.echo("  (compact after this stage)")
    return 0
