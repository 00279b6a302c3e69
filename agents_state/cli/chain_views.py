"""What ``chain`` commands print: one chain's outcome (``print_chain``), ``chain list`` and
``chain defs`` (the group and the commands that move a chain are in ``cmd_chain``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from agents_state.cli.chainctx import chain_store
from agents_state.cli.options import emit_json, json_option

if TYPE_CHECKING:
    from agents_state.chains.state import ChainState
    from agents_state.verbs.chains import ChainReport

__all__ = ["defs", "list_cmd", "print_chain", "print_report"]


def print_chain(
    c: ChainState, message: str, as_json: bool, *, notes: tuple[str, ...] = (), **extra: Any
) -> None:
    """The chain's message, its ``notes`` (text only: each its own line) and its next action."""
    from agents_state.verbs.chains import ChainReport

    print_report(ChainReport(c, message, notes, extra), as_json)


def print_report(report: ChainReport, as_json: bool) -> None:
    """A chain command's result: its JSON, or its message, notes, the chain and its next
    action."""
    if as_json:
        emit_json(report.body())
        return
    from agents_state.chains.action import chain_action
    from agents_state.safetext import escape
    from agents_state.views.render import render_action

    c, message, notes = report.chain, report.message, report.notes
    action = chain_action(c)

    click.echo(escape(message))
    for note in notes:
        click.echo(escape(note))
    step = c.step
    click.echo(
        f"chain {c.id} ({c.name}, {c.pattern}): {c.status}"
        + (f", step {step.id} ({c.current + 1}/{len(c.steps)})" if step else "")
    )
    click.echo(render_action(action))


@click.command("list")
@json_option
@click.pass_context
def list_cmd(ctx: click.Context, as_json: bool) -> int:
    """List the chains of this directory, the latest last.

    \b
    Example:
      agents-state chain list
    """
    chains = chain_store(ctx).all()
    rows = [
        {
            "id": c.id,
            "name": c.name,
            "status": c.status,
            "feature": c.feature,
            "step": c.step.id if c.step else None,
            "updatedAt": c.updatedAt,
        }
        for c in chains
    ]
    if as_json:
        emit_json(rows)
    elif not rows:
        click.echo('No chains. Start one: agents-state chain start code "<feature>"')
    for r in rows if not as_json else []:
        from agents_state.safetext import escape

        click.echo(f"{r['id']:<10} {r['status']:<10} {r['step'] or '-':<9} {escape(r['feature'])}")
    return 0


@click.command()
@json_option
def defs(as_json: bool) -> int:
    """The seven chains, their pattern and steps (templates, modes, models).

    \b
    Example:
      agents-state chain defs
    """
    from agents_state.chains.catalogue import CHAINS, TEMPLATES

    data: dict[str, dict[str, Any]] = {
        n: {
            "pattern": d.pattern,
            "submodes": list(d.submodes),
            "summary": d.summary,
            "steps": [
                {
                    "id": s.id,
                    "agent": s.agent,
                    "mode": s.mode,
                    "model": TEMPLATES[s.agent].model,
                    "instances": list(s.instances),
                }
                for s in d.steps
            ],
        }
        for n, d in CHAINS.items()
    }
    if as_json:
        emit_json(data)
        return 0
    for n, d in data.items():
        steps = " -> ".join(
            f"{s['agent']}{'(' + s['mode'] + ')' if s['mode'] else ''}[{s['model']}]"
            for s in d["steps"]
        )
        click.echo(f"{n:<6} {d['pattern']:<10} {steps}")
    return 0
