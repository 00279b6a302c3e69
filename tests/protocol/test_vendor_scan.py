"""Issue 32 item 3: one scan scope for the guard and the room.  The room's scan also finds the
credential files inside ``.venv``, ``node_modules`` and caches (``hooks/vendorscan.py``), with an
exact remembered answer kept as git keeps its index: every folder's time, the changed folders
listed again, a folder as new as its listing ("racy") listed again next call.  (The room reading
them empty, for real: ``test_sandbox_containment.py``.)"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents_state.hooks import sandbox, scancache, secretscan, vendorcache, vendorscan
from agents_state.hooks.profile_check import subagent_denial

DEEP = ("node_modules", "pkg", "lib", "deep")


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="agents-state-vendor-", dir="/var/tmp")).resolve()
    project = base / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("x = 1\n")
    for folder in ("node_modules/pkg/lib/deep", ".venv/lib/site", "web/node_modules/a"):
        (project / folder).mkdir(parents=True)
        (project / folder / "index.js").write_text("x\n")
    (base / "home").mkdir()
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    _settle(project)
    try:
        yield project
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _settle(root: Path) -> None:
    """Folder times older than the scan's two seconds of doubt."""
    old = time.time() - 60
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        os.utime(folder, (old, old))


def _found(root: Path) -> list[str]:
    return secretscan.find_secrets(str(root), os.environ["HOME"])


def _cache() -> dict[str, Any]:
    [path] = Path(secretscan.cache_dir()).glob("vendor-????????.bin")
    root = str(path).split("/.cache/")[0]  # the fixture's home
    answer = vendorcache.load(str(path), str(Path(root).parent / "proj"), root)
    assert answer is not None
    trees, dirs, found, racy = answer
    return {"trees": trees, "dirs": dirs, "found": found, "racy": racy}


def _listed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the next calls list (walked or listed again)."""
    seen: list[str] = []
    list_one = vendorscan._Scan.list_one

    def spy(self: vendorscan._Scan, rel: str) -> list[str]:
        seen.append(rel)
        return list_one(self, rel)

    monkeypatch.setattr(vendorscan._Scan, "list_one", spy)
    return seen


def test_credential_files_inside_skipped_folders_are_found(root: Path) -> None:
    deep = root.joinpath(*DEEP, ".env")
    deep.write_text("K=1\n")
    site = root / ".venv" / "lib" / "site" / ".env"
    site.write_text("K=1\n")
    (root / "web" / "node_modules" / "a" / ".npmrc").write_text("//r/:_authToken=t\n")
    _settle(root)
    found = _found(root)
    assert {str(deep), str(site), str(root / "web" / "node_modules" / "a" / ".npmrc")} <= set(found)
    assert str(root.joinpath(*DEEP, "index.js")) not in found
    assert {d.split("/")[0] for d in _cache()["dirs"]} == {".venv", "node_modules", "web"}


def test_the_answer_is_remembered_and_nothing_listed_when_nothing_changed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root.joinpath(*DEEP, ".env").write_text("K=1\n")
    _settle(root)
    first = _found(root)
    listed = _listed(monkeypatch)
    assert _found(root) == first
    assert listed == []


def test_a_deep_change_is_seen_by_the_next_call_listing_only_its_folder(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window the background check of the last round left open (a file created below a
    package's own folder): closed, the next call sees it."""
    first = _found(root)
    deep = root.joinpath(*DEEP, ".env")
    deep.write_text("K=1\n")
    listed = _listed(monkeypatch)
    assert str(deep) in _found(root) and str(deep) not in first
    assert listed == ["/".join(DEEP)]


def test_a_removed_or_renamed_folder_is_followed(root: Path) -> None:
    deep = root.joinpath(*DEEP, ".env")
    deep.write_text("K=1\n")
    _settle(root)
    assert str(deep) in _found(root)
    (root / "node_modules" / "pkg").rename(root / "node_modules" / "moved")
    found = _found(root)
    assert str(deep) not in found
    assert str(root / "node_modules" / "moved" / "lib" / "deep" / ".env") in found
    assert not any(d.startswith("node_modules/pkg") for d in _cache()["dirs"])
    shutil.rmtree(root / "node_modules" / "moved")
    assert not any("/moved/" in f for f in _found(root))


def test_a_folder_as_new_as_its_listing_is_listed_again(root: Path) -> None:
    """The "racy git" rule: a file added within the time's grain can leave the folder's time
    as it was; a folder changed near the listing is listed again on the next call."""
    folder = root.joinpath(*DEEP)
    now = time.time()
    os.utime(folder, (now, now))
    _found(root)
    assert "/".join(DEEP) in _cache()["racy"]
    mtime = folder.stat().st_mtime_ns
    (folder / ".env").write_text("K=1\n")
    os.utime(folder, ns=(mtime, mtime))  # the same time as remembered: a coarse clock
    assert str(folder / ".env") in _found(root)


def test_a_hard_link_to_a_home_credential_is_found_and_a_store_link_is_not(
    root: Path,
) -> None:
    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("key\n")
    (home / "store.js").write_text("x\n")  # a pnpm store: every package file is a link
    _found(root)
    os.link(home / ".ssh" / "id_rsa", root / ".venv" / "lib" / "site" / "notes.txt")
    os.link(home / "store.js", root.joinpath(*DEEP, "util.js"))
    found = _found(root)
    assert str(root / ".venv" / "lib" / "site" / "notes.txt") in found
    assert str(root.joinpath(*DEEP, "util.js")) not in found


def test_skipped_folders_too_large_to_walk_fail_closed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is not installed (apt-get install bubblewrap)")
    for i in range(30):
        (root / "node_modules" / f"p{i}").mkdir()
    _settle(root)
    _found(root)  # the project itself is small: remembered
    (root / "node_modules" / "new").mkdir()
    (root / "node_modules" / "new" / "sub").mkdir()  # the tree changed: the new folder walked
    monkeypatch.setattr(secretscan, "SCAN_CAP", 0)
    monkeypatch.setattr(scancache, "SCAN_CAP", 0)  # the skipped folders' walk reads it there
    monkeypatch.chdir(root)
    got = subagent_denial(
        {
            "session_id": "s",
            "cwd": str(root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
            "agent_id": "a1",
            "agent_type": "subagents:quality-validator",
        },
        None,
    )
    assert not isinstance(got, sandbox.Rewrite)
    assert got == (
        "agents-state: the validator profile runs Bash in a sandbox that hides the project's "
        f"credential files, and more than 0 files and folders under {root}/node_modules, "
        "so they cannot all be found; denied."
    )


def test_a_walk_cut_short_goes_on_at_the_next_call(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trees too large to list within one call's deadline deny that call but keep what was
    listed: the next calls go on from there, and the one that finishes runs."""
    from agents_state.hooks import walk

    for i in range(6):
        (root / "node_modules" / f"p{i}" / "q").mkdir(parents=True)
    (root / "node_modules" / "p5" / "q" / ".env").write_text("K=1\n")
    _settle(root)
    ticks = iter(range(0, 10_000, 3))  # each folder listed costs 3 "seconds" of the call's 5
    monkeypatch.setattr("time.monotonic", lambda: float(next(ticks)))
    denied = 0
    while True:
        try:
            found = _found(root)
            break
        except walk.WalkCapError as e:
            assert e.timed_out
            denied += 1
            assert denied < 30, "no progress"
    assert denied >= 2
    assert str(root / "node_modules" / "p5" / "q" / ".env") in found
