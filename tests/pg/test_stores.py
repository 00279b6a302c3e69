"""Issue 17: the same commands and guarantees on both stores (files and PostgreSQL).

Each test runs twice: on the files under ``.agents/`` and on a throwaway PostgreSQL server
(``conftest.pg_server``), with a workflow name of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clitools import cli_json, run_cli, wave_of

from agents_state.models import State
from agents_state.store.api import WorkflowStore, open_store


def _loaded(store: WorkflowStore) -> State:
    state = store.load()
    assert state is not None
    return state


@pytest.fixture(params=["files", "postgresql"])
def store_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str | None:
    if request.param == "files":
        return None
    url: str = request.getfixturevalue("pg_url")
    monkeypatch.setenv("AGENTS_STATE_STORE", url)
    return url


def test_a_whole_wave_runs_the_same_on_both_stores(root: Path, store_env: str | None) -> None:
    ids = wave_of(root, 3, "login")
    claimed = [cli_json(root, "task", "claim", "--agent", f"w{i}")["task"] for i in range(3)]
    assert sorted(claimed) == ids
    (root / "res.md").write_text("# result\n")
    for t in ids:
        proc = run_cli(
            root, "task", "done", t, "--force", "--summary", f"did {t}", "--result", "res.md"
        )
        assert proc.returncode == 0, proc.stderr
    status = cli_json(root, "status")
    assert status["workflow"]["task"] == "login"
    store = open_store(root, store_env)
    state = _loaded(store)
    events = store.events()
    assert [e["rev"] for e in events] == list(range(1, state.revision + 1))  # gap-free
    assert store.read_artifact("2.1-tasks.json") is not None
    assert store.read_artifact(f"2.1-result-{ids[0]}.md") is not None
    assert (root / ".agents").is_dir() == (store_env is None)  # postgres: nothing on disk
    assert "login" in run_cli(root, "context").stdout
    assert run_cli(root, "graph").returncode == 0


def test_refusals_write_nothing_on_both_stores(root: Path, store_env: str | None) -> None:
    proc = run_cli(root, "phase", "start", "2.1")
    assert proc.returncode == 3 and "no workflow" in proc.stderr
    assert run_cli(root, "dispatch", "x").returncode == 0
    store = open_store(root, store_env)
    rev = _loaded(store).revision
    proc = run_cli(root, "phase", "start", "2.1")
    assert proc.returncode == 4
    assert proc.stderr == (
        "agents-state: error: phase 2.1 is pending: cannot start (the current phase is 0)\n"
    )
    assert _loaded(store).revision == rev and len(store.events()) == rev


def test_dispatch_replace_archives_on_both_stores(root: Path, store_env: str | None) -> None:
    assert run_cli(root, "dispatch", "one").returncode == 0
    proc = run_cli(root, "phase", "complete", "0", "--artifact", "-", stdin="# notes\n")
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(root, "dispatch", "--replace", "two")
    assert proc.returncode == 0, proc.stderr
    assert "previous one archived to" in proc.stdout
    store = open_store(root, store_env)
    assert _loaded(store).task == "two"
    assert store.read_artifact("0-explore.md") is None


def test_config_show_names_the_store_and_never_the_password(
    root: Path, store_env: str | None
) -> None:
    shown = cli_json(root, "config", "show")["store"]
    text = run_cli(root, "config", "show").stdout.splitlines()[0]
    if store_env is None:
        assert shown == f"files under {root / '.agents'}"
    else:
        assert shown.startswith("postgresql postgresql://postgres:***@127.0.0.1:")
        assert "s3cret" not in shown and "s3cret" not in text
    assert text == f"store: {shown}"


def test_store_option_after_the_subcommand(root: Path, pg_url: str) -> None:
    assert run_cli(root, "dispatch", "x", "--store", pg_url).returncode == 0
    assert run_cli(root, "status").stdout.startswith("No active workflow")  # the files: none
    assert cli_json(root, "--store", pg_url, "status")["workflow"]["task"] == "x"
    assert (
        json.loads(run_cli(root, "status", "--json", "--store", pg_url).stdout)["workflow"]["task"]
        == "x"
    )


def test_store_copy_there_and_back_keeps_revision_events_artifacts(
    root: Path, pg_url: str, tmp_path: Path
) -> None:
    wave_of(root, 2, "move me")
    assert run_cli(root, "task", "done", "t0", "--force", "--summary", "ok").returncode == 0
    assert (
        run_cli(
            root,
            "chain",
            "start",
            "ui",
            "Add a login form",
            "--files",
            "3",
            "--tasks",
            "3",
            "--modules",
            "1",
            "--effort",
            "medium",
        ).returncode
        == 0
    )
    chain_file = (root / ".agents/chains/ui-1.json").read_bytes()
    files = open_store(root, None)
    before = (files.read_bytes(), files.events(), files.read_artifact("2.1-tasks.json"))
    out = cli_json(root, "store", "copy", "--from", str(root), "--to", pg_url)
    assert out["copied"]["revision"] == _loaded(files).revision
    assert "s3cret" not in json.dumps(out)
    pg = open_store(root, pg_url)
    assert (pg.read_bytes(), pg.events(), pg.read_artifact("2.1-tasks.json")) == before
    assert [c["id"] for c in cli_json(root, "--store", pg_url, "chain", "list")] == ["ui-1"]
    # a second copy onto a workflow is refused, --replace overwrites
    proc = run_cli(root, "store", "copy", "--from", str(root), "--to", pg_url)
    assert proc.returncode == 5 and "pass --replace" in proc.stderr
    # work goes on in the database, then back to a fresh folder
    assert (
        run_cli(
            root, "--store", pg_url, "task", "done", "t1", "--force", "--summary", "ok"
        ).returncode
        == 0
    )
    back = tmp_path / "back"
    back.mkdir()
    proc = run_cli(root, "store", "copy", "--from", pg_url, "--to", str(back))
    assert proc.returncode == 0, proc.stderr
    again = open_store(back, None)
    assert again.read_bytes() == pg.read_bytes()
    assert again.events() == pg.events()
    assert [e["rev"] for e in again.events()] == list(range(1, _loaded(again).revision + 1))
    assert cli_json(back, "status")["workflow"]["task"] == "move me"
    assert (back / ".agents/chains/ui-1.json").read_bytes() == chain_file


def _count_calls(root: Path, n: int, agent: str | None = None, store: str | None = None) -> None:
    post: dict[str, object] = {
        "tool_name": "Read",
        "tool_input": {"file_path": "x"},
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
    }
    if agent:
        post["agent_id"] = agent
    env = {"AGENTS_STATE_STORE": store} if store else None
    for _ in range(n):
        proc = run_cli(root, "hook", "post-tool-use", stdin=json.dumps(post), env=env)
        assert proc.returncode == 0, proc.stderr


def test_store_copy_carries_the_tool_call_counts_both_ways(
    root: Path, pg_url: str, tmp_path: Path
) -> None:
    """Issue 18: the counts say when the orchestrator's context is due for compaction; a
    workflow moved in the middle of a session keeps them (they were left behind)."""
    from agents_state.store.pg import PgStore

    assert run_cli(root, "dispatch", "counted").returncode == 0
    _count_calls(root, 50)
    _count_calls(root, 1, agent="agent-7")
    assert cli_json(root, "next")["kind"] == "compact"
    out = cli_json(root, "store", "copy", "--from", str(root), "--to", pg_url)
    assert out["copied"]["toolCalls"] == {"main": 50, "agent-7": 1}
    assert PgStore(pg_url, root).call_counts() == {"main": 50, "agent-7": 1}
    assert cli_json(root, "--store", pg_url, "next")["kind"] == "compact"
    # counting goes on in the database, then the workflow comes back to a fresh folder
    _count_calls(root, 1, store=pg_url)
    back = tmp_path / "back"
    back.mkdir()
    proc = run_cli(root, "store", "copy", "--from", pg_url, "--to", str(back))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(" artifacts, 52 tool calls) from " + proc.stdout.split(" from ")[1])
    log = (back / ".agents/toolcalls.log").read_text()
    assert sorted(log.splitlines()) == ["agent-7"] + ["main"] * 51
    from agents_state.store.toolcalls import file_counts

    assert file_counts(str(back)) == {"main": 51, "agent-7": 1}
    assert cli_json(back, "next")["kind"] == "compact"
    # --replace brings the source's counts, none of the replaced workflow's
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert run_cli(fresh, "dispatch", "fresh start").returncode == 0
    out = cli_json(fresh, "store", "copy", "--from", str(fresh), "--to", pg_url, "--replace")
    assert out["copied"]["toolCalls"] == {}
    assert PgStore(pg_url, root).call_counts() == {}
    proc = run_cli(root, "store", "copy", "--from", pg_url, "--to", str(back), "--replace")
    assert proc.returncode == 0, proc.stderr
    assert (back / ".agents/toolcalls.log").read_bytes() == b""
    assert cli_json(back, "next")["kind"] != "compact"


def test_unknown_store_and_bad_workflow_name_are_usage_errors(root: Path) -> None:
    proc = run_cli(root, "--store", "mysql://u:pw@h/db", "status")
    assert proc.returncode == 2
    assert proc.stderr == (
        "agents-state: error: --store 'mysql://u:***@h/db': unknown store; "
        "use postgresql://USER@HOST:PORT/DB?workflow=NAME (or leave it out "
        "for the files under .agents/)\n"
    )
    proc = run_cli(root, "--store", "postgresql://u:pw@h/db?workflow=a%20b", "status")
    assert proc.returncode == 2 and "is not a workflow name" in proc.stderr
    assert "pw" not in proc.stderr


def test_hooks_count_tool_calls_and_give_context_on_both_stores(
    root: Path, store_env: str | None
) -> None:
    assert run_cli(root, "dispatch", "hooked").returncode == 0
    post = json.dumps(
        {
            "tool_name": "Read",
            "tool_input": {"file_path": "x"},
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
        }
    )
    for _ in range(50):
        assert run_cli(root, "hook", "post-tool-use", stdin=post).returncode == 0
    sub = json.loads(post) | {"agent_id": "agent-7"}
    assert run_cli(root, "hook", "post-tool-use", stdin=json.dumps(sub)).returncode == 0
    from agents_state.hooks.toolcalls import counts

    assert counts(str(root)) == {"main": 50, "agent-7": 1}
    assert cli_json(root, "next")["kind"] == "compact"
    start = json.dumps({"hook_event_name": "SessionStart", "source": "compact", "cwd": str(root)})
    proc = run_cli(root, "hook", "session-start", stdin=start)
    assert proc.returncode == 0, proc.stderr
    assert "hooked" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert counts(str(root)) == {}
    assert cli_json(root, "next")["kind"] == "dispatch_agents"
    assert (root / ".agents").is_dir() == (store_env is None)


def test_graph_write_and_stop_resume_on_both_stores(root: Path, store_env: str | None) -> None:
    proc = run_cli(root, "stop")
    assert proc.returncode == 0 and proc.stdout.startswith("No active workflow")
    assert run_cli(root, "dispatch", "drawn").returncode == 0
    proc = run_cli(root, "graph", "--write")
    assert proc.returncode == 0, proc.stderr
    from agents_state.views.graph import GRAPH_ARTIFACT

    data = open_store(root, store_env).read_artifact(GRAPH_ARTIFACT)
    assert data is not None and b"mermaid" in data


def test_both_stores_satisfy_the_store_interface(root: Path, pg_url: str) -> None:
    from agents_state.store.api import WorkflowStore
    from agents_state.store.files import Store
    from agents_state.store.pg import PgStore

    assert isinstance(Store(root), WorkflowStore)
    assert isinstance(PgStore(pg_url, root), WorkflowStore)
    assert isinstance(open_store(root, None), Store)
    assert isinstance(open_store(root, pg_url), PgStore)


def test_a_handoff_is_recorded_on_both_stores(root: Path, store_env: str | None) -> None:
    from protocol.examples import VALID

    assert run_cli(root, "dispatch", "Add user authentication").returncode == 0
    request = json.loads(run_cli(root, "handoff", "new").stdout)
    assert request["phase"] == "research"
    (root / "research.json").write_text(json.dumps(VALID["002 researcher output"][1]))
    proc = run_cli(root, "handoff", "record", "research.json")
    assert proc.returncode == 0, proc.stderr
    assert "PROCEED recorded on phase 0" in proc.stdout
    store = open_store(root, store_env)
    state = _loaded(store)
    assert state.phase("0").status == "completed"
    from agents_state.handoff.ledger import tokens_by_phase

    assert tokens_by_phase(state) == {"0": 15000}  # the ledger, in the state
    assert store.read_artifact("0-explore.md") is not None
