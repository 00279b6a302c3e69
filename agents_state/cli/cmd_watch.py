"""watch: a live view of the workflow that redraws when the state changes."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from agents_state.cli.options import app_from

if TYPE_CHECKING:
    from types import FrameType

    from agents_state.app import App
    from agents_state.views.watch import Signature, StateWatcher

__all__ = ["watch"]

_CLEAR = "\x1b[H\x1b[2J"
_TTY_REFRESH = 10.0  # seconds: keeps ages ("silent for 3m") honest while nothing changes


@click.command()
@click.option(
    "--exit-on-done", is_flag=True, help="Exit when the workflow is completed or aborted."
)
@click.option(
    "--poll",
    is_flag=True,
    envvar="AGENTS_STATE_WATCH_POLL",
    help="Use no file system events: check the file every --interval seconds "
    "(for network file systems). Also $AGENTS_STATE_WATCH_POLL=1.",
)
@click.option(
    "--interval",
    type=click.FloatRange(0.05, 60),
    default=0.5,
    show_default=True,
    help="Seconds between checks of the file (the safety net when events are lost).",
)
@click.option(
    "--plain",
    is_flag=True,
    help="Append a frame per change instead of redrawing "
    "the screen (the default when stdout is not a terminal).",
)
@click.option("--verbose", "-v", is_flag=True, help="Add every task of every wave.")
@click.pass_context
def watch(
    ctx: click.Context, exit_on_done: bool, poll: bool, interval: float, plain: bool, verbose: bool
) -> int:
    """Show the workflow live: stages, the current wave, stale claims, failures and the next
    action, redrawn whenever .agents/state.json changes.  Ctrl-C quits.

    Colour is used on a terminal unless NO_COLOR is set.

    \b
    Example:
      agents-state watch
      agents-state watch --exit-on-done --plain > watch.log
    """
    from agents_state.views.watch import StateWatcher

    app = app_from(ctx)
    tty = sys.stdout.isatty() and not plain
    color = tty and not os.environ.get("NO_COLOR")
    watcher: Any
    if app.store_url is not None:  # the PostgreSQL store: LISTEN/NOTIFY
        from agents_state.views.watch_pg import PgWatcher

        watcher = PgWatcher(app.store)
    else:
        watcher = StateWatcher(app.file_store.dir, use_events=not poll, poll_interval=interval)
    watcher.start()
    import signal

    signal.signal(signal.SIGTERM, _interrupt)
    try:
        return _loop(app, watcher, tty, color, verbose, exit_on_done)
    except KeyboardInterrupt:
        if tty:
            click.echo()
        return 0
    finally:
        watcher.stop()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _loop(
    app: App, watcher: StateWatcher, tty: bool, color: bool, verbose: bool, exit_on_done: bool
) -> int:
    from agents_state.views.watch import signature

    current = getattr(watcher, "current", None) or (lambda: signature(watcher.path))
    sig = current()
    while True:
        watcher.seen(sig)
        text, done = _frame(app, watcher, sig, verbose)
        _show(text, tty, color)
        if done and exit_on_done:
            return 0
        new = watcher.wait(_TTY_REFRESH if tty else 3600.0)
        while new is None and not tty:
            new = watcher.wait(3600.0)
        sig = new if new is not None else current()


def _show(text: str, tty: bool, color: bool) -> None:
    if tty:
        if color:
            from agents_state.views.render import colorize

            text = colorize(text)
        sys.stdout.write(_CLEAR + text + "\n")
    else:
        sys.stdout.write(text + "\n\n")
    sys.stdout.flush()


def _frame(app: App, watcher: StateWatcher, sig: Signature, verbose: bool) -> tuple[str, bool]:
    """The text of one frame, and whether the workflow has ended."""
    from agents_state.app import utcnow
    from agents_state.errors import AgentsStateError

    now = utcnow()
    changed = _changed_at(sig)
    try:
        state = app.store.load()
    except AgentsStateError as e:  # a hand edit in progress: show it, keep watching
        return _header("?", changed, watcher) + f"\n{e.message}", False
    if state is None:
        return (
            _header("-", changed, watcher) + f"\nNo workflow in {app.root} yet; start one: "
            'agents-state dispatch "<task>"'
        ), False
    from agents_state.views.render import render_status

    action = app.next_action(state)
    body = render_status(state, action, now, app.policy.lease_seconds, verbose)
    from agents_state.views.usage import usage_lines, usage_of

    cost = usage_lines(usage_of(app.root_dir, state, now))[0]  # the running total (issue 24)
    head = _header(str(state.revision), changed, watcher)
    return f"{head}\n{cost}\n{body}", not state.active


def _changed_at(sig: Signature) -> str:
    if sig is None:
        return "-"
    from datetime import UTC, datetime

    from agents_state.types import format_time

    return format_time(datetime.fromtimestamp(sig[1] / 1e9, UTC))


def _header(revision: str, changed: str, watcher: Any) -> str:
    return (
        f"── agents-state watch · revision {revision} · last change {changed} · "
        f"{watcher.mode} · Ctrl-C quits ──"
    )
