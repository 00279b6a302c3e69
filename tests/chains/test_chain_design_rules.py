"""Issue 27, item 5: the design rules of the code chain (designs 000 / 002).

The 4-agent chain's writer works from the researcher's summary, not the analyzer's; the code
writer's summary is capped at 300 tokens; the validator runs the security check and an answer
without it is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

from chainhelp import QA_PASS, RESEARCH, WRITER, Walk
from clitools import run_cli

from agents_state.handoff.tokens import estimate_tokens

SIZE4 = ("--files", "5", "--tasks", "3", "--modules", "1", "--effort", "medium")
ANALYSIS = {
    "mode": "refactor",
    "context_summary": "ANALYZER-ONLY: three helpers duplicate the token parsing.",
    "analysis": {"complexity": "medium"},
}


def _record(root: Path, body: dict[str, object], step: str) -> tuple[int, str]:
    rel = f".agents/chains/code-1/{step}.response.json"
    (root / rel).write_text(json.dumps(body))
    r = run_cli(root, "chain", "record", "code-1", rel)
    return r.returncode, r.stderr


def test_the_writer_of_the_4_agent_chain_gets_the_researchers_summary(root: Path) -> None:
    w = Walk(root)
    out = w.js("chain", "start", "code", "Refactor the auth module", *SIZE4)
    assert [s["id"] for s in w.chain("code-1")["steps"]] == [
        "research",
        "analyze",
        "write",
        "validate",
    ]
    assert out["sizing"]["designed"] == 4
    w.respond("code-1", RESEARCH)
    w.respond("code-1", ANALYSIS)
    (req,) = w.requests("code-1")
    assert req["phase"] == "write"
    assert req["context"]["previous_findings"] == RESEARCH["context_summary"]
    assert req["context"]["research_summary"] == RESEARCH["context_summary"]
    assert "ANALYZER-ONLY" not in json.dumps(req)


def test_the_code_writers_summary_is_capped_at_300_tokens(root: Path) -> None:
    w = Walk(root)
    w.run("chain", "start", "code", "Add user authentication", "--files", "3", "--tasks", "3")
    w.respond("code-1", RESEARCH)
    (req,) = w.requests("code-1")
    assert "a context_summary of at most 300 tokens" in req["instructions"]
    long = "word " * 320
    size = estimate_tokens(long)
    assert 300 < size <= 500  # within the general cap, over the writer's
    before = (root / ".agents/chains/code-1.json").read_bytes()
    code, err = _record(root, {**WRITER, "context_summary": long}, "write-1")
    assert (code, err) == (
        5,
        f"agents-state: error: .agents/chains/code-1/write-1.response.json: context_summary: "
        f"{size} tokens (estimated), over the code writer's 300-token cap: keep the files "
        "changed and what the validator must check\n",
    )
    assert (root / ".agents/chains/code-1.json").read_bytes() == before
    w.respond("code-1", WRITER)


def test_the_validator_runs_the_security_check(root: Path) -> None:
    w = Walk(root)
    w.run("chain", "start", "code", "Add user authentication", "--files", "3", "--tasks", "3")
    w.respond("code-1", RESEARCH)
    w.respond("code-1", WRITER)
    (req,) = w.requests("code-1")
    assert "run the security check on the changed files" in req["instructions"]
    assert 'checks.security {"passed": ..., "issues": [...]}' in req["instructions"]
    all_checks: dict[str, object] = json.loads(json.dumps(QA_PASS["checks"]))
    checks = {k: v for k, v in all_checks.items() if k != "security"}
    code, err = _record(root, {**QA_PASS, "checks": checks}, "validate-1")
    assert (code, err) == (
        5,
        "agents-state: error: .agents/chains/code-1/validate-1.response.json: checks.security: "
        "missing: the validator runs the security check too (debug output, hardcoded secrets, "
        "TODO/FIXME in the changed files)\n",
    )
    assert w.respond("code-1", QA_PASS)["status"] == "completed"
