"""gate approve | reject | list: a person's answer at a gate (issue 36).

A person runs these in their own shell; the plugin never approves them for a model
(``hooks.permission``).  Each answer is one engine event under the store's lock, so an answer
given twice, or by two processes at once, is applied once.
"""

from __future__ import annotations

import click

from agents_state.cli.options import (
    app_from,
    complete_phase_ids,
    emit_json,
    json_option,
    print_body,
)

__all__ = ["gate"]


def _one_line(value: str, flag: str) -> str:
    text = value.strip()
    if not text:
        raise click.UsageError(f"{flag} must not be empty")
    if "\n" in text or "\r" in text:
        raise click.UsageError(f"{flag} must be one line")
    return text


@click.group()
def gate() -> None:
    """A person's approval at the configured gates ("gates": ["1.3"] in the config).

    \b
    Example:
      agents-state gate list
      agents-state gate approve 1.3 --by alice
      agents-state gate reject 1.3 --by alice --note "split task 3"
    """


def _answer(
    ctx: click.Context, phase_id: str, verdict: str, by: str, note: str | None, as_json: bool
) -> int:
    from agents_state.engine.phases import check_phase_id
    from agents_state.verbs.control import answer_gate

    app = app_from(ctx)
    pid = check_phase_id(phase_id)  # checked first: a bad phase is named before a bad --by
    who = _one_line(by, "--by")
    why = None if note is None else _one_line(note, "--note")
    print_body(answer_gate(app, pid, verdict == "approved", who, why), as_json)
    return 0


@gate.command()
@click.argument("phase_id", metavar="PHASE", shell_complete=complete_phase_ids)
@click.option("--by", required=True, metavar="NAME", help="Who approves (recorded).")
@click.option("--note", metavar="TEXT", help="Why (recorded).")
@json_option
@click.pass_context
def approve(ctx: click.Context, phase_id: str, by: str, note: str | None, as_json: bool) -> int:
    """Approve the gate after PHASE: the workflow goes on to the next phase.

    \b
    Example:
      agents-state gate approve 1.3 --by alice
    """
    return _answer(ctx, phase_id, "approved", by, note, as_json)


@gate.command()
@click.argument("phase_id", metavar="PHASE", shell_complete=complete_phase_ids)
@click.option("--by", required=True, metavar="NAME", help="Who rejects (recorded).")
@click.option("--note", required=True, metavar="TEXT", help="What to change (the model reads it).")
@json_option
@click.pass_context
def reject(ctx: click.Context, phase_id: str, by: str, note: str, as_json: bool) -> int:
    """Reject the gate after PHASE: the phase runs again, its next action carrying the note.

    \b
    Example:
      agents-state gate reject 1.3 --by alice --note "split task 3"
    """
    return _answer(ctx, phase_id, "rejected", by, note, as_json)


@gate.command("list")
@json_option
@click.pass_context
def list_cmd(ctx: click.Context, as_json: bool) -> int:
    """The configured gates, the one waiting (since when) and every answer given.

    \b
    Example:
      agents-state gate list --json
    """
    from agents_state.views.gates import gate_lines, gate_summary

    app = app_from(ctx)
    state = app.state()
    configured = sorted(app.policy.gates, key=_phase_order)
    if as_json:
        emit_json(gate_summary(state, configured))
        return 0
    click.echo(f"gates: {', '.join(configured) or 'none configured'}")
    lines = gate_lines(state) if state is not None else []
    if state is not None and state.gate is None:
        lines.insert(0, "  no gate waits")
    click.echo("\n".join(lines) if lines else "  no workflow")
    return 0


def _phase_order(pid: str) -> int:
    from agents_state.workflow import PHASE_IDS

    return PHASE_IDS.index(pid)
