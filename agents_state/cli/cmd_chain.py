"""chain start | next | record | timeout | answer | retry | abort | request (and ``list`` and
``defs``, from ``chain_views``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Literal

import click

from agents_state.cli.chain_views import defs, list_cmd, print_chain, print_report
from agents_state.cli.chainctx import chain_store
from agents_state.cli.options import app_from, emit_json, json_option

if TYPE_CHECKING:
    from agents_state.chains.ops import ChainStore
    from agents_state.chains.state import ChainState

__all__ = ["chain"]


@click.group()
def chain() -> None:
    """Orchestrator chains (designs 000-002): researcher -> writer -> validator, parallel checks.

    \b
    Example:
      agents-state chain start code "Add user authentication" --files 3 --tasks 4
      agents-state chain record code-1 .agents/chains/code-1/research-1.response.json
    """


chain.add_command(list_cmd)
chain.add_command(defs)

_SUBMODE_HELP = "Design 002 sub-mode: run only the research, implement or validate step(s)."


@chain.command()
@click.argument("name")
@click.argument("feature", required=False)
@click.option(
    "--feature-file", metavar="FILE", help="Read the feature text from FILE ('-' for stdin)."
)
@click.option(
    "--args-file",
    metavar="FILE",
    help="A slash command's raw arguments from FILE ('-' for stdin): an optional "
    "leading sub-mode word, then the feature.",
)
@click.option(
    "--only", type=click.Choice(["research", "implement", "validate"]), help=_SUBMODE_HELP
)
@click.option(
    "--analyze",
    is_flag=True,
    help="Conditional branch: a code-analyzer sizes the chain first (design 001).",
)
@click.option("--mode", "submode", help="git: commit, pr or general; check: one check mode.")
@click.option("--files", "n_files", type=click.IntRange(0), help="Files the change touches.")
@click.option("--tasks", "n_tasks", type=click.IntRange(0), help="Tasks in the change.")
@click.option("--modules", "n_modules", type=click.IntRange(1), help="Modules it spans.")
@click.option("--effort", type=click.Choice(["small", "medium", "large"]))
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="STEP=MODEL",
    help="Model for a step or template (repeat), e.g. validate=sonnet.",
)
@click.option("--file", "files", multiple=True, metavar="PATH", help="A relevant file (repeat).")
@click.option("--constraint", "constraints", multiple=True, help="A constraint (repeat).")
@click.option("--spec", "spec_path", metavar="PATH", help="The spec the work follows.")
@click.option("--task", "wf_task", metavar="ID", help="Run inside the workflow, for task ID.")
@click.option("--phase", "wf_phase", metavar="ID", help="Run inside the workflow phase ID.")
@json_option
@click.pass_context
def start(
    ctx: click.Context,
    /,
    name: str,
    feature: str | None,
    feature_file: Any,
    args_file: Any,
    only: str | None,
    submode: str | None,
    as_json: bool,
    **opts: Any,
) -> int:
    """Start chain NAME (plan, code, ui, docs, eval, check, git) for FEATURE.

    Prints the sizing (how many sub-agents, and why) and the first next action. Without a
    feature, prints the next action of the chain of that name still in progress.

    \b
    Example:
      agents-state chain start code "Add /auth/login" --files 3 --tasks 4 --modules 2
      agents-state chain start code --only research "Add /auth/login"
      echo 'validate add login' | agents-state chain start code --args-file -
    """
    from agents_state.chains.catalogue import get_chain

    defn = get_chain(name)
    if feature_file is not None:
        feature = _read_text(feature_file)
    if args_file is not None:
        text = _read_text(args_file).strip()
        words = text.split(maxsplit=1)
        if words and words[0].lower() in defn.submodes:
            if defn.submodes[0] == "research":
                only = words[0].lower()
            else:
                submode = words[0].lower()
            text = words[1] if len(words) > 1 else ""
        feature = text or None  # the whole feature text, not its first word (issue 15)
    feature = feature.strip() if feature else None
    chains = chain_store(ctx)
    if not feature:
        if defn.name in ("check", "git"):
            feature = {"check": "check the working tree", "git": "the current changes"}[name]
        else:
            return _show_latest(chains, name, as_json)
    models = _models(opts["models"])
    from agents_state.verbs.chains import chain_start

    report = chain_start(
        app_from(ctx),
        chains,
        name,
        feature,
        opts["wf_task"],
        opts["wf_phase"],
        only=only,
        submode=submode,
        sizes=(opts["n_files"], opts["n_tasks"], opts["n_modules"], opts["effort"]),
        models=models,
        files=tuple(opts["files"]),
        constraints=tuple(opts["constraints"]),
        spec_path=opts["spec_path"],
        analyze=opts["analyze"],
    )
    print_report(report, as_json)
    return 0


def _show_latest(chains: Any, name: str, as_json: bool) -> int:
    from agents_state.errors import NotFoundError

    try:
        c = chains.latest(name)
    except NotFoundError:
        c = None
    if c is None or c.status in ("completed", "aborted"):
        msg = f'No {name} chain in progress. Start one: agents-state chain start {name} "<feature>"'
        if as_json:
            emit_json({"message": msg, "next": None})
        else:
            click.echo(msg)
        return 0
    print_chain(c, f"Chain in progress: {c.id} ({c.feature})", as_json)
    return 0


def _models(pairs: tuple[str, ...]) -> dict[str, str]:
    from agents_state.config import resolve_model

    out = {}
    for pair in pairs:
        key, sep, model = pair.partition("=")
        if not sep or not key or not model:
            raise click.UsageError(f"--model takes STEP=MODEL (got {pair!r})")
        try:
            resolve_model(model)
        except ValueError as e:
            raise click.UsageError(str(e)) from None
        out[key.strip()] = model.strip()
    return out


def _resolve(ctx: click.Context, chain_id: str | None) -> tuple[ChainStore, ChainState]:
    chains = chain_store(ctx)
    return chains, (chains.load(chain_id) if chain_id else chains.latest())


@chain.command("next")
@click.argument("chain_id", metavar="[ID]", required=False)
@json_option
@click.pass_context
def next_cmd(ctx: click.Context, chain_id: str | None, as_json: bool) -> int:
    """Print the chain's next action (default: the chain updated last).

    \b
    Example:
      agents-state chain next code-1
    """
    c = _resolve(ctx, chain_id)[1]
    print_chain(c, f"Chain {c.id}: {c.feature}", as_json)
    return 0


@chain.command()
@click.argument("chain_id", metavar="ID")
@click.argument("sources", metavar="FILES...", nargs=-1, required=True)
@click.option("--kind", default="auto", show_default=True, help="The response shape.")
@json_option
@click.pass_context
def record(
    ctx: click.Context, chain_id: str, sources: tuple[str, ...], kind: str, as_json: bool
) -> int:
    """Apply the sub-agents' responses to the chain's current step (one file per sub-agent).

    PROCEED moves on; CLARIFY asks the user; a validator's STOP re-runs the writer with the
    failures (at most twice, then escalates); any other STOP blocks the chain.

    \b
    Example:
      agents-state chain record code-1 .agents/chains/code-1/research-1.response.json
    """
    from agents_state.handoff.ops import read_source, validate
    from agents_state.verbs.chains import chain_record

    chains = chain_store(ctx)
    c = chains.load(chain_id)
    step = c.step
    if c.status == "running" and step is not None and len(sources) != step.count:
        raise click.UsageError(
            f"step {step.id} of {c.id} runs {step.count} sub-agent(s): give "
            f"{step.count} response file(s), got {len(sources)}"
        )
    answers = []
    for s in sources:
        text, shown = read_source(s, sys.stdin.buffer.read() if s == "-" else None)
        answers.append((shown, validate(text, shown, kind)))
    print_report(chain_record(app_from(ctx), chains, chain_id, answers), as_json)
    return 0


def _simple(event: Literal["timeout", "retry", "abort"], doc: str) -> click.Command:
    @click.argument("chain_id", metavar="ID")
    @json_option
    @click.pass_context
    def command(ctx: click.Context, chain_id: str, as_json: bool) -> int:
        from agents_state.verbs.chains import chain_event

        print_report(chain_event(app_from(ctx), chain_id, event), as_json)
        return 0

    command.__doc__ = f"{doc}\n\n\b\nExample:\n  agents-state chain {event} code-1\n"
    return chain.command(event)(command)


timeout = _simple(
    "timeout",
    "The current step's sub-agent did not answer in time: re-run it "
    "once with a simplified handoff; a second timeout blocks the chain.",
)
retry = _simple("retry", "Run a blocked or escalated chain's current step again.")
abort = _simple("abort", "End the chain; its files are kept.")


@chain.command()
@click.argument("chain_id", metavar="[ID]", required=False)
@click.option("--answer", "text", help="The user's answer.")
@click.option("--answer-file", metavar="FILE", help="Read the answer from FILE ('-' for stdin).")
@json_option
@click.pass_context
def answer(
    ctx: click.Context, chain_id: str | None, text: str | None, answer_file: Any, as_json: bool
) -> int:
    """Answer the questions of a chain that said CLARIFY; the step runs again with the answer.

    \b
    Example:
      agents-state chain answer code-1 --answer "Use JWT bearer tokens"
    """
    from agents_state.verbs.chains import chain_answer

    if answer_file is not None:
        text = _read_text(answer_file)
    if not text or not text.strip():
        raise click.UsageError("give the answer with --answer TEXT or --answer-file FILE")
    chains, c = _resolve(ctx, chain_id)
    print_report(chain_answer(app_from(ctx), chains, c.id, text.strip()), as_json)
    return 0


@chain.command()
@click.argument("chain_id", metavar="[ID]", required=False)
@click.pass_context
def request(ctx: click.Context, chain_id: str | None) -> int:
    """Print the current step's handoff request(s) as JSON (one per sub-agent).

    \b
    Example:
      agents-state chain request code-1
    """
    from agents_state.chains.action import requests_for

    _c, c = _resolve(ctx, chain_id)
    reqs = requests_for(c)
    emit_json(reqs[0] if len(reqs) == 1 else reqs)
    return 0


def _read_text(source: str) -> str:
    from agents_state.jsonio import read_text_input

    return read_text_input(source)
