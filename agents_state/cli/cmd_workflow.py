"""dispatch, next, stop, resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from agents_state.cli.options import app_from, emit_json, json_option, print_body

if TYPE_CHECKING:
    from agents_state.verbs.control import Resume
    from agents_state.verbs.results import Explained, NoWorkflow, Recorded

__all__ = ["dispatch", "next_cmd", "resume", "stop"]


@click.command()
@click.argument("task", required=False)
@click.option(
    "--task-file",
    metavar="FILE",
    help="Read the task text from FILE ('-' for stdin): keeps it away from the shell.",
)
@click.option("--replace", is_flag=True, help="Archive the active workflow and start anew.")
@click.option("--dry-run", is_flag=True, help="Preview every stage and phase; write nothing.")
@json_option
@click.pass_context
def dispatch(
    ctx: click.Context,
    task: str | None,
    task_file: str | None,
    replace: bool,
    dry_run: bool,
    as_json: bool,
) -> int:
    """Start a workflow for TASK and print the next action (without TASK: the next action).

    \b
    Example:
      agents-state dispatch "Add OAuth login with Google and GitHub"
      echo "fix login; rm -rf ~" | agents-state dispatch --task-file -
    """
    app = app_from(ctx)
    if task_file is not None:
        task = _read_text(task_file).strip() or None  # no text: same as no task (print next action)
    shown = "TASK" if task_file is None else "<stdin>" if task_file == "-" else task_file
    if task is not None:
        task = task.strip()
        if not task:
            raise click.UsageError("the task is empty; describe what the workflow should do")
        from agents_state.safetext import check_length

        check_length(task, "task", shown, "")
    if dry_run:
        from agents_state.cli.cmd_dryrun import print_dry_run

        return print_dry_run(app, task, as_json)
    from agents_state.verbs.flow import dispatch as run_dispatch
    from agents_state.verbs.results import Recorded

    result = run_dispatch(app, task, shown, replace)
    if as_json:
        emit_json(result.body())
    elif isinstance(result, Recorded):
        print_body(result, False)
    else:  # no workflow, no task
        from agents_state.views.nextaction import no_workflow_line

        click.echo(no_workflow_line())
    return 0


@click.command("next")
@json_option
@click.pass_context
def next_cmd(ctx: click.Context, as_json: bool) -> int:
    """Print the next action only.

    \b
    Example:
      agents-state next --json
    """
    from agents_state.verbs.flow import next_action

    step = next_action(app_from(ctx), lambda text: click.echo(text, err=True))
    if as_json:
        emit_json(step.body())
    else:
        from agents_state.views.render import render_action

        if step.merged is not None:
            from agents_state.safetext import escape

            click.echo(escape(step.merged))
        click.echo(render_action(step.action))
    return 0


@click.command()
@json_option
@click.pass_context
def stop(ctx: click.Context, as_json: bool) -> int:
    """Stop after the current step (resume with: agents-state resume --retry).

    \b
    Example:
      agents-state stop
    """
    from agents_state.verbs.control import stop as run_stop

    _print(run_stop(app_from(ctx)), as_json)
    return 0


@click.command()
@click.option("--retry", "action", flag_value="retry", help="Run the failed or stopped step again.")
@click.option("--skip", "action", flag_value="skip", help="Mark the failed step skipped; go on.")
@click.option("--abort", "action", flag_value="abort", help="End the workflow, keep every file.")
@click.option("--answer", help="Answer the open questions (CLARIFY) and run the step again.")
@json_option
@click.pass_context
def resume(ctx: click.Context, action: Resume | None, answer: str | None, as_json: bool) -> int:
    """Explain where the workflow stopped and the options; --retry, --skip, --abort act.

    \b
    Example:
      agents-state resume
      agents-state resume --retry
    """
    from agents_state.verbs.control import has_workflow
    from agents_state.verbs.control import resume as run_resume

    app = app_from(ctx)
    if answer is not None and action is None:
        from agents_state.verbs.chains import answer_chain

        report = answer_chain(app, answer)
        if report is not None:  # a chain said CLARIFY (issue 10)
            from agents_state.cli.chain_views import print_report

            print_report(report, as_json)
            return 0
    if answer is not None and action is not None and has_workflow(app):
        raise click.UsageError("--answer cannot be combined with --retry, --skip or --abort")
    _print(run_resume(app, action, answer), as_json)
    return 0


def _print(result: Recorded | Explained | NoWorkflow, as_json: bool) -> None:
    """A steering command's result: its JSON, the outcome, the explanation and options, or
    the one line of no workflow (a normal answer, exit 0)."""
    from agents_state.verbs.results import Explained, Recorded

    if as_json:
        emit_json(result.body())
    elif isinstance(result, Recorded):
        print_body(result, False)
    elif isinstance(result, Explained):
        from agents_state.safetext import escape

        for line in result.explanation.split("\n"):
            click.echo(escape(line))
        for opt in result.options:
            click.echo(f"  {opt['command']:<32} {escape(opt['effect'])}")
    else:
        from agents_state.views.nextaction import no_workflow_line

        click.echo(no_workflow_line())


def _read_text(source: str) -> str:
    from agents_state.jsonio import read_text_input

    return read_text_input(source)
