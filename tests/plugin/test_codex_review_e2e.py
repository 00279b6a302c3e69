"""Issue 37: Codex reviews run by the REAL Codex CLI (``codex exec``) against a loopback
stand-in of its model API (a provider in a temporary ``CODEX_HOME``), recorded by
``agents-state review run``: a plan review and a final review from Codex's answers, usage
booked, a blocking issue sending the work back, an answer off the schema, an unreachable API, a
refusing API, a missing login, a timeout, a missing Codex.  Every failure is one line, exit 10,
and leaves the state as it was.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest
from codex_api import KEY_VAR, CodexAPI, codex_home, request_text
from codex_cli import CODEX, require_codex
from contract.helpers import js, sh, state_bytes, walk_to
from pg.conftest import pg_server, pg_url  # noqa: F401 (fixtures)

from agents_state.engine.codexreview import REVIEW_SCHEMA

pytestmark = pytest.mark.slow

CLEAN = json.dumps({"issues": [], "summary": "The plan is sound."})
BLOCKING = json.dumps(
    {
        "issues": [
            {
                "severity": "high",
                "title": "No tests",
                "description": "The change has no test of the endpoint.",
                "file": "app.py",
                "line": 12,
                "suggestion": None,
            },
            {
                "severity": "low",
                "title": "Naming",
                "description": "health is a better name than ping.",
                "file": None,
                "line": None,
                "suggestion": "Rename it.",
            },
        ],
        "summary": "Needs tests.",
    }
)
OFF_SCHEMA = json.dumps({"findings": [{"severity": "high", "description": "x"}]})
USAGE_BOOKED = {"input": 1000, "output": 300, "cacheRead": 200, "cacheWrite": 0}


def _config(root: Path, **codex: Any) -> None:
    (root / ".agents").mkdir(parents=True, exist_ok=True)
    (root / ".agents/config.json").write_text(json.dumps({"codex": codex}))


@pytest.fixture
def codex_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    require_codex()
    monkeypatch.setenv("AGENTS_STATE_CODEX", CODEX)
    monkeypatch.setenv(KEY_VAR, "sk-test-not-a-key")
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "project"
    root.mkdir()
    return root


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("CODEX_HOME", str(codex_home(tmp_path / "codex-home", url)))


def _book(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents/usage.json").read_text())
    return data


def _one_line_failure(root: Path, phase: str, said: str) -> str:
    before = state_bytes(root)
    code, out, err = sh(root, "review", "run", phase)
    assert code == 10, (out, err)
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line
    assert said in line, line
    assert "nothing was recorded" in line
    assert (
        'Fallback: dispatch subagents:pr-reviewer with Agent model "opus" for this review' in line
    )
    assert state_bytes(root) == before
    assert not (root / ".agents/usage.json").exists() or not [
        a for a in _book(root)["agents"].values() if a.get("type") == "codex"
    ]
    return line


def test_a_plan_review_is_run_by_codex_and_recorded_with_its_usage(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    _config(root, aliases={"codex-high": {"model": "gpt-test-codex"}})
    with CodexAPI(lambda body: CLEAN) as api:
        _home(tmp_path, monkeypatch, api.url)
        a = walk_to(root, "1.3")
        assert (a["command"], a["write"]) == ("agents-state review run 1.3", None)
        assert a["agents"]["codex"]["installed"] == "0.171.0"
        out = js(root, "review", "run", "1.3")
    assert out["codex"]["model"] == "gpt-test-codex" and out["codex"]["attempts"] == 1
    (body,) = api.requests
    assert body["model"] == "gpt-test-codex"
    assert body["reasoning"]["effort"] == "high"
    assert body["text"]["format"]["schema"] == REVIEW_SCHEMA
    asked = request_text(body)
    assert f"<cwd>{root}</cwd>" in asked  # Codex ran in the project
    assert str(root / ".agents/phases/1.2-plan.md") in asked
    assert "Review the plan" in asked and "phase 1.3 (Plan Review)" in asked
    review = json.loads((root / ".agents/phases/1.3-plan-review.json").read_text())
    assert review == {
        "issues": [],
        "summary": "The plan is sound.",
        "reviewer": "codex codex-high (gpt-test-codex, effort high)",
    }
    state = json.loads((root / ".agents/state.json").read_text())
    assert state["stages"]["PLAN"]["phases"]["1.3"]["status"] == "completed"
    assert state["currentPhase"] == "2.1"
    (entry,) = [a for a in _book(root)["agents"].values() if a["type"] == "codex"]
    assert entry["phase"] == "1.3"
    assert entry["tokens"] == {"gpt-test-codex": USAGE_BOOKED}
    status = js(root, "status")["workflow"]
    assert status["usage"]["byModel"]["gpt-test-codex"] == 1500
    assert status["usage"]["phases"]["1.3"]["tokens"] == 1500
    code, report, err = sh(root, "report")
    assert code == 0, err
    assert "- by model: gpt-test-codex 1500" in report
    assert " | codex | - | 1500 | " in report  # the Codex run, among the agents of phase 1.3


def test_a_final_review_with_a_blocking_issue_sends_the_work_back(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    answers = [BLOCKING, CLEAN]
    with CodexAPI(lambda body: answers.pop(0)) as api:
        _home(tmp_path, monkeypatch, api.url)
        walk_to(root, "4.2")
        out = js(root, "review", "run", "4.2")
        state = json.loads((root / ".agents/state.json").read_text())
        assert state["currentPhase"] == "4.1"  # the reviewed phase, to be done again
        assert out["next"]["phase"] == "4.1"
        review = json.loads((root / ".agents/phases/4.2-final-review.json").read_text())
        assert [i["severity"] for i in review["issues"]] == ["high", "low"]
        assert "suggestion" not in review["issues"][0]  # null is left out
        assert review["issues"][1]["suggestion"] == "Rename it."
        assert api.requests[0]["reasoning"]["effort"] == "xhigh"  # codex-xhigh: 4.2's default
        # the work is done again, then Codex reviews it once more: clean this time
        a = walk_to(root, "4.2")
        assert a["command"] == "agents-state review run 4.2"
        js(root, "review", "run", "4.2")
    state = json.loads((root / ".agents/state.json").read_text())
    assert state["stages"]["FINAL"]["phases"]["4.2"]["status"] == "completed"
    entries = [a for a in _book(root)["agents"].values() if a["type"] == "codex"]
    assert [e["phase"] for e in entries] == ["4.2", "4.2"]
    assert all(e["tokens"] == {"codex-xhigh": USAGE_BOOKED} for e in entries)


def test_under_worktree_isolation_codex_reviews_the_integration_worktree(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "init"], cwd=root, check=True)
    with CodexAPI(lambda body: CLEAN) as api:
        _home(tmp_path, monkeypatch, api.url)
        walk_to(root, "2.1")
        (root / "t.json").write_text('{"tasks": [{"id": "a", "title": "A"}]}')
        assert sh(root, "tasks", "load", str(root / "t.json"))[0] == 0
        assert sh(root, "task", "start", "a")[0] == 0
        assert sh(root, "task", "done", "a", "--summary", "did a")[0] == 0
        walk_to(root, "4.2")
        js(root, "review", "run", "4.2")
    integration = root / ".agents/worktrees/_integration"
    assert integration.is_dir()
    assert f"<cwd>{integration}</cwd>" in request_text(api.requests[0])
    assert str(root / ".agents/phases/4.1-docs.md") in request_text(api.requests[0])
    state = json.loads((root / ".agents/state.json").read_text())
    assert state["stages"]["FINAL"]["phases"]["4.2"]["status"] == "completed"


def test_with_a_postgresql_store_the_plan_is_in_the_prompt_and_the_usage_in_the_database(
    codex_env: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pg_url: str,  # noqa: F811 (the fixture of tests/pg)
) -> None:
    root = codex_env
    monkeypatch.setenv("AGENTS_STATE_STORE", pg_url)
    with CodexAPI(lambda body: CLEAN) as api:
        _home(tmp_path, monkeypatch, api.url)
        walk_to(root, "1.3")
        assert not (root / ".agents/phases/1.2-plan.md").exists()  # the plan is in the database
        js(root, "review", "run", "1.3")
    asked = request_text(api.requests[0])
    assert ".agents/phases/1.2-plan.md, whose text follows:\n# notes\n" in asked
    assert js(root, "status")["workflow"]["usage"]["phases"]["1.3"]["tokens"] == 1500
    assert not (root / ".agents/usage.json").exists()


def test_an_answer_off_the_schema_is_retried_once_with_the_error(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    answers = [OFF_SCHEMA, CLEAN]
    with CodexAPI(lambda body: answers.pop(0)) as api:
        _home(tmp_path, monkeypatch, api.url)
        walk_to(root, "1.3")
        out = js(root, "review", "run", "1.3")
    assert out["codex"]["attempts"] == 2
    assert "Your previous answer was not a valid review: findings: unknown key" in (
        request_text(api.requests[1])
    )
    (entry,) = [a for a in _book(root)["agents"].values() if a["type"] == "codex"]
    assert entry["tokens"]["codex-high"]["output"] == 600  # both attempts are booked


def test_an_answer_off_the_schema_twice_records_nothing(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    with CodexAPI(lambda body: OFF_SCHEMA) as api:
        _home(tmp_path, monkeypatch, api.url)
        walk_to(root, "1.3")
        line = _one_line_failure(root, "1.3", "did not match the review schema twice")
    assert len(api.requests) == 2
    assert "findings: unknown key" in line


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_api_fails_at_once_in_one_line(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    # Codex itself would wait for the network for ever: a run that waited would end at this
    # timeout, saying so ("did not finish within 90s"), not that the API cannot be reached
    _config(root, timeoutSeconds=90)
    _home(tmp_path, monkeypatch, f"http://127.0.0.1:{_closed_port()}/v1")
    walk_to(root, "1.3")
    _one_line_failure(root, "1.3", "Codex cannot reach its model API")


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (401, "Codex is not logged in to its model API (run: codex login): unexpected status 401"),
        (400, 'Codex\'s model API refused the review: {"error": {"message": "stand-in refuses"'),
    ],
)
def test_a_refusing_api_fails_in_one_line(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: int, said: str
) -> None:
    root = codex_env
    with CodexAPI(lambda body: status) as api:
        _home(tmp_path, monkeypatch, api.url)
        walk_to(root, "1.3")
        _one_line_failure(root, "1.3", said)


def test_codex_not_logged_in_fails_before_it_runs(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    home = tmp_path / "empty-codex-home"  # OpenAI's own provider, and no login
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    walk_to(root, "1.3")
    _one_line_failure(root, "1.3", "Codex is not logged in (codex login status: Not logged in)")


def _codex_processes(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (the test's own CODEX_HOME)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ:
            found.append(int(pid))
    return found


def test_a_timeout_ends_codex_and_its_process_group(
    codex_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    _config(root, timeoutSeconds=3)
    with CodexAPI(lambda body: "hang") as api:
        _home(tmp_path, monkeypatch, api.url)
        walk_to(root, "1.3")
        _one_line_failure(root, "1.3", "Codex did not finish within 3s")
        assert len(api.requests) == 1  # it was waiting for the answer
        # and its request still hangs (for 600 s): the engine ended Codex at its timeout
        # instead of waiting for it
        assert api.hanging == 1
    assert _codex_processes(str(tmp_path / "codex-home")) == []


def test_without_codex_the_next_action_is_the_claude_reviewer(
    codex_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = codex_env
    monkeypatch.setenv("AGENTS_STATE_CODEX", str(root / "no-codex"))
    a = walk_to(root, "1.3")
    assert a["command"] == "agents-state phase complete 1.3 --artifact " + a["write"]
    assert a["agents"]["codex"]["installed"] is None
    assert 'dispatch subagents:pr-reviewer with model "opus" instead' in a["instructions"]
    line = _one_line_failure(root, "1.3", "Codex (>= 0.154.0) is not installed")
    assert "agents-state phase complete 1.3 --artifact .agents/phases/1.3-plan-review.json" in line
