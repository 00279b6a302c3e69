"""Issue 26: the store seam is typed (both stores against one protocol, checked by mypy in
``store/api.py``) and "the update was saved" travels in the command's own ``CommitLog``, not in a
process-wide list."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from clitools import run_cli

from agents_state.app import App
from agents_state.engine import events as ev
from agents_state.engine.phases import Outcome, new_state
from agents_state.models import State
from agents_state.store import files
from agents_state.store.api import WorkflowStore, open_store
from agents_state.store.commits import CommitLog
from agents_state.store.files import Store

T0 = datetime(2026, 1, 29, 10, 0, tzinfo=UTC)


def _start(state: State | None) -> Outcome:
    new = new_state(ev.Start(task="t"), T0)
    new.revision = 1 if state is None else state.revision + 1
    return Outcome(new, "started", True, {"rev": new.revision})


def test_a_store_notes_its_commits_in_the_log_it_was_given(tmp_path: Path) -> None:
    log = CommitLog()
    store = open_store(tmp_path, None, log)
    assert isinstance(store, WorkflowStore)
    store.commit(_start)
    store.commit(_start)
    assert log.saved == ["revision 1", "revision 2"] and log.last == "revision 2"


def test_a_store_without_a_log_notes_nothing_anywhere(tmp_path: Path) -> None:
    Store(tmp_path).commit(_start)
    assert not hasattr(files, "committed") and not hasattr(files, "note_commit")


def test_an_app_hands_its_log_to_the_store_it_opens(tmp_path: Path) -> None:
    log = CommitLog()
    app = App(tmp_path, None, log)
    assert app.store is app.file_store and app.file_store.commits is log
    app.store.commit(_start)
    assert log.last == "revision 1"


def test_one_command_does_not_inherit_the_commit_of_the_one_before(root: Path) -> None:
    """Several commands in one process (as in tests): a refusal after a commit by the previous
    command is reported as a refusal, not as "saved but not reported" (exit 8)."""
    assert run_cli(root, "dispatch", "x").returncode == 0
    proc = run_cli(root, "phase", "start", "2.1")
    assert proc.returncode == 4
    assert proc.stderr == (
        "agents-state: error: phase 2.1 is pending: cannot start (the current phase is 0)\n"
    )
