"""config show | validate; score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["config", "score"]


@click.group()
def config() -> None:
    """Effective configuration and where each value came from.

    \b
    Example:
      agents-state config show
    """


@config.command()
@json_option
@click.pass_context
def show(ctx: click.Context, as_json: bool) -> int:
    """Print the effective config, each value with its layer.

    \b
    Example:
      agents-state config show --json
    """
    from agents_state.store.api import describe

    app = app_from(ctx)
    loaded = app.loaded
    data = loaded.config.model_dump()
    store = describe(app.store_url, app.root)
    from agents_state.profiles import ignored_lifts

    ignored = ignored_lifts(loaded.layers)  # issue 32: a project may not loosen plugin agents
    if as_json:
        emit_json({"config": data, "sources": loaded.sources, "store": store, "ignored": ignored})
        return 0
    click.echo(f"store: {store}")
    for line in ignored:
        click.echo(f"note: {line}")
    for key, layer in sorted(loaded.sources.items()):
        node: Any = data
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        click.echo(f"{key} = {node!r}  [{layer}]")
    return 0


@config.command()
@click.argument("file", required=False)
@json_option
@click.pass_context
def validate(ctx: click.Context, file: str | None, as_json: bool) -> int:
    """Validate FILE (default: every layer and the merged result).

    \b
    Example:
      agents-state config validate .agents/config.json
    """
    from agents_state.configload import validate_file

    app = app_from(ctx)
    cfg = validate_file(Path(file), file) if file else app.config
    msg = f"{file or 'configuration'}: valid"
    codex = _codex_note(cfg)
    if as_json:
        emit_json({"valid": True, "file": file, "codex": codex})
    else:
        click.echo(msg)
        if codex["note"]:
            click.echo(codex["note"])
    return 0


def _codex_note(cfg: Any) -> dict[str, Any]:
    """Issue 37: the review phases with a codex-* model, and whether Codex can run them."""
    from agents_state.workflow import REVIEW_PHASES

    phases = [p for p in REVIEW_PHASES if cfg.review_for(p).tool.startswith("codex-")]
    if not phases:
        return {"phases": [], "installed": None, "note": None}
    from agents_state.codexcli import installed_version

    version = installed_version()
    note = None
    if version is None:
        note = (
            f"note: phases {', '.join(phases)} review with Codex, but no Codex CLI >= 0.154 is "
            "installed (npm install -g @openai/codex, or set AGENTS_STATE_CODEX): those reviews "
            'fall back to subagents:pr-reviewer with model "opus"'
        )
    return {"phases": phases, "installed": version, "note": note}


@click.command()
@click.argument("task", required=False)
@click.option("--files", type=click.IntRange(0), help="Design 000 sizing: files touched.")
@click.option("--tasks", "task_count", type=click.IntRange(0), help="Tasks in the work.")
@click.option("--modules", type=click.IntRange(0), default=1, show_default=True)
@click.option(
    "--effort", type=click.Choice(["small", "medium", "large"]), default="medium", show_default=True
)
@json_option
@click.pass_context
def score(
    ctx: click.Context,
    task: str | None,
    files: int | None,
    task_count: int | None,
    modules: int,
    effort: str,
    as_json: bool,
) -> int:
    """How many sub-agents a phase gets, and why.

    With --files/--tasks: design 000's chain sizing (capped at 7); else design 004's complexity
    signals in TASK (default: the current workflow's task), capped by maxParallelAgents.

    \b
    Example:
      agents-state score "Add OAuth authentication"
      agents-state score --files 3 --tasks 5 --modules 2
    """
    from agents_state.engine.scoring import score_task, size_chain

    app = app_from(ctx)
    if files is not None or task_count is not None:
        sizing = size_chain(files or 1, task_count or 1, modules, effort)
        rule = "design-000"
    else:
        if task is None:
            task = app.require().task
        sizing = score_task(task, app.config.stages.EXPLORE.maxParallelAgents)
        rule = "design-004"
    if as_json:
        emit_json(
            {"count": sizing.count, "level": sizing.level, "rule": rule, "reasons": sizing.reasons}
        )
    else:
        click.echo(f"{sizing.count} sub-agent(s) ({sizing.level})")
        for r in sizing.reasons:
            click.echo(f"  - {r}")
    return 0
