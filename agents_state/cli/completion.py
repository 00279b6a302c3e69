"""Shell completion (Click's own, for bash, zsh and fish) and completion of ids from the state.

``phase_ids`` and ``task_ids`` are ``shell_complete=`` callbacks for the ``ID`` arguments of
``phase ...`` and ``task ...``.  They run on every Tab press, so they import lazily, read the
state without a lock, and never raise: a broken or missing state just completes nothing (or the
catalogue's phase ids).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.workflow import TASK_PHASE

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

    from agents_state.models import State

__all__ = ["SHELLS", "completion", "phase_ids", "task_ids"]

SHELLS = ("bash", "zsh", "fish")
_COMPLETE_VAR = "_AGENTS_STATE_COMPLETE"


def _state(ctx: click.Context) -> State | None:
    from agents_state.store.files import Store
    from agents_state.store.paths import find_root_dir

    root = ctx.find_root().params.get("root")
    return Store(find_root_dir(root)).load()


def phase_ids(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Every phase id of the catalogue, with its name and, when a workflow exists, its status."""
    from click.shell_completion import CompletionItem

    from agents_state.workflow import PHASES

    try:
        state = _state(ctx)
    except Exception:  # completion must never fail the shell
        state = None
    items = []
    for p in PHASES:
        if not p.id.startswith(incomplete):
            continue
        help_text = p.name
        if state is not None:
            try:
                help_text += f" ({state.phase(p.id).status})"
            except KeyError:
                pass
        items.append(CompletionItem(p.id, help=help_text))
    return items


def task_ids(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Task ids of phase 2.1 that are not finished yet, with their title and status."""
    from click.shell_completion import CompletionItem

    try:
        state = _state(ctx)
        tasks = {} if state is None else (state.phase(TASK_PHASE).tasks or {})
    except Exception:  # completion must never fail the shell
        return []
    return [
        CompletionItem(tid, help=f"{t.title} ({t.status})")
        for tid, t in tasks.items()
        if tid.startswith(incomplete) and t.status not in ("completed", "skipped")
    ]


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> int:
    """Print the completion script for SHELL (Click's own completion).

    Completes commands, options, phase ids and the task ids of the current workflow.

    \b
    Example:
      eval "$(agents-state completion bash)"          # in ~/.bashrc
      eval "$(agents-state completion zsh)"           # in ~/.zshrc
      agents-state completion fish > ~/.config/fish/completions/agents-state.fish
    """
    from click.shell_completion import get_completion_class

    from agents_state.cli import cli

    cls = get_completion_class(shell)
    assert cls is not None  # the Choice above only allows shells Click knows
    click.echo(cls(cli, {}, "agents-state", _COMPLETE_VAR).source(), nl=False)
    return 0
