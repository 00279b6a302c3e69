"""Operations: load the config, run one engine event through the store, return the outcome.

This is the imperative shell shared by the CLI and the hook handlers; it reads the clock and the
disk, the engine does neither.  Artifacts are written inside the lock, after the engine accepted
the transition and before the state that points at them (the store takes them back if the state
write fails).  The commands' flows (``dispatch``, ``phase complete`` ...) are in ``verbs``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agents_state.errors import NotFoundError
from agents_state.models import State
from agents_state.store.files import Store
from agents_state.store.paths import find_root_dir
from agents_state.types import utcnow

if TYPE_CHECKING:
    from pathlib import Path

    from agents_state.config import Config
    from agents_state.configload import LoadedConfig
    from agents_state.engine import events as ev
    from agents_state.engine.context import Outcome
    from agents_state.engine.native import FanoutPath
    from agents_state.policy import Policy
    from agents_state.store.api import WorkflowStore
    from agents_state.store.commits import CommitLog
    from agents_state.store.pg import PgStore

__all__ = ["App", "context_text", "utcnow"]


class App:
    """One project's workflow: its root and store (a plain class, so that commands do not load
    ``dataclasses`` for it)."""

    def __init__(
        self,
        root: Path | str,
        store_url: str | None = None,
        commits: CommitLog | None = None,
        sets: tuple[str, ...] = (),
    ) -> None:
        self.root_dir = os.fspath(root)  # as a plain string: the hot commands never load pathlib
        self.store_url = store_url  # None: the files under .agents/ (store_api.open_store)
        self.commits = commits  # the command's log, given to every store this opens
        self.sets = sets  # --set KEY=VALUE pairs: the configuration's last layer
        # what a shell above this layer adds to a next action under worktree isolation (the
        # CLI: absolute paths and where the work is, from git; issue 33), or None
        self.isolated_action: Callable[[App, State, dict[str, Any]], dict[str, Any]] | None = None

    def __repr__(self) -> str:
        return f"App(root={self.root_dir!r}, store_url={self.store_url!r})"

    @classmethod
    def open(
        cls,
        root: str | None,
        store: str | None = None,
        commits: CommitLog | None = None,
        sets: tuple[str, ...] = (),
    ) -> App:
        from agents_state.store.api import store_url

        return cls(find_root_dir(root), store_url(store), commits, sets)

    @cached_property
    def root(self) -> Path:
        """The project's root folder (``root_dir`` as a path)."""
        from pathlib import Path

        return Path(self.root_dir)

    @cached_property
    def store(self) -> WorkflowStore:
        """The workflow's store: the files under ``.agents/`` or the PostgreSQL server."""
        if self.store_url is None:
            return self.file_store
        from agents_state.store.api import open_store

        return open_store(self.root, self.store_url, self.commits)

    @cached_property
    def file_store(self) -> Store:
        """The files under ``.agents/``, for what only that store has (its folder and paths, an
        archive copy): the very object ``store`` is when no server store is in use."""
        return Store(self.root_dir, commits=self.commits)

    @property
    def server_store(self) -> PgStore:
        """The PostgreSQL store, for what only it has (``archive``); only with ``store_url``."""
        from agents_state.store.pg import PgStore

        store = self.store
        if not isinstance(store, PgStore):
            raise TypeError(f"{self!r} has no server store")
        return store

    @cached_property
    def loaded(self) -> LoadedConfig:
        from agents_state.configload import flag_layer, load_config

        return load_config(self.root_dir, flag_layer(self.sets) if self.sets else None)

    @property
    def config(self) -> Config:
        return self.loaded.config

    @cached_property
    def policy(self) -> Policy:
        """What the engine obeys; with no configuration layer (no file, variable or ``--set``),
        the built-in one, without loading the configuration's records (issue 26, start-up)."""
        if "loaded" not in self.__dict__:
            from agents_state.configload import any_layer

            if not any_layer(self.root_dir, bool(self.sets)):
                from agents_state.policy import default_policy

                return default_policy()
        from agents_state.config import policy_from

        return policy_from(self.config)

    def state(self) -> State | None:
        state: State | None = self.store.load()
        return state

    def require(self) -> State:
        state = self.state()
        if state is None:
            raise NotFoundError(
                'no workflow in this directory; start one with: agents-state dispatch "<task>"'
            )
        return state

    def next_action(
        self,
        state: State | None,
        native: bool | None = None,
        advice: bool = True,
        briefs: bool = False,
    ) -> dict[str, Any]:
        """The next action (``engine.next_step``, rendered by ``views``); ``native`` forces the
        fan-out path; ``advice=False``: no compaction advice (the Workflow approval, issue 25);
        ``briefs``: write the briefs it references (a read command writes nothing, issue 35)."""
        from agents_state.views.nextaction import no_workflow_action

        if state is None:
            return no_workflow_action()
        from agents_state.engine.step import next_step
        from agents_state.views import step
        from agents_state.views.nextaction import render

        if native is None:
            native = self.fanout_path().native if state.active else False
        facts = step.facts(self.root_dir, self.config, state, native, advice)
        d = next_step(state, self.config, utcnow(), facts)
        action = render(d)
        if state.git is not None:  # issue 33: the model may have cd'd into a worktree
            from agents_state.views.abspaths import absolute_paths

            action = absolute_paths(action, self.root_dir, state.git.worktrees)
            if self.isolated_action is not None:  # where the work is, from git (the CLI)
                action = self.isolated_action(self, state, action)
        action, files = step.finish(action, d, self.root_dir, self.store_url is None)
        if briefs:
            from agents_state.store.briefs import write_briefs

            write_briefs(self.root_dir, files)
        return action

    def context_size(self) -> tuple[int | None, int | None]:
        """The main conversation's tokens in context and its model's window, when known."""
        from agents_state.views.step import context_size

        return context_size(self.root_dir, self.config)

    def fanout_path(self) -> FanoutPath:
        """Issue 25: whether fan-outs run as the host's Workflow, and why."""
        from agents_state.engine.native import native_path

        return native_path(self.config.fanout.native, self.root_dir)

    # -- transitions ----------------------------------------------------------------------------

    def run(
        self,
        event: ev.Event | Callable[[], ev.Event],
        before: Callable[[State, Outcome], None] | None = None,
    ) -> Outcome:
        """Apply one event under the lock; ``before`` runs after acceptance, before the write.

        ``event`` may be a function that builds the event once the state has been read, so that
        a broken state is reported before anything about the arguments.
        """
        from agents_state.engine import events as ev  # the engine loads only for a transition
        from agents_state.engine.phases import apply

        def mutate(state: State | None) -> Outcome:
            if state is None:
                raise NotFoundError(
                    'no workflow in this directory; start one with: agents-state dispatch "<task>"'
                )
            built = event if isinstance(event, ev.Event) else event()
            # the clock is read under the lock: a claim that waited for it is not born stale
            out = apply(state, built, utcnow(), self.policy)
            if before is not None and out.changed:
                before(out.state, out)
            if out.changed:
                self._write_derived(state, out.state)
            return out

        if not self.store.present():  # never create .agents/ for a command that must fail
            return mutate(None)
        done: Outcome = self.store.commit(mutate)
        return done

    def _write_derived(self, before: State, after: State) -> None:
        """Task summary and stage output files that this transition made due (inside the lock)."""
        if after.files.keys() == before.files.keys():
            return
        from agents_state.views.outcomes import derived_files

        for name, data in derived_files(before, after).items():
            self.store.write_artifact(name, data)


def context_text(root: Path) -> str | None:
    """The context for the workflow under ``root``, or None when there is no active one (the
    session-start hook's text; ``agents-state context`` prints the same)."""
    from agents_state.views.context import load_excerpts, render_context

    app = App.open(str(root))
    state = app.state()
    if state is None or not state.active:
        return None
    server = app.store if app.store_url is not None else None
    return render_context(state, app.next_action(state), load_excerpts(root, state, server))
