"""Issue 24: ``report`` summarises a walked workflow: phases with time and tokens, agents per
phase, tasks, retries, test runs and review rounds (Markdown and HTML)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from clitools import DATA, artifact_body, cli_json, run_cli, walk_to

from agents_state.usage.record import record_agent

AGENT_TOKENS = 100_020


def state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def complete(root: Path, phase: str, body: str) -> None:
    proc = run_cli(root, "phase", "complete", phase, "--artifact", "-", stdin=body)
    assert proc.returncode == 0, proc.stderr


def walk_on(root: Path, until: str) -> None:
    for _ in range(30):
        action = cli_json(root, "next")
        if action["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        if action["phase"] == until or action["kind"] == "done":
            return
        complete(root, action["phase"], artifact_body(action["write"]))
    raise AssertionError(until)


def walked(root: Path) -> None:
    walk_to(root, "1.3", "Add a health endpoint")
    blocking = {"issues": [{"severity": "high", "description": "no route", "file": "a.py"}]}
    complete(root, "1.3", json.dumps(blocking))  # one review round sends the plan back
    walk_on(root, "2.1")
    tasks = {"tasks": [{"id": "t1", "dependencies": []}, {"id": "t2", "dependencies": []}]}
    (root / "tasks.json").write_text(json.dumps(tasks))
    assert run_cli(root, "tasks", "load", str(root / "tasks.json")).returncode == 0
    agent = str(DATA / "usage" / "agent.jsonl")  # its prompt names t2
    assert record_agent(str(root), state(root), "a7", "subagents:task-agent", agent)
    for t in ("t1", "t2"):
        assert run_cli(root, "task", "done", t, "--force", "--summary", "ok").returncode == 0
    walk_on(root, "4.3")


def test_markdown_report(root: Path) -> None:
    walked(root)
    proc = run_cli(root, "report")
    assert proc.returncode == 0, proc.stderr
    md = proc.stdout
    assert md.startswith("# Workflow report: Add a health endpoint\n")
    assert (
        f"- tokens: {AGENT_TOKENS} (input 903, output 96, cache read 90012, cache write 9009)"
    ) in md
    rows = {ln.split(" | ")[0][2:]: ln for ln in md.splitlines() if re.match(r"\| \d", ln)}
    assert re.fullmatch(
        rf"\| 2\.1 \| Parallel Task Execution \| completed \| \S+ "
        rf"\| {AGENT_TOKENS} \| 1 \| 0 \| 0 \|",
        rows["2.1"],
    )
    assert rows["1.3"].endswith("| 0 | 0 | 0 | 1 |")  # no failure, one round sent back
    assert f"| a7 | subagents:task-agent | t2 | {AGENT_TOKENS} | 0s |" in md
    assert f"| t2 | completed | 1 | {AGENT_TOKENS} | 1 |" in md
    assert "| t1 | completed | 1 | 0 | 0 |" in md
    assert re.search(r"## Test runs\n\n1\. \S+: passed\n", md)
    assert "- review 1.3: 1 round(s) sent back" in md


def test_html_report_has_a_timeline(root: Path) -> None:
    walked(root)
    page = run_cli(root, "report", "--html").stdout
    assert page.startswith("<!doctype html>")
    assert page.count('class="bar phase"') >= 10
    assert page.count('class="bar agent"') == 1
    assert "subagents:task-agent t2 · 100k" in page
    assert "&lt;" not in page.split("<pre>")[0]  # nothing double-escaped in the timeline


def test_report_without_a_workflow_is_refused(root: Path) -> None:
    proc = run_cli(root, "report")
    assert proc.returncode == 3
    assert proc.stderr == (
        "agents-state: error: no workflow in this directory; start one with: "
        'agents-state dispatch "<task>"\n'
    )
