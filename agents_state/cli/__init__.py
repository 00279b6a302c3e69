"""The Click shell: the only package that imports Click.

Commands load lazily: ``COMMANDS`` maps a command name to ``module:attribute`` so that a short-lived
process imports only the command it runs.  To add a command, add one line here.
"""

from __future__ import annotations

import importlib

import click

from agents_state.cli.options import ROOT_DIR, set_option, store_option

__all__ = ["COMMANDS", "cli", "main"]

COMMANDS: dict[str, str] = {
    "dispatch": "agents_state.cli.cmd_workflow:dispatch",
    "next": "agents_state.cli.cmd_workflow:next_cmd",
    "status": "agents_state.cli.cmd_status:status",
    "resume": "agents_state.cli.cmd_workflow:resume",
    "stop": "agents_state.cli.cmd_workflow:stop",
    "phase": "agents_state.cli.cmd_phase:phase",
    "review": "agents_state.cli.cmd_review:review",
    "tasks": "agents_state.cli.cmd_tasks:tasks",
    "task": "agents_state.cli.cmd_tasks:task",
    "merge": "agents_state.cli.cmd_merge:merge",
    "compact": "agents_state.cli.cmd_compact:compact",
    "context": "agents_state.cli.cmd_compact:context",
    "config": "agents_state.cli.cmd_config:config",
    "score": "agents_state.cli.cmd_config:score",
    "migrate": "agents_state.cli.cmd_migrate:migrate",
    "demo": "agents_state.cli.cmd_demo:demo",
    "handoff": "agents_state.cli.cmd_handoff:handoff",
    "profile": "agents_state.cli.cmd_profile:profile",
    "hook": "agents_state.cli.cmd_hook:hook",
    "doctor": "agents_state.cli.cmd_doctor:doctor",
    "chain": "agents_state.cli.cmd_chain:chain",
    "scaffold": "agents_state.cli.cmd_scaffold:scaffold",
    "graph": "agents_state.cli.cmd_graph:graph",
    "watch": "agents_state.cli.cmd_watch:watch",
    "schema": "agents_state.cli.cmd_schema:schema",
    "completion": "agents_state.cli.completion:completion",
    "store": "agents_state.cli.cmd_store:store",
    "budget": "agents_state.cli.cmd_budget:budget",
    "report": "agents_state.cli.cmd_report:report",
    "mcp": "agents_state.cli.cmd_mcp:mcp",
    "gate": "agents_state.cli.cmd_gate:gate",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name:
                return None  # declared but not built yet
            raise
        command: click.Command = getattr(module, attr)
        from agents_state.cli.options import add_global_options

        return add_global_options(command)


def _version() -> str:
    from agents_state import __version__

    return __version__


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), "--version", prog_name="agents-state")
@click.option(
    "--root",
    type=ROOT_DIR,
    envvar="AGENTS_STATE_ROOT",
    default=None,
    help="Directory that holds .agents/ (default: nearest ancestor with one, else the cwd).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    expose_value=True,
    help="Print pure JSON on stdout (same as --json after the subcommand).",
)
@store_option
@set_option
@click.pass_context
def cli(ctx: click.Context, root: str | None, as_json: bool) -> None:
    """agents-state: durable workflow state for coding-agent orchestration.

    \b
    Example:
      agents-state dispatch "Add OAuth login"
      agents-state next
    """
    ctx.ensure_object(dict)
    ctx.obj.setdefault("root", root)
    ctx.obj["root"] = ctx.obj["root"] or root
    ctx.obj["json"] = as_json


def main(argv: list[str] | None = None) -> int:
    import sys

    from agents_state.cli.runner import run

    return run(cli, sys.argv[1:] if argv is None else argv)
