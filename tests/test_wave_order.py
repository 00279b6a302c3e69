"""Issue 26: waves run every task after its dependencies, whatever order the tasks file lists them
in; the engine refuses waves that do not; a skipped task is recorded as skipped."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_waves import T0, _at_tasks, _tasks, _waves

from agents_state.engine import events as ev
from agents_state.engine.phases import apply, new_state
from agents_state.engine.waves import (
    TaskDef,
    find_cycle,
    late_dependencies,
    parse_tasks,
    plan_waves,
)
from agents_state.errors import InvalidInputError
from agents_state.policy import Policy
from agents_state.workflow import PHASE_IDS, TASK_PHASE


@st.composite
def task_files(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A random acyclic task set (each task depends on some created before it), listed in a
    random order: dependents may come first."""
    n = draw(st.integers(1, 14))
    specs = [
        {
            "id": f"t{i}",
            "dependencies": draw(
                st.lists(st.sampled_from([f"t{j}" for j in range(i)]), max_size=4, unique=True)
            )
            if i
            else [],
        }
        for i in range(n)
    ]
    return draw(st.permutations(specs))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(spec=task_files(), size=st.integers(1, 5))
def test_every_dependency_runs_in_an_earlier_wave_whatever_the_file_order(
    spec: list[dict[str, Any]], size: int
) -> None:
    defs = parse_tasks({"tasks": spec}, "f")
    waves = plan_waves(defs, size)
    wave_of = {t: i for i, w in enumerate(waves) for t in w}
    assert sorted(wave_of) == sorted(d.id for d in defs)
    assert sum(len(w) for w in waves) == len(defs)  # each task in exactly one wave
    assert all(1 <= len(w) <= size for w in waves)
    for d in defs:
        assert all(wave_of[dep] < wave_of[d.id] for dep in d.dependencies), (d.id, waves)
    assert late_dependencies(((d.id, d.dependencies) for d in defs), waves) is None


def test_dependents_listed_first_still_run_last() -> None:
    defs = parse_tasks(
        {
            "tasks": [
                {"id": "c", "dependencies": ["b"]},
                {"id": "b", "dependencies": ["a"]},
                {"id": "a"},
            ]
        },
        "f",
    )
    assert plan_waves(defs, 10) == [["a"], ["b"], ["c"]]


def _at_task_phase() -> Any:
    state = new_state(
        ev.Start(task="t", skipped=tuple(PHASE_IDS[: PHASE_IDS.index(TASK_PHASE)])), T0
    )
    return state


LATE = "f.json: tasks: b depends on a, which the planned waves run in the same or a later wave"


@pytest.mark.parametrize(
    ("waves", "message"),
    [
        ((("a", "b"),), LATE),
        ((("b",), ("a",)), LATE),
        ((("a",),), "f.json: tasks: the planned waves list a; each task must be in one wave"),
        (
            (("a",), ("b", "a")),
            "f.json: tasks: the planned waves list a, b, a; each task must be in one wave",
        ),
    ],
)
def test_the_engine_refuses_waves_that_run_a_task_before_its_dependencies(
    waves: tuple[tuple[str, ...], ...], message: str
) -> None:
    state = _at_task_phase()
    before = state.to_json_dict()
    defs = parse_tasks({"tasks": [{"id": "a"}, {"id": "b", "dependencies": ["a"]}]}, "f.json")
    load = ev.TasksLoad(
        tasks=tuple((d.id, d.as_state()) for d in defs), waves=waves, source="f.json"
    )
    with pytest.raises(InvalidInputError) as e:
        apply(state, load, T0)
    assert str(e.value) == message
    assert state.to_json_dict() == before


def test_late_dependencies_names_the_first_offender() -> None:
    deps = [("a", ()), ("b", ("a",)), ("c", ("a", "b"))]
    assert late_dependencies(deps, [["a"], ["b"], ["c"]]) is None
    assert late_dependencies(deps, [["a"], ["b", "c"]]) == ("c", ["b"])
    assert late_dependencies(deps, [["c"], ["a"], ["b"]]) == ("c", ["a", "b"])


