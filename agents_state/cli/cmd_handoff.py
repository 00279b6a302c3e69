"""handoff validate | new | record | aggregate: the sub-agent handoff protocol (designs 000-003)."""

from __future__ import annotations

import sys
from typing import Any

import click

from agents_state.cli.options import app_from, emit_json, json_option

__all__ = ["handoff"]

_KINDS = (
    "auto",
    "request",
    "response",
    "researcher",
    "writer",
    "validator",
    "checker",
    "spec-analyzer",
    "code-analyzer",
    "git-content",
)
kind_option = click.option(
    "--kind",
    type=click.Choice(_KINDS),
    default="auto",
    show_default=True,
    help="The handoff shape; auto detects it from its fields.",
)


def _root(ctx: click.Context) -> str | None:
    obj = ctx.find_root().obj
    return obj.get("root") if obj else None


def _read(source: str) -> tuple[str, str]:
    from agents_state.handoff.ops import read_source

    return read_source(source, sys.stdin.buffer.read() if source == "-" else None)


@click.group()
def handoff() -> None:
    """Sub-agent handoffs: validate, build a request, record a response, aggregate.

    \b
    Example:
      agents-state handoff new > request.json
      agents-state handoff validate reply.md
      agents-state handoff record reply.md
    """


@handoff.command()
@click.argument("source", metavar="FILE|-")
@kind_option
@json_option
def validate(source: str, kind: str, as_json: bool) -> int:
    """Validate a request or response (JSON, or JSON in prose or a code fence).

    Every problem is reported with its field path; exit 5 when there is any.

    \b
    Example:
      agents-state handoff validate reply.md
    """
    from agents_state.handoff.ops import validate as run_validate
    from agents_state.handoff.tokens import SUMMARY_TOKEN_LIMIT

    text, shown = _read(source)
    h = run_validate(text, shown, kind)
    if as_json:
        emit_json({"valid": True, "source": shown, "handoff": h.to_json()})
        return 0
    parts = [f"{shown}: valid {h.kind}"]
    if h.task_id:
        parts.append(f"task {h.task_id}")
    if h.phase:
        parts.append(f"phase {h.phase}")
    if h.decision:
        parts.append(f"decision {h.decision}")
    if h.summary is not None:
        parts.append(f"summary {h.summary_tokens}/{SUMMARY_TOKEN_LIMIT} tokens")
    click.echo(", ".join(parts))
    return 0


@handoff.command("new")
@click.option(
    "--role",
    type=click.Choice(["research", "write", "validate"]),
    help="The sub-agent's phase (default: from the workflow phase's kind).",
)
@click.option("--task", "task", metavar="ID", help="Build the request for task ID of phase 2.1.")
@click.option("--id", "task_id", metavar="TASK_ID", help="The request's task_id.")
@click.option("--instructions", help="What the sub-agent must do (default: the phase's).")
@click.option("--file", "files", multiple=True, metavar="PATH", help="A relevant file (repeat).")
@click.option("--constraint", "constraints", multiple=True, help="A constraint (repeat).")
@click.option("--spec", "spec_path", metavar="PATH", help="The spec the work follows.")
@click.pass_context
def new(ctx: click.Context, /, **options: Any) -> int:
    """Print a handoff request for the current phase, built from the workflow state.

    The previous step's context_summary goes into previous_findings (never raw findings); a QA
    failure to fix goes into retry_context; the user's answers into constraints.

    \b
    Example:
      agents-state handoff new --role write --file src/lib/auth.ts
    """
    from agents_state.app import App
    from agents_state.handoff.request import build_request

    options["files"] = tuple(options["files"])
    options["constraints"] = tuple(options["constraints"])
    emit_json(build_request(App.open(_root(ctx)).require(), **options))
    return 0


@handoff.command()
@click.argument("source", metavar="FILE|-")
@click.option(
    "--task",
    metavar="ID",
    help="Apply it to task ID (default: the response's task_id "
    "when it names a task, else the current phase).",
)
@click.option("--phase", "phase_id", metavar="ID", help="Apply it to phase ID.")
@click.option("--agent", metavar="NAME", help="The sub-agent that answered (for the log).")
@kind_option
@json_option
@click.pass_context
def record(
    ctx: click.Context,
    source: str,
    task: str | None,
    phase_id: str | None,
    agent: str | None,
    kind: str,
    as_json: bool,
) -> int:
    """Apply a sub-agent's response: PROCEED completes the step, STOP halts (a QA STOP re-runs
    the writer, at most twice), CLARIFY asks the user.

    \b
    Example:
      agents-state handoff record reply.md
    """
    from agents_state.cli.options import print_body
    from agents_state.verbs.steps import handoff_record

    text, shown = _read(source)
    print_body(handoff_record(app_from(ctx), text, shown, kind, task, phase_id, agent), as_json)
    return 0


@handoff.command("aggregate")
@click.argument("sources", metavar="FILES...", nargs=-1, required=True)
@click.option("--record", "do_record", is_flag=True, help="Also apply the aggregate decision.")
@click.option("--phase", "phase_id", metavar="ID", help="With --record: apply it to phase ID.")
@kind_option
@json_option
@click.pass_context
def aggregate_cmd(
    ctx: click.Context,
    sources: tuple[str, ...],
    do_record: bool,
    phase_id: str | None,
    kind: str,
    as_json: bool,
) -> int:
    """Aggregate parallel responses: PROCEED only if all say PROCEED, issues flattened, checks
    keyed by phase, tokens_used summed per phase.

    \b
    Example:
      agents-state handoff aggregate type.json lint.json test.json security.json --record
    """
    texts = [_read(s) for s in sources]
    if not do_record:
        from agents_state.handoff.ops import aggregate_texts

        result = aggregate_texts(texts, kind).data
        if as_json:
            emit_json(result)
        else:
            _echo_aggregate(result)
        return 0
    from agents_state.cli.options import print_body
    from agents_state.verbs.steps import handoff_aggregate

    print_body(handoff_aggregate(app_from(ctx), texts, kind, phase_id), as_json)
    return 0


def _echo_aggregate(result: dict[str, Any]) -> None:
    from agents_state.safetext import escape

    def echo(text: str) -> None:
        click.echo(escape(text))

    echo(f"{result['decision']} ({result['responses']} responses)")
    for key, findings in result["checks"].items():
        click.echo(f"  {escape(key)}: {escape(findings)}")
    for issue in result["issues"]:
        click.echo(f"  issue: {escape(issue)}")
    for phase, tokens in result["tokens_used"].items():
        click.echo(f"  tokens {escape(phase)}: {tokens}")
