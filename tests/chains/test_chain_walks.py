"""Issue 10: each of the seven chains walked through the installed CLI with scripted responses.

After every step: the chain file's status, step and revision, and the next step's request files.
"""

from __future__ import annotations

import json
from pathlib import Path

from chainhelp import (
    CLARIFY,
    QA_FAIL,
    QA_PASS,
    RAW,
    RESEARCH,
    REVIEW,
    STOP,
    WRITER,
    Walk,
    checker,
)

SIZE3 = ("--files", "3", "--tasks", "3", "--modules", "1", "--effort", "medium")


def step(w: Walk, cid: str) -> tuple[str, str | None]:
    c = w.chain(cid)
    cur = c["steps"][c["current"]]["id"] if c["current"] < len(c["steps"]) else None
    return c["status"], cur


def test_code_chain_validator_failure_fixed_on_the_writers_second_try(root: Path) -> None:
    w = Walk(root)
    out = w.js("chain", "start", "code", "Add user authentication", *SIZE3)
    assert (out["chain"], out["sizing"]["designed"]) == ("code-1", 3)
    assert out["next"]["agents"] == {
        "count": 1,
        "type": "domain-researcher",
        "subagentType": "subagents:domain-researcher",
        "model": "opus",
        "modelId": "claude-opus-4-5-20251101",
    }
    (req,) = w.requests("code-1")
    assert (req["phase"], req["context"]["previous_findings"]) == ("research", None)
    w.respond("code-1", RESEARCH)
    assert step(w, "code-1") == ("running", "write")
    (req,) = w.requests("code-1")
    # REQ-5.6: the writer gets the researcher's context_summary, never its raw findings
    assert req["context"]["previous_findings"] == RESEARCH["context_summary"]
    assert RAW not in json.dumps(req)
    w.respond("code-1", WRITER)
    (req,) = w.requests("code-1")
    assert (req["phase"], req["context"]["files_changed"]) == ("validate", ["src/lib/auth.ts"])
    out = w.respond("code-1", QA_FAIL)
    assert "the writer runs again with the failures (retry 1 of 2)" in out["message"]
    assert step(w, "code-1") == ("running", "write")
    (req,) = w.requests("code-1")
    assert req["task_id"] == "code-1-write-2"
    assert req["context"]["retry_context"] == {
        "failures": ["tests: loginUser should return token"],
        "attempt": 2,
    }
    assert req["context"]["previous_findings"] == RESEARCH["context_summary"]
    assert RAW not in json.dumps(req)
    w.respond("code-1", WRITER)
    out = w.respond("code-1", QA_PASS)
    assert out["status"] == "completed" and out["next"]["kind"] == "done"
    c = w.chain("code-1")
    assert [s["status"] for s in c["steps"]] == ["completed"] * 3
    assert [s["runs"] for s in c["steps"]] == [1, 2, 2]
    assert c["writerRetries"] == 1 and "retry" not in c


def test_ui_chain_clarify_answered_through_resume(root: Path) -> None:
    w = Walk(root)
    w.run("chain", "start", "ui", "Add a login form", *SIZE3)
    out = w.respond("ui-1", CLARIFY)
    assert out["next"]["kind"] == "ask_user"
    assert out["next"]["questions"] == ["Session cookies or JWT tokens?"]
    assert out["next"]["command"].startswith("agents-state resume --answer")
    assert step(w, "ui-1") == ("waiting", "research")
    # no workflow at all: resume --answer reaches the waiting chain
    out = w.js("resume", "--answer", "JWT tokens")
    assert out["status"] == "running" and out["chain"] == "ui-1"
    (req,) = w.requests("ui-1")
    assert req["task_id"] == "ui-1-research-2"
    assert req["context"]["constraints"] == [
        "The user answered 'Session cookies or JWT tokens?': JWT tokens"
    ]
    w.respond("ui-1", RESEARCH)
    (req,) = w.requests("ui-1")
    assert "JWT tokens" in req["context"]["constraints"][0]  # the answer stays with the chain
    w.respond("ui-1", WRITER)
    assert w.respond("ui-1", QA_PASS)["status"] == "completed"
    assert w.chain("ui-1")["answers"][0]["answer"] == "JWT tokens"


