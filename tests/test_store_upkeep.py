"""Issue 18: the file store's upkeep calls (``store.upkeep``) in process -- what ``doctor
--repair`` and ``migrate`` move aside or delete: only under the lock, durable (the directory
fsync'd after the rename or the unlink, traced), never through a planted link, never outside
``.agents/``; and migrate's refusals."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import seams
from clitools import invoke

from agents_state.engine import events as ev
from agents_state.engine.phases import Outcome, new_state
from agents_state.errors import InvalidInputError, StorageIOError, TransitionNotAllowedError
from agents_state.store import fsops, lockfile, upkeep
from agents_state.store.files import Store

T0 = datetime(2026, 1, 29, 10, 0, tzinfo=UTC)
A = ".agents"


@pytest.fixture
def store(root: Path) -> Store:
    s = Store(root)
    s.ensure_dirs()
    return s


@pytest.fixture
def trace(monkeypatch: pytest.MonkeyPatch, store: Store) -> list[tuple[str, bool]]:
    """Each file-system call of the store, with whether the lock was held at that moment (by
    this process: another open of ``.agents/`` could not take it)."""
    calls: list[tuple[str, bool]] = []
    monkeypatch.setattr(
        fsops,
        "_check",
        seams.fault_checker("", lambda op: calls.append((op, lockfile.is_held(store.dir)))),
    )
    return calls


def test_upkeep_without_the_lock_is_refused(store: Store) -> None:
    (store.dir / "state.json").write_bytes(b"{")
    calls: list[Callable[[], object]] = [
        lambda: upkeep.move_aside(store, "state.json", ".corrupt"),
        lambda: upkeep.remove(store, ["state.json"]),
        lambda: upkeep.replace_events(store, b""),
        lambda: upkeep.write_state(store, new_state(ev.Start(task="t"), T0), {"rev": 1}),
    ]
    for call in calls:
        with pytest.raises(RuntimeError, match="without the store's lock"):
            call()
    assert (store.dir / "state.json").read_bytes() == b"{"
    assert sorted(os.listdir(store.dir)) == ["phases", "state.json"]


def test_move_aside_renames_under_the_lock_then_fsyncs_the_directory(
    store: Store, trace: list[tuple[str, bool]]
) -> None:
    (store.dir / "state.json").write_bytes(b"{")
    (store.dir / "state.json.corrupt").write_bytes(b"older")
    with store.locked():
        assert upkeep.move_aside(store, "state.json", ".corrupt") is True
        assert upkeep.move_aside(store, "state.json", ".corrupt") is False  # nothing left
    # the second rename finds nothing: no fsync for it
    assert trace == [("aside_replace", True), ("aside_fsync_dir", True), ("aside_replace", True)]
    assert not (store.dir / "state.json").exists()
    assert (store.dir / "state.json.corrupt").read_bytes() == b"{"


def test_remove_deletes_under_the_lock_and_fsyncs_each_directory_once(
    store: Store, trace: list[tuple[str, bool]]
) -> None:
    for name in (".tmp-a", ".tmp-b", "phases/.tmp-c"):
        (store.dir / name).write_bytes(b"x")
    with store.locked():
        gone = upkeep.remove(store, [".tmp-a", ".tmp-b", "phases/.tmp-c", "phases/.tmp-gone"])
    assert gone == 3
    assert trace == [
        ("remove_unlink", True),
        ("remove_unlink", True),
        ("remove_fsync_dir", True),
        ("remove_unlink", True),
        ("remove_unlink", True),
        ("remove_fsync_dir", True),
    ]
    assert sorted(os.listdir(store.dir)) == ["lock-owner", "phases"]
    assert os.listdir(store.phases_dir) == []


def test_a_failed_directory_fsync_is_an_io_error(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    (store.dir / "state.json").write_bytes(b"{")
    (store.dir / ".tmp-a").write_bytes(b"x")
    monkeypatch.setattr(fsops, "_check", seams.fault_checker("aside_fsync_dir:1:EIO"))
    with store.locked(), pytest.raises(StorageIOError) as e:
        upkeep.move_aside(store, "state.json", ".corrupt")
    assert e.value.message == (
        ".agents/state.json: rename to state.json.corrupt failed: Input/output error; "
        "the previous state is unchanged"
    )
    monkeypatch.setattr(fsops, "_check", seams.fault_checker("remove_fsync_dir:1:EIO"))
    with store.locked(), pytest.raises(StorageIOError) as e:
        upkeep.remove(store, [".tmp-a"])
    assert (e.value.path, e.value.operation) == (".agents", "fsync directory")


def test_a_link_as_the_last_name_is_moved_or_removed_itself_never_its_target(
    store: Store, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_bytes(b"keep me")
    os.symlink(outside, store.dir / "state.json")
    os.symlink(outside, store.dir / ".tmp-x")
    os.symlink(outside, store.dir / "state.json.corrupt")  # a planted destination, too
    with store.locked():
        assert upkeep.move_aside(store, "state.json", ".corrupt") is True
        assert upkeep.remove(store, [".tmp-x"]) == 1
    assert outside.read_bytes() == b"keep me"
    assert os.readlink(store.dir / "state.json.corrupt") == str(outside)
    assert not os.path.lexists(store.dir / ".tmp-x")


@pytest.mark.parametrize("call", ["move_aside", "remove"])
def test_a_link_on_the_way_is_refused_and_nothing_outside_is_touched(
    store: Store, tmp_path: Path, call: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "state.json").write_bytes(b"theirs")
    os.symlink(elsewhere, store.dir / "tmp")
    with store.locked(), pytest.raises(InvalidInputError) as e:
        if call == "move_aside":
            upkeep.move_aside(store, "tmp/state.json", ".migrated")
        else:
            upkeep.remove(store, ["tmp/state.json"])
    assert e.value.message.startswith(
        ".agents/tmp: is a symbolic link, not a directory; agents-state does not follow links"
    )
    assert os.listdir(elsewhere) == ["state.json"]
    assert (elsewhere / "state.json").read_bytes() == b"theirs"


def test_an_agents_folder_out_of_the_tree_is_refused(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "phases").mkdir(parents=True)
    (elsewhere / ".tmp-x").write_bytes(b"theirs")
    os.symlink(elsewhere, root / A)
    store = Store(root)
    store.holding = True  # the lock itself would be taken out there: pretend, to reach the check
    with pytest.raises(InvalidInputError, match="resolves outside the project"):
        upkeep.remove(store, [".tmp-x"])
    assert (elsewhere / ".tmp-x").read_bytes() == b"theirs"


@pytest.mark.parametrize("name", ["../x", "/etc/passwd", "a//b", "phases/../../x", ""])
def test_a_name_that_is_not_under_agents_is_a_bug(store: Store, name: str) -> None:
    with store.locked(), pytest.raises(ValueError, match=r"not a path under \.agents/"):
        upkeep.remove(store, [name])


def test_write_state_writes_backup_and_event_under_the_lock(
    store: Store, trace: list[tuple[str, bool]]
) -> None:
    state = new_state(ev.Start(task="t"), T0)
    with store.locked():
        upkeep.write_state(store, state, {"rev": 1, "event": "doctor_restore"})
    assert store.load() == state
    assert store.backup_path.read_bytes() == store.state_path.read_bytes()
    assert store.events() == [{"rev": 1, "event": "doctor_restore"}]
    assert trace and all(held for _, held in trace)
    assert [op for op, _ in trace][:7] == [
        *("write", "fsync", "replace"),
        *("view_write", "view_fsync", "view_replace"),  # the hooks' view (issue 35)
        "fsync_dir",
    ]


def test_replace_events_keeps_the_damaged_log(store: Store, trace: list[tuple[str, bool]]) -> None:
    store.events_path.write_bytes(b'{"rev": 1}\n{"rev": \n')
    with store.locked():
        upkeep.replace_events(store, b'{"rev": 1}\n')
    assert (store.dir / "events.jsonl.damaged").read_bytes() == b'{"rev": 1}\n{"rev": \n'
    assert store.events() == [{"rev": 1}]
    assert [op for op, _ in trace] == [
        "aside_replace",
        "aside_fsync_dir",
        "write",
        "fsync",
        "replace",
        "fsync_dir",
    ]
    assert all(held for _, held in trace)


# -- migrate ----------------------------------------------------------------------------------

V1 = {"task": "Add search", "currentPhase": "1.1", "stages": {}}


def test_migrate_renames_its_source_under_the_lock(
    root: Path, trace: list[tuple[str, bool]]
) -> None:
    (root / A / "subagents-state.json").write_text(json.dumps(V1))
    proc = invoke(["--root", str(root), "migrate"])
    assert proc.returncode == 0, proc.stderr
    assert ("aside_replace", True) in trace and ("aside_fsync_dir", True) in trace
    assert (root / A / "subagents-state.json.migrated").exists()


def test_migrate_refuses_when_a_state_appeared_meanwhile(root: Path, store: Store) -> None:
    from agents_state.store.migration import _apply

    (root / A / "subagents-state.json").write_text(json.dumps(V1))
    first = new_state(ev.Start(task="first"), T0)
    store.commit(lambda old: Outcome(first, "started", True, {"rev": 1, "event": "start"}))
    with pytest.raises(TransitionNotAllowedError):
        _apply(store, new_state(ev.Start(task="x"), T0), ".agents/subagents-state.json", [])
    assert store.load() == first
    assert (root / A / "subagents-state.json").exists()  # not renamed: nothing was migrated


def test_migrate_on_a_server_store_says_how_instead_of_crashing(root: Path) -> None:
    (root / A).mkdir()
    (root / A / "subagents-state.json").write_text(json.dumps(V1))
    url = "postgresql://me@127.0.0.1:1/db?workflow=w"
    proc = invoke(["--root", str(root), "--store", url, "migrate"])
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "agents-state: error: migrate works on the files under .agents/: run it without "
        "--store (and without AGENTS_STATE_STORE), then copy the workflow: agents-state store "
        "copy --from . --to URL\n"
    )
    assert os.listdir(root / A) == ["subagents-state.json"]