def test_skip_records_failed_tasks_as_skipped_exactly() -> None:
    """resume --skip: the failed task is ``skipped`` (not ``completed``), its dependent runs."""
    pol = Policy(max_per_task=0)
    s = _at_tasks({"a": [], "b": [], "c": ["a"]}, pol)
    s = apply(s, ev.TaskClaim(agent="w", task_id="a"), T0, pol).state
    s = apply(s, ev.TaskClaim(agent="w", task_id="b"), T0, pol).state
    s = apply(s, ev.TaskDone(task_id="b"), T0, pol).state
    s = apply(s, ev.TaskFail(task_id="a", error="boom"), T0, pol).state
    assert s.status == "failed"
    out = apply(s, ev.Skip(), T0, pol)
    assert out.message == "skipped a; unblocked dependents: c"
    assert {t: v.status for t, v in _tasks(out.state).items()} == {
        "a": "skipped",
        "b": "completed",
        "c": "pending",
    }
    assert [w.status for w in _waves(out.state)] == ["completed", "in_progress"]
    s = apply(out.state, ev.TaskClaim(agent="w"), T0, pol).state
    out = apply(s, ev.TaskDone(task_id="c"), T0, pol)
    assert {t: v.status for t, v in _tasks(out.state).items()} == {
        "a": "skipped",
        "b": "completed",
        "c": "completed",
    }
    assert out.state.phase(TASK_PHASE).status == "completed"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(spec=task_files())
def test_waves_are_the_topological_levels_when_wide_enough(spec: list[dict[str, Any]]) -> None:
    """Issue 26: graphlib's ready batches give the same level sets as Kahn's levels did."""
    defs = parse_tasks({"tasks": spec}, "f")
    wave_of = {t: i for i, w in enumerate(plan_waves(defs, len(defs))) for t in w}
    for d in defs:
        assert wave_of[d.id] == max((wave_of[x] + 1 for x in d.dependencies), default=0)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(deps=st.lists(st.lists(st.integers(0, 7), max_size=3, unique=True), min_size=1, max_size=8))
def test_find_cycle_reports_a_real_cycle_or_none(deps: list[list[int]]) -> None:
    n = len(deps)
    defs = [
        TaskDef(f"t{i}", dependencies=tuple(f"t{j}" for j in ds if j < n and j != i))
        for i, ds in enumerate(deps)
    ]
    cycle = find_cycle(defs)
    if not cycle:
        assert len(plan_waves(defs, 3)) >= 1  # acyclic: the waves can be planned
        return
    by_id = {d.id: d for d in defs}
    assert cycle[0] == cycle[-1] and len(set(cycle)) == len(cycle) - 1
    assert all(b in by_id[a].dependencies for a, b in pairwise(cycle))
    with pytest.raises(InvalidInputError, match=f"dependency cycle: {' -> '.join(cycle)}"):
        parse_tasks(
            {"tasks": [{"id": d.id, "dependencies": list(d.dependencies)} for d in defs]}, "f"
        )


def test_one_did_you_mean_never_suggests_the_name_itself() -> None:
    """Issue 26: one rule for the four did-you-mean sites; a known name used in the wrong
    place was answered with itself ("summary: unknown field (did you mean summary?)")."""
    from agents_state.strictkeys import closest

    assert closest("summary", ["summary", "status"]) is None
    assert closest("sumary", ["status", "summary"]) == "summary"
    assert closest("decison", {"reason", "decision", "decisions"}) == "decision"
    assert closest("xyz", ["summary"]) is None


def test_the_merge_queue_waits_for_the_wave_and_takes_task_id_order() -> None:
    """Issue 35, item 5: a wave listed c, a, b (the tasks file's order) merges nothing while a
    task of it still runs, then a, b, c, whatever order they finished in."""
    from agents_state.engine.worktrees import merge_queue
    from agents_state.models import GitInfo

    s = _at_tasks({"c": [], "a": [], "b": []})
    s.git = GitInfo(branch="agents/integration", base="0" * 40)
    phase = s.phase(TASK_PHASE)
    tasks = _tasks(s)
    assert _waves(s)[0].tasks == ["c", "a", "b"]
    tasks["b"].status = tasks["c"].status = "completed"
    tasks["a"].status = "in_progress"
    assert merge_queue(s, phase) == []  # a still runs
    tasks["a"].status = "completed"
    assert merge_queue(s, phase) == ["a", "b", "c"]
    tasks["b"].merge = "merged"
    assert merge_queue(s, phase) == ["a", "c"]
