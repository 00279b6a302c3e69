"""Issue 15, item 1: files a model writes are read strictly; a slip is refused (exit 5) with a
did-you-mean that names the file the model passed and the key; the state on disk is untouched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract.helpers import js, sh, state_bytes, walk_to

REVIEW_CASES = [
    (
        '{"issue": [{"severity": "critical", "description": "x"}]}',
        "review.json: issue: unknown key; did you mean 'issues'?",
    ),
    ('{"Issues": []}', "review.json: Issues: unknown key; did you mean 'issues'?"),
    (
        '{"findings": [{"severity": "high", "description": "x"}]}',
        "review.json: findings: unknown key; did you mean 'issues'?",
    ),
    (
        "{}",
        'review.json: issues: missing; write the issues found as {"issues": [{"severity": '
        '"high", "description": "..."}]}, or {"issues": []} for a clean review',
    ),
    (
        '{"issues": {"severity": "high"}}',
        "review.json: issues: expected a list of issues, e.g. "
        '{"issues": [{"severity": "high", "description": "..."}]}',
    ),
    (
        '{"issues": [{"description": "no rollback"}]}',
        "review.json: issues[0].severity: missing; one of critical, high, medium, low",
    ),
    (
        '{"issues": [{"severity": "blocker", "description": "x"}]}',
        "review.json: issues[0].severity: 'blocker' is not one of critical, high, medium, low",
    ),
    (
        '{"issues": [{"severity": "high", "message": "x"}]}',
        "review.json: issues[0].message: unknown key; did you mean 'description'?",
    ),
    (
        '{"issues": [{"severity": "high"}]}',
        "review.json: issues[0].description: missing or empty; say what is wrong",
    ),
    (
        '"looks good"',
        'review.json: expected a JSON object such as {"issues": [{"severity": '
        '"high", "description": "..."}]}',
    ),
]


@pytest.mark.parametrize(("body", "message"), REVIEW_CASES)
def test_review_typo_is_refused_not_a_clean_review(root: Path, body: str, message: str) -> None:
    walk_to(root, "1.3")
    before = state_bytes(root)
    (root / "review.json").write_text(body)
    code, out, err = sh(root, "phase", "complete", "1.3", "--artifact", str(root / "review.json"))
    expected = message.replace("review.json", str(root / "review.json"))
    assert (code, out, err) == (5, "", f"agents-state: error: {expected}\n")
    assert state_bytes(root) == before
    assert not (root / ".agents/phases/1.3-plan-review.json").exists()


def test_review_error_as_json_names_the_stdin(root: Path) -> None:
    walk_to(root, "1.3")
    code, out, err = sh(
        root, "phase", "complete", "1.3", "--artifact", "-", "--json", stdin='{"Issues": []}'
    )
    assert code == 5 and out == ""
    assert json.loads(err) == {
        "error": {
            "code": "invalid",
            "exit": 5,
            "message": "<stdin>: Issues: unknown key; did you mean 'issues'?",
        }
    }


def test_review_severity_any_case_and_clean_review_pass(root: Path) -> None:
    walk_to(root, "1.3")
    body = '{"issues": [{"severity": "LOW", "description": "naming", "file": "a.py", "line": 3}]}'
    out = js(root, "phase", "complete", "1.3", "--artifact", "-", stdin=body)
    assert out["message"] == "phase 1.3 Plan Review completed"


TASK_CASES = [
    (
        {"tasks": [{"id": "a"}, {"id": "b", "requires": ["a"]}]},
        "tasks: tasks[1].requires: unknown key; did you mean 'dependencies'?",
    ),
    (
        {"tasks": [{"id": "a"}, {"id": "b", "blockedBy": ["a"]}]},
        "tasks: tasks[1].blockedBy: unknown key; did you mean 'dependencies'?",
    ),
    (
        {"tasks": [{"id": "a", "titel": "x"}]},
        "tasks: tasks[0].titel: unknown key; did you mean 'title'?",
    ),
    (
        {"tasks": [{"id": "a", "estimate": 3}]},
        "tasks: tasks[0].estimate: unknown key; known keys: id, title, description, dependencies, "
        "complexity, files",
    ),
    ({"task": [{"id": "a"}]}, "task: unknown key; did you mean 'tasks'?"),
    (
        {"tasks": [{"id": "a", "title": "x" * 201}]},
        "tasks: tasks[0].title: 201 characters; the limit is 200",
    ),
    (
        {"tasks": [{"id": "a", "description": "x" * 4001}]},
        "tasks: tasks[0].description: 4001 characters; the limit is 4000",
    ),
]


@pytest.mark.parametrize(("doc", "message"), TASK_CASES)
def test_tasks_file_unknown_field_refused(root: Path, doc: object, message: str) -> None:
    walk_to(root, "2.1")
    before = state_bytes(root)
    (root / "t.json").write_text(json.dumps(doc))
    code, out, err = sh(root, "tasks", "load", "t.json")
    assert (code, out, err) == (5, "", f"agents-state: error: t.json: {message}\n")
    assert state_bytes(root) == before
    assert not (root / ".agents/phases/2.1-tasks.json").exists()


RESULT_CASES = [
    (
        '{"commands": [{"name": "test", "exit_code": 1}]}',
        "commands[0].exit_code: unknown key; did you mean 'exitCode'?",
    ),
    ('{"results": []}', "results: unknown key; did you mean 'commands'?"),
    (
        '{"commands": []}',
        "commands: missing or empty; list every command that ran with its exit "
        'code, e.g. {"commands": [{"name": "test", "command": "...", "exitCode": 0}]}',
    ),
    (
        '{"commands": [{"name": "test"}]}',
        "commands[0].exitCode: missing; the command's exit code (null if it timed out)",
    ),
    (
        '{"commands": [{"name": "test", "exitCode": "0"}]}',
        "commands[0].exitCode: '0' is not an integer or null",
    ),
    (
        '{"passed": true, "commands": [{"name": "test", "exitCode": 2}]}',
        "passed: True does not match the exit codes (1 command(s) failed); leave it out or fix it",
    ),
    (
        '{"failed": [], "commands": [{"name": "test", "exitCode": 2}]}',
        "failed: does not list the commands whose exit code is not 0 (test); leave it out or "
        "fix it",
    ),
]


@pytest.mark.parametrize(("body", "message"), RESULT_CASES)
def test_test_results_file_is_validated(root: Path, body: str, message: str) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text('{"stages": {"TEST": {"commands": {}}}}')
    walk_to(root, "3.1")
    before = state_bytes(root)
    (root / "r.json").write_text(body)
    code, out, err = sh(root, "phase", "complete", "3.1", "--artifact", "r.json")
    assert (code, out, err) == (5, "", f"agents-state: error: r.json: {message}\n")
    assert state_bytes(root) == before


def test_handoff_unknown_key_is_refused_with_did_you_mean(root: Path) -> None:
    (root / "h.json").write_text(
        json.dumps({"decision": "PROCEED", "findings": {}, "context_sumary": "x"})
    )
    code, out, err = sh(root, "handoff", "validate", "h.json")
    assert (code, out, err) == (
        5,
        "",
        "agents-state: error: h.json: 2 problems: context_summary: "
        "required field missing; context_sumary: unknown field (did you "
        "mean context_summary?)\n",
    )


MARKDOWN_CASES = [
    (b"", "is empty; write the phase's findings into it"),
    (b" \n\t\r\n", "has only whitespace; write the phase's findings into it"),
    (b"\xef\xbb\xbf\n", "has only whitespace; write the phase's findings into it"),
    (b"# notes\x00\x01\x02", "is binary (a NUL at byte 7); a Markdown artifact is UTF-8 text"),
    (b"\x89PNG\r\n\x1a\n", "is not valid UTF-8 (byte 0); save it as UTF-8"),
    (b"# caf\xe9", "is not valid UTF-8 (byte 5); save it as UTF-8"),
]


@pytest.mark.parametrize(("body", "problem"), MARKDOWN_CASES)
@pytest.mark.parametrize("how", ["file", "in place"])
def test_issue_27_empty_or_binary_markdown_artifact_is_refused(
    root: Path, body: bytes, problem: str, how: str
) -> None:
    walk_to(root, "1.1")
    before = state_bytes(root)
    if how == "file":
        (root / "notes.md").write_bytes(body)
        shown, args = str(root / "notes.md"), ["--artifact", str(root / "notes.md")]
    else:  # written where the next action said, then `phase complete` without --artifact
        (root / ".agents/phases/1.1-brainstorm.md").write_bytes(body)
        shown, args = ".agents/phases/1.1-brainstorm.md", []
    code, out, err = sh(root, "phase", "complete", "1.1", *args)
    assert (code, out, err) == (5, "", f"agents-state: error: {shown}: {problem}\n")
    assert state_bytes(root) == before


def test_issue_27_empty_task_result_is_refused(root: Path) -> None:
    walk_to(root, "2.1")
    (root / "tasks.json").write_text(json.dumps({"tasks": [{"id": "t1", "title": "one"}]}))
    assert sh(root, "tasks", "load", "tasks.json")[0] == 0
    assert sh(root, "task", "claim", "--agent", "w1")[0] == 0
    before = state_bytes(root)
    (root / "result.md").write_text("\n")
    code, out, err = sh(root, "task", "done", "t1", "--force", "--result", "result.md")
    problem = "has only whitespace; write the phase's findings into it"
    assert (code, out, err) == (5, "", f"agents-state: error: result.md: {problem}\n")
    assert state_bytes(root) == before