def test_docs_chain_stop_blocks_then_retry_and_abort(root: Path) -> None:
    w = Walk(root)
    w.run("chain", "start", "docs", "Document the auth API", *SIZE3)
    out = w.respond("docs-1", STOP)
    assert out["next"]["kind"] == "blocked"
    assert "loginUser already exists" in out["next"]["reason"]
    assert out["next"]["command"] == "agents-state chain retry docs-1"
    assert step(w, "docs-1") == ("blocked", "research")
    # a blocked chain takes no response: refused, nothing written
    before = w.chain("docs-1")
    (root / "late.json").write_text(json.dumps(RESEARCH))
    err = w.run("chain", "record", "docs-1", "late.json", code=4)
    assert "chain docs-1 is blocked: cannot respond; allowed from here: abort, retry" in err
    assert w.chain("docs-1") == before
    w.run("chain", "retry", "docs-1")
    (req,) = w.requests("docs-1")
    assert req["task_id"] == "docs-1-research-2"
    w.respond("docs-1", RESEARCH)
    w.run("chain", "abort", "docs-1")
    assert step(w, "docs-1") == ("aborted", "write")
    assert w.js("chain", "next", "docs-1")["next"]["kind"] == "done"


def test_eval_chain_escalates_after_two_failures(root: Path) -> None:
    w = Walk(root)
    w.run("chain", "start", "eval", "Add an eval suite for login", *SIZE3)
    w.respond("eval-1", RESEARCH)
    for attempt in (1, 2):
        w.respond("eval-1", WRITER)
        out = w.respond("eval-1", QA_FAIL)
        assert f"retry {attempt} of 2" in out["message"]
    w.respond("eval-1", WRITER)
    out = w.respond("eval-1", QA_FAIL)
    assert out["status"] == "blocked" and "escalated to the user" in out["message"]
    assert out["next"]["kind"] == "blocked"
    assert (
        "validate failed after 2 writer retries: tests: loginUser should return token"
        in out["next"]["reason"]
    )
    c = w.chain("eval-1")
    assert (c["escalated"], c["writerRetries"], c["steps"][1]["runs"]) == (True, 2, 3)


def test_plan_chain_timeout_retries_once_simplified_then_blocks(root: Path) -> None:
    w = Walk(root)
    files = [a for i in range(5) for a in ("--file", f"specs/f{i}.md")]
    w.run(
        "chain",
        "start",
        "plan",
        "Spec the auth feature",
        *SIZE3,
        *files,
        "--constraint",
        "EARS format",
    )
    (req,) = w.requests("plan-1")
    assert len(req["context"]["relevant_files"]) == 5
    out = w.js("chain", "timeout", "plan-1")
    assert "simplified handoff" in out["message"] and out["status"] == "running"
    (req,) = w.requests("plan-1")
    assert req["instructions"].startswith("Simplified retry after a timeout")
    assert len(req["context"]["relevant_files"]) == 3 and req["context"]["constraints"] == []
    out = w.js("chain", "timeout", "plan-1")
    assert out["status"] == "blocked"
    assert (
        "timed out twice" in out["next"]["reason"]
        and "partial results: none" in out["next"]["reason"]
    )
    w.run("chain", "retry", "plan-1")
    (req,) = w.requests("plan-1")
    assert not req["instructions"].startswith("Simplified")
    w.respond("plan-1", RESEARCH)
    w.respond("plan-1", {**WRITER, "files_changed": ["specs/auth/requirements.md"]})
    (req,) = w.requests("plan-1")
    assert "spec-analyzer in mode review" in req["instructions"]
    assert w.respond("plan-1", REVIEW)["status"] == "completed"


def test_check_chain_runs_parallel_checkers_and_aggregates(root: Path) -> None:
    w = Walk(root)
    out = w.js("chain", "start", "check")
    assert out["next"]["agents"]["count"] == 5
    assert [i["instance"] for i in out["next"]["instances"]] == [
        "build",
        "type",
        "lint",
        "test",
        "security",
    ]
    reqs = w.requests("check-1")
    assert [r["task_id"] for r in reqs][:2] == ["check-1-check-1-build", "check-1-check-1-type"]
    (root / "one.json").write_text(json.dumps(checker("lint")))
    err = w.run("chain", "record", "check-1", "one.json", code=2)
    assert "step check of check-1 runs 5 sub-agent(s): give 5 response file(s), got 1" in err
    modes = ("build", "type", "lint", "test", "security")
    out = w.respond("check-1", *[checker(m, ok=m != "lint") for m in modes])
    assert out["status"] == "blocked" and "lint: lint: 2 errors" in out["next"]["reason"]
    out = w.js("chain", "start", "check", "--mode", "lint")
    assert out["next"]["agents"]["count"] == 1
    assert w.respond("check-2", checker("lint"))["status"] == "completed"


