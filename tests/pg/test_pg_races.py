"""Issue 17: races and kills of real CLI processes on the PostgreSQL store, from two working
directories that stand for two hosts (neither holds ``.agents/``; only the URL is shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clitools import race, wave_of

from agents_state.store.pg import PgStore

from . import pgrace


@pytest.fixture
def hosts(tmp_path: Path) -> list[Path]:
    out = [tmp_path / "host-a", tmp_path / "host-b"]
    for h in out:
        h.mkdir()
    return out


def _wave(root: Path, url: str, n: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("AGENTS_STATE_STORE", url)
    ids = wave_of(root, n, "race")
    monkeypatch.delenv("AGENTS_STATE_STORE")
    return ids


def _gap_free(store: PgStore) -> int:
    state = store.load()
    assert state is not None
    revs = [e["rev"] for e in store.events()]
    assert revs == list(range(1, state.revision + 1))
    return state.revision


@pytest.mark.slow
def test_50_concurrent_claims_from_two_hosts_get_50_distinct_tasks_then_50_dones(
    root: Path, pg_url: str, hosts: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _wave(root, pg_url, 50, monkeypatch)
    store = PgStore(pg_url, root)
    rev0 = _gap_free(store)
    env = pgrace.env_for(pg_url)
    results = race(
        [["task", "claim", "--agent", f"a{i}", "--json"] for i in range(50)], cwds=hosts, env=env
    )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results if r.returncode]
    won = [json.loads(r.stdout)["task"] for r in results]
    assert sorted(won) == sorted(ids)  # each exactly once
    tasks = pgrace.tasks_of(store.load())
    assert {tasks[t].owner for t in ids} == {f"a{i}" for i in range(50)}
    assert _gap_free(store) == rev0 + 50
    results = race(
        [["task", "done", t, "--force", "--summary", f"did {t}"] for t in ids], cwds=hosts, env=env
    )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results if r.returncode]
    tasks = pgrace.tasks_of(store.load())
    assert all(tasks[t].status == "completed" for t in ids)
    assert _gap_free(store) == rev0 + 100
    assert not any(h.joinpath(".agents").exists() for h in [*hosts, root])


@pytest.mark.slow
def test_kill9_torture_on_postgresql_loses_nothing(
    root: Path,
    pg_url: str,
    hosts: list[Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ids = _wave(root, pg_url, 300, monkeypatch)
    res = pgrace.torture(pg_url, hosts, ids[:-1], seconds=12)
    with capsys.disabled():
        print(
            f"\npg torture: {res.kills} kills, {res.commands} commands, {len(res.acked)} "
            f"acknowledged, torn reads {len(res.torn)} of {res.reads}"
        )
    assert res.kills >= 5 and len(res.acked) >= 5
    assert res.unexpected == []
    assert res.torn == [] and res.reads > 10 and res.backwards == 0
    store = PgStore(pg_url, root)
    tasks = pgrace.tasks_of(store.load())
    done = {t for t in ids if tasks[t].status == "completed"}
    assert res.acked <= done  # every acknowledged update is there
    assert done <= res.attempted  # and nothing that was never asked for
    _gap_free(store)  # a kill never leaves a state without its event: one transaction
    [proc] = race([["task", "done", ids[-1], "--force"]], cwds=hosts, env=pgrace.env_for(pg_url))
    assert proc.returncode == 0, proc.stderr
