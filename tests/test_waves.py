"""Issue 3: task definitions, waves, the task lifecycle, failure, retries and resume (core)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from agents_state.config import Config
from agents_state.engine import events as ev
from agents_state.engine.phases import apply, new_state
from agents_state.engine.waves import find_cycle, parse_tasks, plan_waves
from agents_state.errors import InvalidInputError, NotFoundError, TransitionNotAllowedError
from agents_state.models import State, TaskState, Wave
from agents_state.policy import Policy
from agents_state.views.nextaction import next_action

T0 = datetime(2026, 1, 29, 10, 0, tzinfo=UTC)


def _tasks(state: State) -> dict[str, TaskState]:
    tasks = state.phase("2.1").tasks
    assert tasks is not None
    return tasks


def _waves(state: State) -> list[Wave]:
    waves = state.phase("2.1").waves
    assert waves is not None
    return waves


def _defs(spec: dict[str, list[str]]) -> list[dict[str, Any]]:
    return [{"id": k, "dependencies": v} for k, v in spec.items()]


@pytest.mark.parametrize(
    "data,message",
    [
        ({"tasks": []}, "f.json: tasks: the task list is empty; define at least one task"),
        (
            {"tasks": {}},
            'f.json: tasks: expected a list of task objects (write {"tasks": [{"id": '
            '"task-1", "dependencies": []}]})',
        ),
        (
            {"tasks": _defs({"a": [], "b": ["a"]}) + _defs({"a": ["x"], "c": ["y", "b"]})},
            "f.json: tasks: duplicate ids: a; unknown dependencies: a -> x, c -> y",
        ),
        (
            {"tasks": _defs({"a": ["c"], "b": ["a"], "c": ["b"], "d": []})},
            "f.json: tasks: dependency cycle: a -> c -> b -> a",
        ),
        (
            {
                "tasks": [
                    {"id": "a/../b"},
                    {"id": 5, "complexity": "extreme"},
                    "x",
                    {"id": "ok", "dependencies": "a", "title": 3},
                ]
            },
            "f.json: tasks: tasks[0].id: 'a/../b' is not a valid id (letters, digits, '.', "
            "'_', '-'; "
            "at most 128); tasks[1].complexity: 'extreme' is not one of easy, medium, hard; "
            "tasks[2]: "
            "expected an object with an id; tasks[3].title: expected a string; unknown "
            "dependencies: "
            "ok -> a",
        ),
        ({"tasks": _defs({"a": ["a"]})}, "f.json: tasks: tasks that depend on themselves: a"),
    ],
)
def test_bad_task_files_list_every_problem(data: object, message: str) -> None:
    with pytest.raises(InvalidInputError) as e:
        parse_tasks(data, "f.json")
    assert str(e.value) == message


def test_waves_are_levels_split_by_max_parallel() -> None:
    defs = parse_tasks(
        {"tasks": _defs({"a": [], "b": [], "c": [], "d": ["a"], "e": ["d", "b"], "f": []})}, "f"
    )
    assert plan_waves(defs, 10) == [["a", "b", "c", "f"], ["d"], ["e"]]
    assert plan_waves(defs, 3) == [["a", "b", "c"], ["f"], ["d"], ["e"]]
    assert find_cycle(defs) == []


def test_ten_thousand_tasks_plan_linearly() -> None:
    spec = [
        {"id": f"t{i}", "dependencies": [f"t{j}" for j in range(max(0, i - 5), i)]}
        for i in range(10_000)
    ]
    waves = plan_waves(parse_tasks({"tasks": spec}, "f"), 10)
    assert len(waves) == 10_000 and waves[0] == ["t0"]


def _at_tasks(spec: dict[str, list[str]], policy: Policy | None = None) -> State:
    state = new_state(ev.Start(task="t"), T0)
    state.currentPhase, state.currentStage = "2.1", "IMPLEMENT"
    for pid in ("0", "1.1", "1.2", "1.3"):
        state.phase(pid).status = "completed"
    defs = parse_tasks({"tasks": _defs(spec)}, "f")
    load = ev.TasksLoad(
        tasks=tuple((d.id, d.as_state()) for d in defs),
        waves=tuple(tuple(w) for w in plan_waves(defs, 10)),
    )
    return apply(state, load, T0, policy).state


def test_claim_done_advances_waves_exactly_once() -> None:
    s = _at_tasks({"a": [], "b": [], "c": ["a", "b"]})
    out = apply(s, ev.TaskClaim(agent="w1"), T0)
    assert out.data["task"] == "a" and _tasks(out.state)["a"].owner == "w1"
    s = apply(out.state, ev.TaskClaim(agent="w2"), T0).state
    with pytest.raises(
        NotFoundError,
        match="nothing to claim: wave 1 is still running "
        r"\(2 task\(s\) in progress\)",
    ):
        apply(s, ev.TaskClaim(agent="w3"), T0)
    s = apply(s, ev.TaskDone(task_id="a", agent="w1"), T0).state
    assert _waves(s)[0].status == "in_progress"
    out = apply(s, ev.TaskDone(task_id="b", agent="w2"), T0)
    assert out.message == "b completed; wave 1 completed; wave 2 opened"
    again = apply(out.state, ev.TaskDone(task_id="b"), T0)
    assert not again.changed and again.message == "b is already completed; nothing changed"
    out = apply(out.state, ev.TaskDone(task_id="c"), T0)
    assert out.message == "c completed; wave 2 completed; phase 2.1 completed"
    assert out.state.currentPhase == "2.2" and out.state.phase("2.1").status == "completed"


def test_failed_task_waits_for_backoff_then_fails_workflow() -> None:
    pol = Policy(max_per_task=2, backoff_seconds=(5, 15, 30))
    s = _at_tasks({"a": [], "b": [], "c": ["a"]}, pol)
    s = apply(s, ev.TaskClaim(agent="w", task_id="a"), T0, pol).state
    out = apply(s, ev.TaskFail(task_id="a", error="boom"), T0, pol)
    assert out.message == ("a failed (attempt 1); retry 1 of 2 not before 2026-01-29T10:00:05Z")
    s = apply(out.state, ev.TaskClaim(agent="w", task_id="b"), T0, pol).state
    s = apply(s, ev.TaskDone(task_id="b"), T0, pol).state
    action = next_action(s, Config(), T0)
    assert action["kind"] == "wait" and action["until"] == "2026-01-29T10:00:05Z"
    with pytest.raises(TransitionNotAllowedError, match="waiting to retry"):
        apply(s, ev.TaskClaim(agent="w", task_id="a"), T0, pol)
    t1 = T0 + timedelta(seconds=6)
    s = apply(s, ev.TaskClaim(agent="w"), t1, pol).state
    with pytest.raises(TransitionNotAllowedError, match="this report is from attempt 1"):
        apply(s, ev.TaskDone(task_id="a", attempt=1), t1, pol)
    s = apply(s, ev.TaskFail(task_id="a", error="boom 2"), t1, pol).state
    t2 = t1 + timedelta(seconds=16)
    s = apply(s, ev.TaskClaim(agent="w"), t2, pol).state
    out = apply(s, ev.TaskFail(task_id="a", error="boom 3"), t2, pol)
    s = out.state
    assert s.status == "failed" and s.failure is not None
    assert s.failure.phase == "2.1"
    assert s.failure.error == "task a failed after 3 attempt(s): boom 3"
    assert s.failure.context is not None
    assert (
        s.failure.context.completedTasks,
        s.failure.context.failedTask,
        s.failure.context.pendingTasks,
    ) == (["b"], "a", ["c"])
    assert next_action(s, Config(), t2)["kind"] == "ask_user"
    # resume --retry: the task runs again, attempts counted
    r = apply(s, ev.Retry(), t2, pol).state
    assert r.status == "in_progress" and r.failure is None
    assert _tasks(r)["a"].status == "pending"
    assert _tasks(r)["a"].attempts == 3
    # resume --skip: a skipped and its dependent c unblocked
    k = apply(s, ev.Skip(), t2, pol)
    assert k.message == "skipped a; unblocked dependents: c"
    assert apply(k.state, ev.TaskClaim(agent="w"), t2, pol).data["task"] == "c"


def test_stale_claim_is_reclaimed_after_lease() -> None:
    pol = Policy(lease_seconds=60)
    s = _at_tasks({"a": []}, pol)
    s = apply(s, ev.TaskClaim(agent="dead"), T0, pol).state
    with pytest.raises(NotFoundError):
        apply(s, ev.TaskClaim(agent="w2"), T0 + timedelta(seconds=30), pol)
    out = apply(s, ev.TaskClaim(agent="w2"), T0 + timedelta(seconds=61), pol)
    assert out.message == "claimed a (attempt 2) (reclaimed from stale owner dead)"
    with pytest.raises(TransitionNotAllowedError, match="agent dead lost its claim"):
        apply(out.state, ev.TaskDone(task_id="a", agent="dead"), T0, pol)


def test_a_lease_renewed_by_task_start_is_counted_from_the_renewal() -> None:
    """Issue 35, item 5: ``task start`` on a task in progress renews its lease; the lease runs
    from the last renewal, not from the claim (kills ``beat = task.claimedAt`` in ``ready``)."""
    pol = Policy(lease_seconds=60)
    s = _at_tasks({"a": []}, pol)
    s = apply(s, ev.TaskClaim(agent="w1"), T0, pol).state
    renewed = apply(s, ev.TaskStart(task_id="a", agent="w1"), T0 + timedelta(seconds=50), pol)
    assert renewed.message == "a in progress (lease renewed)"
    s = renewed.state
    assert _tasks(s)["a"].claimedAt != _tasks(s)["a"].heartbeatAt
    # 100 s after the claim, 50 s after the renewal: still w1's
    with pytest.raises(NotFoundError):
        apply(s, ev.TaskClaim(agent="w2"), T0 + timedelta(seconds=100), pol)
    out = apply(s, ev.TaskClaim(agent="w2"), T0 + timedelta(seconds=111), pol)
    assert out.message == "claimed a (attempt 2) (reclaimed from stale owner w1)"


def test_only_the_owner_renews_its_lease() -> None:
    """Another agent's ``task start`` of a claimed task is refused and renews nothing."""
    pol = Policy(lease_seconds=60)
    s = apply(_at_tasks({"a": []}, pol), ev.TaskClaim(agent="w1"), T0, pol).state
    with pytest.raises(TransitionNotAllowedError, match="agent w2 does not own it"):
        apply(s, ev.TaskStart(task_id="a", agent="w2"), T0 + timedelta(seconds=50), pol)
    out = apply(s, ev.TaskClaim(agent="w2"), T0 + timedelta(seconds=61), pol)
    assert out.message == "claimed a (attempt 2) (reclaimed from stale owner w1)"