def test_git_chain_content_then_executor(root: Path) -> None:
    w = Walk(root)
    out = w.js("chain", "start", "git", "--mode", "pr", "Open the auth PR")
    assert out["next"]["agents"]["type"] == "git-content-generator"
    (req,) = w.requests("git-1")
    assert "git-content-generator in mode pr" in req["instructions"]
    w.respond("git-1", {"content_type": "pr", "title": "Add auth", "body": "JWT login."})
    (req,) = w.requests("git-1")
    assert req["context"]["previous_findings"] == "Add auth"
    assert w.js("chain", "next", "git-1")["next"]["agents"]["model"] == "haiku"
    out = w.respond(
        "git-1",
        {
            "decision": "PROCEED",
            "checks": {"push": {"passed": True}},
            "summary": "Pushed and opened PR #12",
        },
    )
    assert out["status"] == "completed"
    assert "Pushed and opened PR #12" in out["next"]["instructions"]


def test_design_002_sub_modes(root: Path) -> None:
    w = Walk(root)
    out = w.js("chain", "start", "code", "--only", "research", "Add login", *SIZE3)
    assert [s["id"] for s in w.chain("code-1")["steps"]] == ["research"]
    assert w.respond("code-1", RESEARCH)["status"] == "completed"
    # implement only: the earlier research's summary is the writer's previous_findings
    w.run("chain", "start", "code", "--args-file", "-", stdin="implement Add login")
    assert [s["id"] for s in w.chain("code-2")["steps"]] == ["write"]
    (req,) = w.requests("code-2")
    assert req["context"]["previous_findings"] == RESEARCH["context_summary"]
    assert w.respond("code-2", WRITER)["status"] == "completed"
    out = w.js("chain", "start", "code", "--args-file", "-", stdin="validate Add login\n")
    assert out["next"]["agents"]["type"] == "quality-validator"
    assert w.chain("code-3")["only"] == "validate"
    assert w.respond("code-3", QA_PASS)["status"] == "completed"
    # no feature: the chain in progress, else how to start one
    assert "No code chain in progress" in w.run(
        "chain", "start", "code", "--args-file", "-", stdin=""
    )


def test_conditional_branch_on_the_analyzers_complexity(root: Path) -> None:
    w = Walk(root)
    out = w.js("chain", "start", "code", "--analyze", "Fix the typo in README")
    assert out["next"]["agents"]["type"] == "code-analyzer"
    analysis = {
        "mode": "workflow",
        "context_summary": "One file.",
        "analysis": {"complexity": "simple", "files": 1, "tasks": 1},
    }
    out = w.respond("code-1", analysis)
    assert "(simple: 1 sub-agent: the writer alone)" in out["message"]
    assert [s["id"] for s in w.chain("code-1")["steps"]] == ["triage", "write"]
    assert w.respond("code-1", WRITER)["status"] == "completed"
    w.run("chain", "start", "code", "--analyze", "Big feature")
    big = {
        **analysis,
        "analysis": {
            "complexity": "complex",
            "files": 20,
            "tasks": 12,
            "modules": 4,
            "effort": "large",
        },
    }
    w.respond("code-2", big)
    assert [s["id"] for s in w.chain("code-2")["steps"]] == [
        "triage",
        "research",
        "write",
        "validate",
    ]
    assert w.chain("code-2")["sizing"]["designed"] == 7


def test_chain_inside_a_workflow_task_completes_the_task(root: Path) -> None:
    w = Walk(root)
    (root / ".agents").mkdir()
    (root / ".agents" / "config.json").write_text(
        json.dumps(
            {
                "stages": {
                    "PLAN": {"enabled": False},
                    "TEST": {"enabled": False},
                    "FINAL": {"enabled": False},
                },
                "compaction": {"betweenStages": False},
            }
        )
    )
    w.run("dispatch", "Add user authentication")
    w.run("phase", "complete", "0", "--artifact", "-", stdin="# explore\n")
    (root / "tasks.json").write_text(json.dumps({"tasks": [{"id": "auth", "title": "Login"}]}))
    w.run("tasks", "load", "tasks.json")
    err = w.run("chain", "start", "code", "x", "--task", "nope", code=3)
    assert "no task 'nope' in phase 2.1; tasks are auth" in err
    w.run("chain", "start", "code", "Add loginUser", "--task", "auth", *SIZE3)
    w.respond("code-1", RESEARCH)
    w.respond("code-1", WRITER)
    out = w.js("chain", "record", "code-1", *_write(root, "qa.json", QA_PASS))
    assert out["status"] == "completed"
    state = json.loads((root / ".agents" / "state.json").read_text())
    task = state["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]["auth"]
    assert task["status"] == "completed"
    assert w.chain("code-1")["workflow"] == {"phase": "2.1", "task": "auth", "recorded": True}
    assert out["next"]["command"] == "agents-state next"


def _write(root: Path, name: str, data: object) -> list[str]:
    (root / name).write_text(json.dumps(data))
    return [name]
