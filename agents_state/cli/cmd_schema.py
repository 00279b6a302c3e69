"""schema: JSON Schema of the state, the config and the handoff request / response."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["schema"]

_NAMES = ("state", "config", "handoff-request", "handoff-response", "review")


@click.command()
@click.argument("name", type=click.Choice(_NAMES), default="state", required=False)
@click.option(
    "--write",
    "write_dir",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Write every schema to DIR/<name>.schema.json instead of printing one.",
)
@click.option(
    "--check",
    "check_dir",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Exit 5 when a schema in DIR differs from the generated one.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    hidden=True,
    help="Accepted for symmetry: the output is always JSON.",
)
def schema(name: str, write_dir: str | None, check_dir: str | None, as_json: bool) -> int:
    """Print the JSON Schema (draft 2020-12) of NAME, generated from the models.

    NAME is one of state (default), config, handoff-request, handoff-response, review (the
    review artifact as `review run` asks Codex for it).  Point your editor at them to validate
    .agents/state.json and config files as you type.

    \b
    Example:
      agents-state schema state > state.schema.json
      agents-state schema --write schemas
      agents-state schema --check schemas
    """
    from agents_state.views.schema_export import file_name, generate, generate_all, render

    if check_dir is not None:
        return _check(Path(check_dir), {file_name(n): render(s) for n, s in generate_all().items()})
    if write_dir is not None:
        out = Path(write_dir)
        out.mkdir(parents=True, exist_ok=True)
        for n, s in generate_all().items():
            (out / file_name(n)).write_text(render(s), encoding="utf-8")
            click.echo(f"wrote {out / file_name(n)}", err=True)
        return 0
    click.echo(render(generate(name)), nl=False)
    return 0


def _check(folder: Path, texts: dict[str, str]) -> int:
    from agents_state.errors import ExitCode

    stale = []
    for fname, text in texts.items():
        path = folder / fname
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            stale.append(str(path))
    if stale:
        click.echo(
            "agents-state: schemas out of date (regenerate with: agents-state schema "
            f"--write {folder}): {', '.join(stale)}",
            err=True,
        )
        return int(ExitCode.INVALID)
    click.echo(f"{len(texts)} schema(s) in {folder} are up to date", err=True)
    return 0
