"""Issue 23: the approvals hook reads an ``agents-state`` command line with its own parser
(``hooks/engine_steps.py``); Click decides what the engine does.  This differential test runs
both on generated command lines: whenever the hook's parser accepts one and Click parses it too,
every file and every ``--root`` Click binds is one the hook checked.  (When Click refuses a
line the engine does nothing, so the hook's answer does not matter there.)"""

from __future__ import annotations

from typing import Any

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_state.cli import cli
from agents_state.hooks import engine_steps

VALUES = ["a", "b/c.json", "-", "--", "-x", "--json", "--root", ".", "=", "t1", "code-1", ""]


def _tokens(words: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    known = engine_steps.STEPS[words].options
    options = [*known, "--json", "--root", "-h"]
    token = st.one_of(
        st.sampled_from(options),
        st.builds(lambda o, v: f"{o}={v}", st.sampled_from(options), st.sampled_from(VALUES)),
        st.sampled_from(VALUES),
    )
    return st.lists(token, max_size=6)


def _click_paths(argv: list[str]) -> tuple[list[str], list[str]] | None:
    """(the file values, the roots) Click binds for ``argv``, or None when Click refuses it."""
    try:
        ctx = cli.make_context("agents-state", list(argv), resilient_parsing=False)
        roots: list[str] = [ctx.params["root"]] if ctx.params.get("root") is not None else []
        rest = [*ctx._protected_args, *ctx.args]
        command: Any = cli
        while isinstance(command, click.Group) and rest:
            name, command, rest = command.resolve_command(ctx, rest)
            ctx = command.make_context(name, rest, parent=ctx, resilient_parsing=False)
            rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
    except (click.exceptions.Exit, click.UsageError, click.exceptions.Abort):
        return None
    obj = ctx.find_root().obj or {}
    if obj.get("root") is not None:
        roots.append(obj["root"])
    known = engine_steps.STEPS[tuple(argv_words(argv))].options
    paths: list[str] = []
    names = {p.name: p for p in command.params}
    for name, param in names.items():
        value = ctx.params.get(name)
        if value is None or value == ():
            continue
        is_path = isinstance(param, click.Argument) and _argument_kind(command, param) == "path"
        is_path = is_path or any(known.get(o) == engine_steps.PATH for o in param.opts)
        if is_path:
            paths.extend(value if isinstance(value, tuple) else [value])
    return paths, roots


def argv_words(argv: list[str]) -> list[str]:
    parsed = engine_steps.parse(argv)
    assert parsed is not None
    return list(parsed.words)


def _argument_kind(command: click.Command, param: click.Argument) -> str:
    words = next(w for w, _ in engine_steps.STEPS.items() if _command(w) is command)
    step = engine_steps.STEPS[words]
    positional, more = step.args, step.more
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    index = arguments.index(param)
    return positional[index] if index < len(positional) else (more or "")


def _command(words: tuple[str, ...]) -> Any:
    ctx = click.Context(cli)
    command: Any = cli
    for word in words:
        command = command.get_command(ctx, word)
    return command


@pytest.mark.parametrize("words", sorted(engine_steps.STEPS), ids=" ".join)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_the_hook_reads_paths_and_roots_as_click_does(
    words: tuple[str, ...], data: st.DataObject
) -> None:
    before = data.draw(st.lists(st.sampled_from(["--json", "--root", "."]), max_size=2))
    argv = [*before, *words, *data.draw(_tokens(words))]
    parsed = engine_steps.parse(argv)
    if parsed is None:
        return
    clicked = _click_paths(argv)
    if clicked is None:
        return
    paths, roots = clicked
    # the hook checks every value it sees (Click keeps the last of an option given twice):
    # Click must bind no file and no root the hook did not check
    assert set(paths) <= set(parsed.paths), argv
    assert set(roots) <= set(parsed.roots), argv
