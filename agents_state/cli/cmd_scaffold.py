"""scaffold: write design 003's .claude/sub-agents/ layout into a project."""

from __future__ import annotations

from pathlib import Path

import click

from agents_state.cli.options import emit_json, json_option
from agents_state.store.fsops import atomic_write

__all__ = ["scaffold"]


def _status(path: Path, text: str) -> str:
    if path.is_symlink():
        return "symlink"
    try:
        return "same" if path.read_text(encoding="utf-8") == text else "differs"
    except FileNotFoundError:
        return "new"
    except (OSError, UnicodeDecodeError):
        return "differs"


@click.command()
@click.option(
    "--dir",
    "target",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The project to write .claude/sub-agents/ in.",
)
@click.option("--force", is_flag=True, help="Overwrite files that differ.")
@click.option("--dry-run", is_flag=True, help="Show what would be written; write nothing.")
@json_option
def scaffold(target: Path, force: bool, dry_run: bool, as_json: bool) -> int:
    """Write .claude/sub-agents/ (README, templates, profiles, protocols) from the engine's own
    definitions. Existing files that differ are kept unless --force.

    \b
    Example:
      agents-state scaffold --dry-run
      agents-state scaffold --force
    """
    from agents_state.scaffold import scaffold_files
    from agents_state.store.paths import check_inside

    root = target.absolute()
    rows = []
    for rel, text in scaffold_files().items():
        path = root / rel
        check_inside(root, path.parent if path.parent.exists() else root, rel)
        status = _status(path, text)
        write = status == "new" or (status == "differs" and force)
        action = (
            ("would write" if dry_run else "written")
            if write
            else (
                "unchanged"
                if status == "same"
                else "kept (differs; --force overwrites)"
                if status == "differs"
                else "refused (a symbolic link)"
            )
        )
        if write and not dry_run:
            atomic_write(path, text.encode(), rel)
        rows.append({"path": rel, "status": status, "action": action})
    if as_json:
        emit_json({"root": str(root), "dryRun": dry_run, "files": rows})
        return 0
    for r in rows:
        click.echo(f"{r['action']:<36} {r['path']}")
    written = sum(1 for r in rows if r["action"] in ("written", "would write"))
    verb = "would be written" if dry_run else "written"
    click.echo(f"{written} of {len(rows)} file(s) {verb} under {root}")
    return 0
