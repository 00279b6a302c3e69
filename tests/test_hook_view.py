"""Issue 35, item 4: the hooks' view.  A commit writes ``.agents/hook-view.json`` (the few
fields the PreToolUse hook reads) naming the very ``state.json`` it was made with; the hook
reads the view instead of the state, and reads the state itself whenever the view is missing,
unreadable or names another file (a hand edit in place, a replaced or restored state, a failed
view write): the view is never trusted over the state."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
import seams
from clitools import run_cli

from agents_state.engine import events as ev
from agents_state.engine.phases import Outcome, new_state
from agents_state.hooks import workflow_root
from agents_state.models import State
from agents_state.store.files import Store

T0 = datetime(2026, 1, 29, 10, 0, tzinfo=UTC)


def _start(state: State | None) -> Outcome:
    return Outcome(new_state(ev.Start(task="t"), T0), "started", True, {"rev": 1})


@pytest.fixture
def wf(root: Path) -> Path:
    Store(root).commit(_start)
    return root


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the hook's reader opens."""
    opened: list[str] = []
    real = workflow_root.read_regular

    def spy(path: str, limit: int) -> bytes:
        opened.append(os.path.basename(path))
        return real(path, limit)

    monkeypatch.setattr(workflow_root, "read_regular", spy)
    return opened


def test_a_commit_writes_the_view_of_its_state(wf: Path) -> None:
    view = json.loads((wf / ".agents/hook-view.json").read_bytes())
    st = os.stat(wf / ".agents/state.json")
    assert view["state"] == [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    assert (view["revision"], view["status"], view["aborted"]) == (1, "in_progress", False)


def test_the_hook_reads_the_view_not_the_state(wf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = _reads(monkeypatch)
    found = workflow_root.read_workflow(str(wf))
    assert found is not None and found.active and found.problem is None
    assert opened == ["hook-view.json"]


def test_an_aborted_workflow_is_inactive_in_the_view(wf: Path) -> None:
    assert run_cli(wf, "resume", "--abort").returncode == 0
    assert json.loads((wf / ".agents/hook-view.json").read_bytes())["aborted"] is True
    found = workflow_root.read_workflow(str(wf))
    assert found is not None and not found.active


def _edit_in_place(path: Path) -> None:
    data = path.read_bytes()
    new = data.replace(b'"status": "in_progress"', b'"status": "completed"  ', 1)
    assert len(new) == len(data) and new != data  # the same size: only the times tell
    with open(path, "r+b") as f:
        f.write(new)


def _replace_with_copy(path: Path) -> None:
    data = path.read_bytes().replace(b'"status": "in_progress"', b'"status": "completed"', 1)
    tmp = path.with_name("copy")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(_edit_in_place, id="state edited in place"),
        pytest.param(_replace_with_copy, id="state replaced by another file"),
    ],
)
def test_a_view_of_another_state_file_is_not_trusted(
    wf: Path, monkeypatch: pytest.MonkeyPatch, damage: object
) -> None:
    assert callable(damage)
    damage(wf / ".agents/state.json")
    opened = _reads(monkeypatch)
    found = workflow_root.read_workflow(str(wf))
    assert found is None or not found.active  # what state.json says: completed
    assert opened[:2] == ["hook-view.json", "state.json"]


@pytest.mark.parametrize("view", [None, b"", b"{not json", b"[]", b'{"state": [1, 2]}'])
def test_a_missing_or_bad_view_reads_the_state(
    wf: Path, monkeypatch: pytest.MonkeyPatch, view: bytes | None
) -> None:
    path = wf / ".agents/hook-view.json"
    if view is None:
        path.unlink()
    else:
        path.write_bytes(view)
    opened = _reads(monkeypatch)
    found = workflow_root.read_workflow(str(wf))
    assert found is not None and found.active
    assert opened[-1] == "state.json"


def test_a_view_that_cannot_be_written_warns_and_the_hook_reads_the_state(
    wf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.MonkeyPatch.context() as mp:
        seams.install(mp.setattr, fault="view_write:1:ENOSPC")
        proc = run_cli(wf, "resume", "--abort")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        "agents-state: warning: .agents/hook-view.json: write failed: No space left on "
        "device; the hooks read the state itself until the next update\n"
    )
    assert b'"abortedAt"' in (wf / ".agents/state.json").read_bytes()
    assert [n for n in os.listdir(wf / ".agents") if n.startswith(".tmp-")] == []
    opened = _reads(monkeypatch)
    found = workflow_root.read_workflow(str(wf))
    assert found is not None and not found.active  # the old view says active: not trusted
    assert "state.json" in opened
