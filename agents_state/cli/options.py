"""Options shared by the commands, defined once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from pathlib import Path

    from agents_state.app import App
    from agents_state.verbs.results import Recorded

__all__ = [
    "add_global_options",
    "app_from",
    "emit_json",
    "input_path",
    "json_option",
    "print_body",
    "set_option",
    "store_option",
]

F = TypeVar("F", bound=Callable[..., Any])


def _json_cb(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """``--json`` given before the subcommand counts too."""
    obj = ctx.find_root().obj
    return bool(value or (isinstance(obj, dict) and obj.get("json")))


json_option: Callable[[F], F] = click.option(
    "--json",
    "as_json",
    is_flag=True,
    callback=_json_cb,
    help="Print pure JSON on stdout (errors as JSON on stderr).",
)


def _root_cb(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        root = ctx.find_root()
        root.ensure_object(dict)["root"] = value


def _store_cb(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.find_root().ensure_object(dict)["store"] = value
        import os

        os.environ["AGENTS_STATE_STORE"] = value  # for every App this process opens


STORE_HELP = (
    "Where the workflow lives: a postgresql://USER@HOST:PORT/DB?workflow=NAME URL "
    "(default: the files under .agents/; also AGENTS_STATE_STORE)."
)


def store_option(cmd: F) -> F:
    """The global ``--store URL`` (before or after the subcommand), defined once."""
    return click.option(
        "--store", "store", metavar="URL", expose_value=False, callback=_store_cb, help=STORE_HELP
    )(cmd)


def _set_cb(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
    if value:
        obj = ctx.find_root().ensure_object(dict)
        obj["set"] = (*obj.get("set", ()), *value)


SET_HELP = (
    "Set a configuration value for this command, over every file and the environment "
    "(repeatable; a dotted key, a JSON value or text): --set stages.PLAN.planning.mode=single"
)


def set_option(cmd: F) -> F:
    """The global ``--set KEY=VALUE`` (before or after the subcommand), defined once."""
    return click.option(
        "--set",
        "sets",
        metavar="KEY=VALUE",
        multiple=True,
        expose_value=False,
        callback=_set_cb,
        help=SET_HELP,
    )(cmd)


# ``--root``'s type, made once: each ``click.Path`` asks gettext for its name when made, and
# gettext looks for a catalogue on disk each time (issue 26, start-up)
ROOT_DIR = click.Path(file_okay=False, path_type=str)


def add_global_options(cmd: click.Command) -> click.Command:
    """Accept ``--root DIR`` and ``--store URL`` after the subcommand too
    (``agents-state status --root DIR``)."""
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            add_global_options(sub)
    if not any("--store" in p.opts for p in cmd.params):
        cmd.params.append(
            click.Option(
                ["--store"], expose_value=False, callback=_store_cb, metavar="URL", help=STORE_HELP
            )
        )
    if not any("--set" in p.opts for p in cmd.params):
        cmd.params.append(
            click.Option(
                ["--set"],
                metavar="KEY=VALUE",
                multiple=True,
                expose_value=False,
                callback=_set_cb,
                help=SET_HELP,
            )
        )
    if not any("--root" in p.opts for p in cmd.params):
        cmd.params.append(
            click.Option(
                ["--root"],
                type=ROOT_DIR,
                expose_value=False,
                callback=_root_cb,
                metavar="DIR",
                help="Directory that holds .agents/ (same as the global --root).",
            )
        )
    return cmd


def complete_phase_ids(ctx: click.Context, param: click.Parameter, incomplete: str) -> Any:
    """``shell_complete`` of a phase id: ``cli.completion`` loads only when a shell asks."""
    from agents_state.cli.completion import phase_ids

    return phase_ids(ctx, param, incomplete)


def complete_task_ids(ctx: click.Context, param: click.Parameter, incomplete: str) -> Any:
    """``shell_complete`` of a task id: ``cli.completion`` loads only when a shell asks."""
    from agents_state.cli.completion import task_ids

    return task_ids(ctx, param, incomplete)


def app_from(ctx: click.Context) -> App:
    from agents_state.verbs.common import open_app

    obj = ctx.find_root().obj or {}
    return open_app(
        obj.get("root"), obj.get("store"), obj.get("commits"), tuple(obj.get("set", ()))
    )


def emit_json(data: Any) -> None:
    import sys

    import orjson

    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


def print_body(result: Recorded, as_json: bool) -> None:
    """A recording command's result (``verbs.common.outcome``) as its JSON body, or its message
    and next action."""
    if as_json:
        emit_json(result.body())
        return
    from agents_state.safetext import escape
    from agents_state.views.render import render_action

    click.echo(escape(result.message))
    click.echo(render_action(result.next))


def input_path(name: str, root: Any) -> Path:
    """A file the caller named: as given, else (relative and missing) under the project root.

    Next actions name artifacts relative to the root (``.agents/phases/0-explore.md``), and the
    model may run the command from a subdirectory of the project.
    """
    from pathlib import Path

    path = Path(name)
    if not path.is_absolute() and not path.exists() and (Path(root) / path).exists():
        return Path(root) / path
    return path
