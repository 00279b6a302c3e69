"""Issue 18: the store and the application shell in process (no subprocess): what a commit
writes and when, what a refused update leaves, the lock, and ``App``'s dispatch, archive, run and
complete_phase."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agents_state.app import App
from agents_state.engine import events as ev
from agents_state.engine.phases import Outcome, apply, new_state
from agents_state.errors import (
    InvalidInputError,
    LockTimeoutError,
    NotFoundError,
    StateFileError,
    TransitionNotAllowedError,
)
from agents_state.models import State
from agents_state.store.files import Store
from agents_state.store.paths import find_root_dir
from agents_state.verbs.completing import complete_phase
from agents_state.verbs.start import start_workflow

T0 = datetime(2026, 1, 29, 10, 0, tzinfo=UTC)
A = ".agents"


def _start(state: State | None) -> Outcome:
    assert state is None
    new = new_state(ev.Start(task="t"), T0)
    return Outcome(new, "started", True, {"rev": 1, "event": "start"})


def _move(event: ev.Event) -> object:
    def mutate(state: State | None) -> Outcome:
        assert state is not None
        return apply(state, event, T0)

    return mutate


def _files(root: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _dirs, names in os.walk(root / A):
        for n in names:
            p = Path(dirpath) / n
            if n not in ("state.lock", "lock-owner"):
                out[str(p.relative_to(root))] = p.read_bytes()
    return out


# -- store ---------------------------------------------------------------------------------------


def test_first_commit_writes_state_backup_event_and_gitignore(root: Path) -> None:
    store = Store(root)
    assert store.load() is None
    out = store.commit(_start)
    assert out.message == "started"
    state = json.loads((root / A / "state.json").read_bytes())
    assert (state["revision"], state["task"]) == (1, "t")
    assert (root / A / "state.json.bak").read_bytes() == (root / A / "state.json").read_bytes()
    assert store.events() == [{"rev": 1, "event": "start"}]
    assert (root / A / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (root / A / "phases").is_dir()
    loaded = store.load()
    assert loaded is not None and loaded.to_json_dict() == out.state.to_json_dict()


def test_commit_reads_fresh_under_the_lock(root: Path) -> None:
    Store(root).commit(_start)
    first, second = Store(root), Store(root)
    first.load()  # a reader's copy taken before the other update
    second.commit(_move(ev.PhaseStart(phase="0")))  # type: ignore[arg-type]
    seen: list[int] = []

    def mutate(state: State | None) -> Outcome:
        assert state is not None
        seen.append(state.revision)
        return apply(state, ev.Stop(), T0)

    first.commit(mutate)
    assert seen == [2]
    assert [e["rev"] for e in first.events()] == [1, 2, 3]


def test_an_unchanged_outcome_writes_nothing(root: Path) -> None:
    store = Store(root)
    store.commit(_start)
    store.commit(_move(ev.PhaseStart(phase="0")))  # type: ignore[arg-type]
    before = _files(root)
    out = store.commit(_move(ev.PhaseStart(phase="0")))  # type: ignore[arg-type]
    assert (out.changed, out.message) == (False, "phase 0 already in progress")
    assert _files(root) == before


def test_a_refused_update_leaves_every_file_and_the_lock_free(root: Path) -> None:
    store = Store(root)
    store.commit(_start)
    before = _files(root)
    with pytest.raises(TransitionNotAllowedError) as e:
        store.commit(_move(ev.PhaseStart(phase="2.1")))  # type: ignore[arg-type]
    assert str(e.value) == "phase 2.1 is pending: cannot start (the current phase is 0)"
    assert _files(root) == before
    assert not [n for n in os.listdir(root / A) if n.startswith(".tmp-")]
    Store(root, lock_timeout=0).commit(_move(ev.PhaseStart(phase="0")))  # type: ignore[arg-type]


def test_a_held_lock_times_out_naming_the_holder(root: Path) -> None:
    store = Store(root)
    store.commit(_start)
    before = _files(root)
    with store.locked(), pytest.raises(LockTimeoutError) as e:
        Store(root, lock_timeout=0).commit(_move(ev.Stop()))  # type: ignore[arg-type]
    assert re.fullmatch(
        rf"\.agents/: lock still held after 0s by pid {os.getpid()} "
        r"\(.+, took it -?\d+s ago\); retry, or run 'agents-state doctor' "
        "if that process is gone",
        str(e.value),
    ), str(e.value)
    assert _files(root) == before


def test_lock_timeout_from_the_environment(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTS_STATE_LOCK_TIMEOUT", "2.5")
    assert Store(root).lock_timeout == 2.5
    monkeypatch.setenv("AGENTS_STATE_LOCK_TIMEOUT", "soon")
    with pytest.raises(InvalidInputError) as e:
        Store(root)
    assert str(e.value) == (
        "environment AGENTS_STATE_LOCK_TIMEOUT: 'soon' is not a number of "
        "seconds to wait for the lock (write e.g. 10)"
    )


def test_a_state_lost_next_to_its_backup_is_not_no_workflow(root: Path) -> None:
    store = Store(root)
    store.commit(_start)
    (root / A / "state.json").unlink()
    with pytest.raises(StateFileError) as e:
        store.load()
    assert str(e.value).startswith(".agents/state.json: is missing, but .agents/state.json.bak")
    with pytest.raises(StateFileError):
        store.commit(_start)


def test_a_symlinked_state_is_refused(root: Path, tmp_path: Path) -> None:
    (root / A).mkdir()
    (tmp_path / "elsewhere.json").write_text("{}")
    (root / A / "state.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(StateFileError) as e:
        Store(root).read_bytes()
    assert "is a symbolic link" in str(e.value)


def test_artifacts_are_written_under_phases_and_names_are_checked(root: Path) -> None:
    store = Store(root)
    assert store.write_artifact("0-explore.md", b"# notes\n") == ".agents/phases/0-explore.md"
    assert (root / A / "phases" / "0-explore.md").read_bytes() == b"# notes\n"
    with pytest.raises(InvalidInputError) as e:
        store.write_artifact("../escape.md", b"x")
    assert "is not allowed" in str(e.value)
    assert not (root / A / "escape.md").exists()


def test_a_broken_event_log_names_the_line(root: Path) -> None:
    store = Store(root)
    store.commit(_start)
    with open(root / A / "events.jsonl", "ab") as f:
        f.write(b"{not json\n")
    with pytest.raises(InvalidInputError) as e:
        store.events()
    assert str(e.value) == ".agents/events.jsonl: line 2: not valid JSON"


def test_find_root_prefers_explicit_then_the_nearest_agents_folder(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_root_dir(None, str(deep)) == str(deep)  # none anywhere: the working directory
    (tmp_path / "a" / A).mkdir()
    assert find_root_dir(None, str(deep)) == str(tmp_path / "a")
    assert find_root_dir(str(tmp_path), str(deep)) == str(tmp_path)


# -- app -----------------------------------------------------------------------------------------


def test_dispatch_refuses_a_second_workflow_and_replace_archives_it(root: Path) -> None:
    app = App(root)
    out = start_workflow(app, "first task")
    assert out.message == "workflow started: first task"
    complete_phase(app, "0", b"# notes\n")
    with pytest.raises(TransitionNotAllowedError) as e:
        start_workflow(App(root), "second task")
    assert str(e.value).startswith(
        "workflow is active (in_progress, phase 1.1): cannot start another"
    )
    old = (root / A / "state.json").read_bytes()
    out = start_workflow(App(root), "second task", replace=True)
    archived = out.record["archived"]
    assert out.message == f"workflow started: second task (previous one archived to {archived})"
    assert archived.startswith(".agents/archive/")
    assert (root / archived / "state.json").read_bytes() == old
    assert (root / archived / "phases" / "0-explore.md").read_bytes() == b"# notes\n"
    assert list((root / A / "phases").iterdir()) == []
    state = App(root).require()
    assert (state.task, state.revision, state.currentPhase) == ("second task", 3, "0")


def test_run_without_a_workflow_creates_nothing(root: Path) -> None:
    app = App(root)
    with pytest.raises(NotFoundError) as e:
        app.run(ev.PhaseStart(phase="0"))
    assert str(e.value) == (
        'no workflow in this directory; start one with: agents-state dispatch "<task>"'
    )
    assert not (root / A).exists()
    with pytest.raises(NotFoundError):
        app.require()
    assert app.next_action(None)["kind"] == "start"


def test_run_builds_the_event_after_reading_and_calls_before_only_on_change(root: Path) -> None:
    app = App(root)
    start_workflow(app, "x")
    calls: list[str] = []
    out = app.run(lambda: ev.PhaseStart(phase="0"), lambda s, o: calls.append(o.message))
    assert calls == ["phase 0 Parallel Explore started"] and out.state.revision == 2
    app.run(ev.PhaseStart(phase="0"), lambda s, o: calls.append("again"))
    assert calls == ["phase 0 Parallel Explore started"]


def test_complete_phase_writes_the_artifact_inside_the_accepted_update(root: Path) -> None:
    app = App(root)
    start_workflow(app, "x")
    with pytest.raises(TransitionNotAllowedError):
        complete_phase(app, "1.1", b"too early")
    assert not (root / A / "phases" / "1-brainstorm.md").exists()
    out = complete_phase(app, "0", b"# notes\n")
    assert out.state.files["explore"] == ".agents/phases/0-explore.md"
    assert (root / A / "phases" / "0-explore.md").read_bytes() == b"# notes\n"


def test_complete_phase_reads_an_artifact_already_written(root: Path) -> None:
    app = App(root)
    start_workflow(app, "x")
    with pytest.raises(NotFoundError) as e:
        complete_phase(app, "0", None)
    assert str(e.value) == (
        "phase 0 needs its artifact: write .agents/phases/0-explore.md or "
        "pass --artifact FILE (or --artifact - for stdin)"
    )
    (root / A / "phases" / "0-explore.md").write_text("# by the agent\n")
    assert complete_phase(app, "0", None).state.currentPhase == "1.1"


def test_a_review_with_blocking_issues_sends_the_work_back(root: Path) -> None:
    app = App(root)
    start_workflow(app, "x")
    for pid in ("0", "1.1", "1.2"):
        if app.require().compaction.pending:  # compaction is recorded between stages
            app.run(ev.Compact())
        complete_phase(app, pid, b"x")
    review = json.dumps({"issues": [{"severity": "critical", "description": "no tests"}]})
    out = complete_phase(app, "1.3", review.encode())
    assert out.message.startswith("review 1.3 found 1 blocking issue(s): back to phase 1.2")
    assert out.state.currentPhase == "1.2"
    complete_phase(app, "1.2", b"plan, again")
    before = (root / A / "state.json").read_bytes()
    with pytest.raises(InvalidInputError) as e:
        complete_phase(app, "1.3", b"{broken")
    assert str(e.value).startswith(".agents/phases/1.3-plan-review.json: ")
    assert (root / A / "state.json").read_bytes() == before