def test_a_phase_and_a_task_retry_by_one_rule() -> None:
    """Issue 35, item 6: one retry block (``engine.retry``): the same attempts have retries left
    and the same backoff for a failed phase and a failed task."""
    from agents_state.engine.retry import after_failure

    pol = Policy(max_per_task=2, max_per_phase=2, backoff_seconds=(5, 15))
    rule = [after_failure(n, 2, pol, T0) for n in (1, 2, 3)]
    assert [r.guard for r in rule] == ["retries_left", "retries_left", "retries_exhausted"]
    assert [r.at for r in rule] == ["2026-01-29T10:00:05Z", "2026-01-29T10:00:15Z", None]
    phase = apply(new_state(ev.Start(task="t"), T0), ev.PhaseStart(phase="0"), T0, pol).state
    phase = apply(phase, ev.PhaseFail(phase="0", error="x"), T0, pol).state
    task = apply(_at_tasks({"a": []}, pol), ev.TaskClaim(agent="w"), T0, pol).state
    task = apply(task, ev.TaskFail(task_id="a", error="x"), T0, pol).state
    assert phase.phase("0").retryAt == _tasks(task)["a"].retryAt == rule[0].at


def test_resume_retry_releases_tasks_of_a_dead_driver() -> None:
    s = _at_tasks({"a": [], "b": []})
    s = apply(s, ev.TaskClaim(agent="x"), T0).state
    out = apply(s, ev.Retry(), T0)
    assert out.message == "workflow resumed at phase 2.1; released running task(s): a"
    assert _tasks(out.state)["a"].status == "pending"
