"""The sequential and parallel chains of designs 001 / 002, walked through the installed CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clitools import invoke

from .examples import VALID


def cli(root: Path, *args: str, code: int = 0) -> str:
    r = invoke(list(args), cwd=root)
    assert r.returncode == code, (args, r.stdout, r.stderr)
    return r.stdout + r.stderr


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def phase(root: Path, pid: str) -> dict[str, Any]:
    s = state(root)
    return next(st["phases"][pid] for st in s["stages"].values() if pid in st["phases"])


def write(root: Path, name: str, data: dict[str, Any]) -> str:
    (root / name).write_text(json.dumps(data))
    return name


def start(root: Path) -> None:
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
    cli(root, "dispatch", "Add user authentication")


def test_sequential_chain(tmp_path: Path) -> None:
    start(tmp_path)
    request = json.loads(cli(tmp_path, "handoff", "new"))
    assert (request["phase"], request["context"]["feature"]) == (
        "research",
        "Add user authentication",
    )
    research = write(tmp_path, "research.json", VALID["002 researcher output"][1])
    assert "PROCEED recorded on phase 0" in cli(tmp_path, "handoff", "record", research)
    assert phase(tmp_path, "0")["status"] == "completed"
    assert state(tmp_path)["handoffs"]["tokens"] == {"0": 15000}

    write(
        tmp_path,
        "tasks.json",
        {"tasks": [{"id": "auth", "title": "Add loginUser", "files": ["src/lib/auth.ts"]}]},
    )
    cli(tmp_path, "tasks", "load", "tasks.json")
    request = json.loads(cli(tmp_path, "handoff", "new", "--task", "auth"))
    # REQ-5.6: the researcher's context_summary, never its raw findings
    assert (
        request["context"]["previous_findings"]
        == VALID["002 researcher output"][1]["context_summary"]
    )
    writer = {**VALID["002 writer output"][1], "task_id": "auth"}
    cli(tmp_path, "handoff", "record", write(tmp_path, "writer.json", writer))
    assert phase(tmp_path, "2.1")["tasks"]["auth"]["status"] == "completed"

    simplify = write(tmp_path, "simplify.json", VALID["000 domain-writer data flow"][1])
    cli(tmp_path, "handoff", "record", simplify)
    assert state(tmp_path)["currentPhase"] == "2.3"

    qa_stop = {
        **VALID["002 qa output"][1],
        "decision": "STOP",
        "checks": {"tests": {"passed": False, "failed": ["loginUser should return token"]}},
    }
    out = cli(tmp_path, "handoff", "record", write(tmp_path, "qa1.json", qa_stop))
    assert "back to phase 2.2 (round 1 of 2)" in out
    s = state(tmp_path)
    assert (s["status"], s["currentPhase"]) == ("in_progress", "2.2")
    retry = json.loads(cli(tmp_path, "handoff", "new"))["context"]["retry_context"]
    assert retry == {"failures": ["tests: loginUser should return token"], "attempt": 2}

    cli(tmp_path, "handoff", "record", simplify)  # the writer's retry may repeat its answer
    assert state(tmp_path)["currentPhase"] == "2.3"
    qa_ok = write(tmp_path, "qa2.json", VALID["002 qa output"][1])
    cli(tmp_path, "handoff", "record", qa_ok)
    s = state(tmp_path)
    assert s["status"] == "completed"
    assert "retry" not in s["handoffs"]
    assert s["handoffs"]["tokens"] == {"0": 15000, "2.3": 16000}
    assert [r["decision"] for r in s["handoffs"]["records"]] == [
        "PROCEED",
        "PROCEED",
        "PROCEED",
        "STOP",
        "PROCEED",
        "PROCEED",
    ]
    # recording the same response again changes nothing
    assert "already recorded" in cli(tmp_path, "handoff", "record", qa_ok)


def test_writer_retries_at_most_twice_then_escalates(tmp_path: Path) -> None:
    start(tmp_path)
    cli(tmp_path, "phase", "complete", "0", "--artifact", write(tmp_path, "x.md", {}))
    write(tmp_path, "tasks.json", {"tasks": [{"id": "auth", "title": "Add loginUser"}]})
    cli(tmp_path, "tasks", "load", "tasks.json")
    cli(
        tmp_path,
        "handoff",
        "record",
        "--task",
        "auth",
        write(tmp_path, "w.json", VALID["002 writer output"][1]),
    )
    simplify = write(tmp_path, "s.json", VALID["000 domain-writer data flow"][1])
    for attempt in range(3):
        cli(tmp_path, "handoff", "record", simplify)
        stop = {
            "decision": "STOP",
            "checks": {"lint": {"passed": False, "errors": [f"no-unused-vars ({attempt})"]}},
        }
        cli(tmp_path, "handoff", "record", write(tmp_path, f"q{attempt}.json", stop))
    s = state(tmp_path)
    assert s["status"] == "blocked"
    assert s["blockedReason"].startswith(
        "review 2.3 still finds 1 blocking issue(s) after 2 rework round(s)"
    )


def test_clarify_then_answer(tmp_path: Path) -> None:
    start(tmp_path)
    clarify = write(tmp_path, "c.json", VALID["002 research CLARIFY"][1])
    cli(tmp_path, "handoff", "record", clarify)
    s = state(tmp_path)
    assert s["clarify"]["questions"] == ["Should auth use session cookies or JWT tokens?"]
    nxt = json.loads(cli(tmp_path, "next", "--json"))
    assert "Should auth use session cookies or JWT tokens?" in json.dumps(nxt)
    cli(tmp_path, "resume", "--answer", "JWT tokens")
    request = json.loads(cli(tmp_path, "handoff", "new"))
    assert request["context"]["constraints"] == [
        "The user answered 'Should auth use session cookies or JWT tokens?': JWT tokens"
    ]


def test_stop_blocks_with_reason(tmp_path: Path) -> None:
    start(tmp_path)
    cli(tmp_path, "handoff", "record", write(tmp_path, "s.json", VALID["002 research STOP"][1]))
    s = state(tmp_path)
    assert s["status"] == "blocked"
    assert s["blockedReason"] == ("research said STOP: loginUser already exists in src/lib/auth.ts")


def test_parallel_chain_four_checkers_one_stop(tmp_path: Path) -> None:
    start(tmp_path)
    cli(tmp_path, "phase", "complete", "0", "--artifact", write(tmp_path, "x.md", {}))
    write(tmp_path, "tasks.json", {"tasks": [{"id": "auth", "title": "Add loginUser"}]})
    cli(tmp_path, "tasks", "load", "tasks.json")
    cli(
        tmp_path,
        "handoff",
        "record",
        "--task",
        "auth",
        write(tmp_path, "w.json", VALID["002 writer output"][1]),
    )
    cli(
        tmp_path,
        "handoff",
        "record",
        write(tmp_path, "s.json", VALID["000 domain-writer data flow"][1]),
    )
    files = []
    for mode, status in (
        ("type", "pass"),
        ("lint", "pass"),
        ("test", "fail"),
        ("security", "pass"),
    ):
        files.append(
            write(
                tmp_path,
                f"{mode}.json",
                {
                    "check_type": mode,
                    "status": status,
                    "duration_ms": 900,
                    "tokens_used": 2000,
                    "output": "1 failed: loginUser should return token"
                    if status == "fail"
                    else "ok",
                },
            )
        )
    agg = json.loads(cli(tmp_path, "handoff", "aggregate", *files, "--json"))
    assert agg["decision"] == "STOP"
    assert list(agg["checks"]) == ["type", "lint", "test", "security"]
    assert agg["issues"] == ["test: 1 failed: loginUser should return token"]
    assert agg["tokens_used"] == {"type": 2000, "lint": 2000, "test": 2000, "security": 2000}
    assert phase(tmp_path, "2.3")["status"] == "pending"  # aggregate alone writes nothing
    out = cli(tmp_path, "handoff", "aggregate", *files, "--record")
    assert "back to phase 2.2 (round 1 of 2)" in out
    s = state(tmp_path)
    assert (s["status"], s["currentPhase"]) == ("in_progress", "2.2")
    assert s["handoffs"]["tokens"]["2.3"] == 8000
    assert s["handoffs"]["retry"]["failures"] == ["test: 1 failed: loginUser should return token"]
