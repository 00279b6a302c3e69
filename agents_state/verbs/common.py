"""What several commands share: opening the project, and the outcome body with the next action."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.models import State
    from agents_state.store.commits import CommitLog
    from agents_state.verbs.results import Recorded

__all__ = ["open_app", "outcome"]


def open_app(
    root: str | None,
    store: str | None = None,
    commits: CommitLog | None = None,
    sets: tuple[str, ...] = (),
) -> App:
    """The project's ``App`` as every command opens it (a checked ``--root``, worktree
    isolation's additions to the next action)."""
    from agents_state.app import App

    if root is not None:
        _check_root(root)
    app = App.open(root, store, commits, sets)
    app.isolated_action = _isolated_action
    return app


def _isolated_action(app: App, state: State, action: dict[str, Any]) -> dict[str, Any]:
    """Issue 33: under worktree isolation, once done, where the work is (from git)."""
    from agents_state.gitwork.handover import with_handover

    return with_handover(app, state, action)


def _check_root(root: str) -> None:
    """A mistyped ``--root`` (or ``AGENTS_STATE_ROOT``) is an error, never "No active workflow"
    with exit 0, and never a new folder made by ``dispatch`` (issue 33)."""
    import os

    if not os.path.isdir(root):
        from agents_state.errors import NotFoundError

        raise NotFoundError(  # a file is refused by click already (ROOT_DIR), exit 2
            f"--root {root}: no such folder; give the folder that holds .agents/ (or the project's "
            "folder), or leave --root out to use the nearest one"
        )


def outcome(app: App, message: str, state: State | None = None, **extra: Any) -> Recorded:
    """What happened and the next action (``--json`` of the recording commands); ``state`` is
    the committed one (no re-read); ``extra``: the command's own fields, before ``next``."""
    from agents_state.verbs.results import Recorded

    if state is None:
        state = app.state()
    action = app.next_action(state, briefs=True)  # a recording command: its briefs written
    return Recorded(
        message,
        state.revision if state else None,
        state.status if state else None,
        action,
        extra,
    )
