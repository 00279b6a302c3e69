"""Issue 10: design 000's sizing decides how many sub-agents a chain uses, with the reasons."""

from __future__ import annotations

from pathlib import Path

import pytest
from chainhelp import Walk

from agents_state.chains.catalogue import CHAINS, plan_steps, size_feature

# design 000's table: files, tasks, modules, effort -> sub-agents and phases.  The two rows the
# algorithm disagrees with (docs/decisions.md) are given the algorithm's count.
TABLE = [
    ("Fix typo in README", 1, 1, 1, "small", 1, ["write"]),
    ("Add simple endpoint", 2, 2, 1, "small", 2, ["research", "write"]),
    (
        "Add feature (5 tasks, 3 files)",
        3,
        5,
        2,
        "medium",
        4,
        ["research", "analyze", "write", "validate"],
    ),  # table: 3
    (
        "Refactor module (10 files, 3 tasks)",
        10,
        3,
        1,
        "medium",
        5,
        ["research", "write", "validate"],
    ),  # table: 4
    (
        "Large feature (20 files, 12 tasks)",
        20,
        12,
        4,
        "large",
        7,
        ["research", "write", "validate"],
    ),
]


@pytest.mark.parametrize("row", TABLE, ids=[r[0] for r in TABLE])
def test_design_000_table(row: tuple[object, ...]) -> None:
    feature, files, tasks, modules, effort, count, steps = row
    sizing, _inputs = size_feature(str(feature), files, tasks, modules, effort)  # type: ignore
    assert sizing.count == count
    planned, _shape = plan_steps(CHAINS["code"], sizing, int(modules), None, None)  # type: ignore
    assert [s.id for s in planned] == steps
    assert sum(s.count for s in planned) == count


def test_three_row_add_feature_from_the_data_flow_example() -> None:
    # design 000's "Add user authentication": 3 files, 4 tasks, 2 modules -> 4 by its algorithm
    sizing, _ = size_feature("Add user authentication", 3, 4, 2, "medium")
    assert sizing.reasons == ["start at 1", "3 file(s): +1", "4 task(s): +1", "2 modules: +1"]


def test_sizing_is_shown_with_its_reasons(root: Path) -> None:
    w = Walk(root)
    out = w.run("chain", "start", "code", "Fix typo in README", "--files", "1", "--tasks", "1")
    lines = out.splitlines()
    assert lines[0] == "chain code-1 started: 1 sub-agent: the writer alone"  # issue 27: no "\\n"
    assert lines[1].startswith(
        "sizing: 1 sub-agent(s) (simple): estimated modules, effort from the feature text"
    )
    assert "NEXT: dispatch 1 domain-writer agent(s)" in out
    data = w.js(
        "chain",
        "start",
        "code",
        "Large feature",
        "--files",
        "20",
        "--tasks",
        "12",
        "--modules",
        "4",
        "--effort",
        "large",
    )
    assert data["sizing"]["designed"] == 7 and data["sizing"]["reasons"][-1] == "capped at 7"
    assert data["sizing"]["shape"].startswith(
        "7 sub-agents: researcher + 5 writers split by module boundaries"
    )
    c = w.chain("code-2")
    assert [s["count"] if "count" in s else len(s.get("instances") or [1]) for s in c["steps"]] == [
        1,
        5,
        1,
    ]
    w.respond("code-2", {"decision": "PROCEED", "findings": {}, "context_summary": "ok"})
    nxt = w.js("chain", "next", "code-2")["next"]
    assert nxt["agents"]["count"] == 5
    assert nxt["instances"][0]["instance"] == "module 1 of 5"
