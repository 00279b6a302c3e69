"""Issue 27: ``chain record`` takes only an answer to the chain's current step; another step's
answer (its shape, phase or task id, an earlier run's included) or a request is refused in one
line naming the file (exit 5), and the chain is untouched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chainhelp import QA_FAIL, QA_PASS, RESEARCH, WRITER, Walk
from clitools import run_cli

SIZE3 = ("--files", "3", "--tasks", "3", "--modules", "1", "--effort", "medium")
HERE_WRITE = "the current step of code-1 is write (write, task_id code-1-write-1)"


def _at_write(root: Path) -> Walk:
    w = Walk(root)
    w.run("chain", "start", "code", "Add user authentication", *SIZE3)
    w.respond("code-1", RESEARCH)
    return w


def _record(root: Path, body: dict[str, Any]) -> tuple[int, str, str]:
    (root / "answer.json").write_text(json.dumps(body))
    r = run_cli(root, "chain", "record", "code-1", "answer.json")
    return r.returncode, r.stdout, r.stderr


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (  # the researcher's answer again, now at the writer's step (a new digest)
            {**RESEARCH, "context_summary": "JWT auth exists; extend it."},
            f"answer.json: is a researcher's answer (research); {HERE_WRITE}",
        ),
        (QA_PASS, f"answer.json: is a validator's answer (validate); {HERE_WRITE}"),
        (
            {**WRITER, "phase": "validate"},
            f"answer.json: phase: 'validate' answers another step; {HERE_WRITE}",
        ),
        (
            {**WRITER, "task_id": "code-1-research-1"},
            f"answer.json: task_id: 'code-1-research-1' answers another step or run; {HERE_WRITE}",
        ),
        (
            {
                "task_id": "code-1-write-1",
                "phase": "write",
                "context": {"feature": "Add user authentication"},
                "instructions": "x",
                "expected_output": "files_changed",
            },
            f"answer.json: is a handoff request, not an answer; {HERE_WRITE}",
        ),
    ],
)
def test_another_steps_answer_is_refused(root: Path, body: dict[str, Any], problem: str) -> None:
    w = _at_write(root)
    before = (root / ".agents/chains/code-1.json").read_bytes()
    assert _record(root, body) == (5, "", f"agents-state: error: {problem}\n")
    assert (root / ".agents/chains/code-1.json").read_bytes() == before
    w.respond("code-1", {**WRITER, "task_id": "code-1-write-1", "phase": "write"})  # the right one


def test_an_earlier_runs_answer_is_refused_after_a_retry(root: Path) -> None:
    w = _at_write(root)
    w.respond("code-1", {**WRITER, "task_id": "code-1-write-1"})
    w.respond("code-1", QA_FAIL)  # the writer runs again: run 2
    code, _out, err = _record(root, {**WRITER, "task_id": "code-1-write-1", "notes": "old"})
    assert code == 5
    assert err == (
        "agents-state: error: answer.json: task_id: 'code-1-write-1' answers another step or "
        "run; the current step of code-1 is write (write, task_id code-1-write-2)\n"
    )


def test_recording_the_same_answer_twice_is_still_a_no_op(root: Path) -> None:
    w = _at_write(root)
    w.respond("code-1", WRITER)
    rel = ".agents/chains/code-1/write-1.response.json"
    r = run_cli(root, "chain", "record", "code-1", rel)
    assert r.returncode == 0, r.stderr
    assert "already recorded" in r.stdout
    assert w.chain("code-1")["steps"][2]["status"] == "running"
