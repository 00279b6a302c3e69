"""Issue 23: a deadline for every PostgreSQL statement, and a hook's below the host's.

A relay (``pgproxy``) passes the session through to the real test server, then stops answering
once the client sends a chosen statement: the connection stays open, nothing comes back.  Each
command must end with one line and exit 7 (saying the update may be saved when the commit
itself went unanswered), never hang: the subprocess's own 120 s timeout is the test's guard,
and the statement deadline is set to 2 s through ``AGENTS_STATE_STATEMENT_TIMEOUT``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from clitools import run_cli, run_proc

from agents_state.store.pg import PgStore

from .pgproxy import SilentProxy
from .pgserver import PASSWORD, PgServer

FAST = {"AGENTS_STATE_STATEMENT_TIMEOUT": "2", "AGENTS_STATE_LOCK_TIMEOUT": "1"}


def _url(pg_server: PgServer, proxy: SilentProxy, workflow: str) -> str:
    url = pg_server.url(workflow).replace(f":{pg_server.port}/", f":{proxy.port}/")
    return url + "&sslmode=disable"


@pytest.mark.parametrize(
    ("argv", "after", "said"),
    [
        (["status"], b"SELECT state", "read failed: no answer from the server within 2s"),
        (["dispatch", "y"], b"FOR UPDATE", "lock failed: no answer from the server within 3s"),
        (["phase", "start", "0"], b"UPDATE agents_state.workflows", "write failed: no answer"),
    ],
    ids=["read", "lock", "write"],
)
def test_issue_23_a_server_that_stops_answering_is_one_line_exit_7(
    root: Path, pg_server: PgServer, pg_url: str, argv: list[str], after: bytes, said: str
) -> None:
    workflow = PgStore(pg_url, root).workflow
    assert run_cli(root, "--store", pg_url, "dispatch", "x").returncode == 0
    before = PgStore(pg_url, root).read_bytes()
    with SilentProxy(pg_server.port, after) as proxy:
        url = _url(pg_server, proxy, workflow)
        try:
            proc = run_proc(root, "--store", url, *argv, env=FAST)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{argv}: no answer and no deadline: hung") from None
        assert proxy.silenced.is_set()
    assert proc.returncode == 7, proc.stderr
    assert proc.stderr.startswith(
        f"agents-state: error: postgresql://postgres:***@127.0.0.1:{proxy.port}/postgres: {said}"
    )
    assert proc.stderr.endswith("; the previous state is unchanged\n")
    assert proc.stderr.count("\n") == 1 and PASSWORD not in proc.stderr
    assert PgStore(pg_url, root).read_bytes() == before


def test_issue_23_an_unanswered_commit_says_it_may_be_saved(
    root: Path, pg_server: PgServer, pg_url: str
) -> None:
    workflow = PgStore(pg_url, root).workflow
    assert run_cli(root, "--store", pg_url, "dispatch", "x").returncode == 0
    with SilentProxy(pg_server.port, b"COMMIT") as proxy:
        proc = run_proc(
            root, "--store", _url(pg_server, proxy, workflow), "phase", "start", "0", env=FAST
        )
    assert proc.returncode == 7, proc.stderr  # as every commit the connection broke under
    assert proc.stderr.endswith(
        "commit failed: no answer from the server within 2s; the connection broke while the "
        "server committed, so the update may or may not be saved: check with agents-state "
        "status before repeating it\n"
    )


def _pre_tool_use(root: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    data = {
        "session_id": "s",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(root / "a.ts")},
        "tool_use_id": "t1",
        "agent_id": "a1",
        "agent_type": "subagents:explore",
    }
    return run_proc(
        root, "hook", "pre-tool-use", stdin=json.dumps(data), env={"AGENTS_STATE_STORE": url, **env}
    )


@pytest.mark.slow
@pytest.mark.parametrize("after", [b"", b"SELECT state"], ids=["at-connect", "after-connect"])
def test_issue_23_the_hook_denies_before_the_host_gives_up(
    root: Path, pg_server: PgServer, pg_url: str, after: bytes
) -> None:
    """With the user's generous timeouts (60 s to connect, 60 s a statement, 60 s a lock), a
    silent server still gets the sub-agent's call denied within the hook's budget, which is
    below the host's 10 s for PreToolUse (``hooks/hooks.json``)."""
    from agents_state.hooks import HOOK_BUDGETS

    workflow = PgStore(pg_url, root).workflow
    assert run_cli(root, "--store", pg_url, "dispatch", "x").returncode == 0
    slow = {
        "AGENTS_STATE_CONNECT_TIMEOUT": "60",
        "AGENTS_STATE_STATEMENT_TIMEOUT": "60",
        "AGENTS_STATE_LOCK_TIMEOUT": "60",
    }
    with SilentProxy(pg_server.port, after) as proxy:
        proc = _pre_tool_use(root, _url(pg_server, proxy, workflow), slow)
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    budget = HOOK_BUDGETS["pre-tool-use"]
    reason = out["permissionDecisionReason"]
    assert reason.startswith("agents-state: cannot read the workflow from the server (")
    if after:
        assert f"no answer from the server within {budget:g}s" in reason, reason
    else:
        assert "connect failed" in reason and "timeout" in reason, reason


def test_issue_23_a_server_silent_right_after_the_login_is_named_too(
    root: Path, pg_server: PgServer, pg_url: str
) -> None:
    """Silent from the first statement after the login (the schema check): the deadline, not
    "server closed the connection", is the reason shown."""
    workflow = PgStore(pg_url, root).workflow
    assert run_cli(root, "--store", pg_url, "dispatch", "x").returncode == 0
    with SilentProxy(pg_server.port, b"agents_state") as proxy:
        proc = run_proc(root, "--store", _url(pg_server, proxy, workflow), "status", env=FAST)
    assert proc.returncode == 7, proc.stderr
    assert proc.stderr == (
        f"agents-state: error: postgresql://postgres:***@127.0.0.1:{proxy.port}/postgres: "
        "connect failed: no answer from the server within 2s; the previous state is unchanged\n"
    )
