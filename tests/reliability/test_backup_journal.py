"""Issue 35, item 4: the last-good copy is a base (``state.json.bak``) and a journal of each
later commit's change (``state.json.journal``), not a second full copy on every update.  At
every step the base with the journal replayed is the state; a commit appends only when the
journal ends at the state it read, and otherwise writes a new base (a hand edit, a deleted or
planted base, a torn journal, a failed append); ``doctor --repair`` restores from the replay
and loses nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import seams
from clitools import cli_json, run_cli, wave_of

from agents_state.store.backup import read_backup, replay
from agents_state.store.files import Store

A = ".agents"


def _state(root: Path) -> bytes:
    return (root / A / "state.json").read_bytes()


def _backup(root: Path) -> bytes | None:
    return read_backup(Store(root))


def _ok(root: Path, *args: str, stdin: str | None = None) -> None:
    proc = run_cli(root, *args, stdin=stdin)
    assert proc.returncode == 0, proc.stderr


def test_every_update_of_a_wave_appends_and_the_replay_is_the_state(root: Path) -> None:
    ids = wave_of(root, 4)
    base = (root / A / "state.json.bak").read_bytes()
    journal = (root / A / "state.json.journal").stat().st_size
    steps: list[tuple[str, ...]] = [("task", "start", ids[0]), ("task", "done", ids[0])]
    steps += [("task", "done", t, "--force") for t in ids[1:]]
    for args in steps:
        _ok(root, *args)
        assert _backup(root) == _state(root), args
        grown = (root / A / "state.json.journal").stat().st_size
        assert grown > journal  # appended ...
        journal = grown
    assert (root / A / "state.json.bak").read_bytes() == base  # ... and the base untouched


def test_a_journal_change_names_only_the_tasks_that_changed(root: Path) -> None:
    ids = wave_of(root, 6)
    size = (root / A / "state.json.journal").stat().st_size
    _ok(root, "task", "done", ids[2], "--force")
    last = (root / A / "state.json.journal").read_bytes()[size:]
    assert last.count(b'"id":"t') <= 1 and b'"t2"' in last  # t2's record, not its siblings'
    assert b'"t4":{' not in last


def test_a_hand_edit_between_commits_starts_a_new_base(root: Path) -> None:
    ids = wave_of(root, 3)
    _ok(root, "task", "done", ids[0], "--force")
    path = root / A / "state.json"
    path.write_bytes(path.read_bytes().replace(b'"task": "test"', b'"task": "edited"', 1))
    _ok(root, "task", "done", ids[1], "--force")
    assert (root / A / "state.json.bak").read_bytes() == _state(root)  # a new base
    assert b'"edited"' in _state(root) and _backup(root) == _state(root)


@pytest.mark.parametrize("damage", ["torn tail", "no base", "base link", "journal gone"])
def test_a_journal_that_does_not_end_at_the_state_read_is_written_anew(
    root: Path, tmp_path: Path, damage: str
) -> None:
    ids = wave_of(root, 3)
    _ok(root, "task", "done", ids[0], "--force")
    journal, bak = root / A / "state.json.journal", root / A / "state.json.bak"
    if damage == "torn tail":
        with open(journal, "r+b") as f:
            f.truncate(journal.stat().st_size - 3)
    elif damage == "no base":
        bak.unlink()
    elif damage == "base link":
        bak.unlink()
        (tmp_path / "elsewhere").write_bytes(b"{}")
        bak.symlink_to(tmp_path / "elsewhere")
    else:
        journal.unlink()
    _ok(root, "task", "done", ids[1], "--force")
    assert not bak.is_symlink() and bak.read_bytes() == _state(root)
    assert (tmp_path / "elsewhere").read_bytes() == b"{}" if damage == "base link" else True
    assert _backup(root) == _state(root)


def test_a_failed_append_is_told_and_the_next_commit_writes_a_new_base(root: Path) -> None:
    ids = wave_of(root, 3)
    journal = root / A / "state.json.journal"
    before = journal.read_bytes()
    with pytest.MonkeyPatch.context() as mp:
        seams.install(mp.setattr, fault="journal_fsync:1:EIO")
        proc = run_cli(root, "task", "done", ids[0], "--force")
    assert proc.returncode == 0
    assert "state.json.journal: write failed: Input/output error; the state was saved" in (
        proc.stderr
    )
    assert journal.read_bytes() == before  # cut back: no fragment
    assert _backup(root) != _state(root)
    assert "old_backup" in [f["code"] for f in cli_json(root, "doctor")["findings"]]
    _ok(root, "task", "done", ids[1], "--force")
    assert (root / A / "state.json.bak").read_bytes() == _state(root)


def test_doctor_restores_from_the_base_and_the_journal_losing_nothing(root: Path) -> None:
    ids = wave_of(root, 3)
    for t in ids:
        _ok(root, "task", "done", t, "--force")
    good = _state(root)
    assert (root / A / "state.json.bak").read_bytes() != good  # the journal holds the rest
    (root / A / "state.json").write_bytes(b"{")
    proc = run_cli(root, "doctor", "--repair")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rev = int(good.split(b'"revision": ')[1].split(b",")[0])
    assert f"(revision {rev}, now revision {rev + 1})" in proc.stdout
    assert proc.stdout.endswith("lost: nothing\n")
    assert cli_json(root, "status")["workflow"]["revision"] == rev + 1


def test_the_replay_stops_at_a_change_that_does_not_give_its_checksum(root: Path) -> None:
    ids = wave_of(root, 3)
    base = (root / A / "state.json.bak").read_bytes()
    _ok(root, "task", "done", ids[0], "--force")
    one = _state(root)
    _ok(root, "task", "done", ids[1], "--force")
    lines = (root / A / "state.json.journal").read_bytes().split(b"\n")
    assert replay(base, b"\n".join(lines)) == _state(root)
    # [..., t0's change, its line, t1's change, its line, ""]: t1's change altered
    bad = lines[-3].replace(b'"status":"completed"', b'"status":"failed"', 1)
    assert bad != lines[-3]
    assert replay(base, b"\n".join([*lines[:-3], bad, *lines[-2:]])) == one
    assert replay(b"{}", b"\n".join(lines)) == b"{}"  # another base: the base as it is
    assert os.path.getsize(root / A / "state.json.bak") == len(base)
