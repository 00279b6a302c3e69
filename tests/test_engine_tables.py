"""Issue 18: the transition tables are real.

Every status the engine writes is read from ``engine.table`` (or the chains' own table), so:

- parity: driving the hypothesis machines of ``test_engine_stateful`` (plus the test gate and
  the resume moves they do not reach) looks up only keys that are in the tables, and every table
  entry is looked up at least once or is listed in ``UNREACHED_BY_DESIGN`` with a reason;
- mutation: changing any one target in a table changes what the engine does.  For each entry
  the parity run keeps a witness (the first ``apply`` call that read it: the state, the event,
  the result); with the entry's target changed, that same call is refused or gives another
  state.  The random machines' own invariants catch only some of these mutations (see
  docs/decisions.md, issue 18), the witnesses catch each one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
import test_engine_stateful
import test_waves
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, precondition, rule, run_state_machine_as_test
from test_engine_stateful import IDS, PHASES, REVIEWS, PhaseMachine, TaskMachine
from test_waves import T0

from agents_state.engine import events as ev
from agents_state.engine import table
from agents_state.engine.context import Outcome
from agents_state.engine.phases import apply, new_state
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import State, Wave
from agents_state.policy import Policy
from agents_state.workflow import PHASE_IDS, TASK_PHASE, TEST_ANALYSIS, TEST_RUN

Key = tuple[str, str, str]

UNREACHED_BY_DESIGN: dict[Key, str] = {
    ("pending", "skip", "tasks"): "a task phase with failed tasks is failed or in progress; "
    "kept so a hand-edited state with failed tasks in a pending phase can still be skipped",
    ("pending", "tests_passed", "fixed"): "after a failed run the analysis is current, so the "
    "run cannot pass while its analysis is pending; kept for a hand-edited state",
}


WORKFLOW_UNREACHED: dict[Key, str] = {
    **{
        ("pending", event, guard): "a started workflow is in progress (new_state); kept so that "
        "a hand-written pending state can still be stopped or aborted"
        for event, guard in (("stop", "nothing_started"), ("abort", ""))
    }
}


class Recording(dict[Key, Any]):
    """A table that remembers which keys the engine looked up, and which it missed."""

    def __init__(self, source: dict[Key, Any]) -> None:
        super().__init__(source)
        self.hits: set[Key] = set()
        self.misses: set[Key] = set()
        self.fresh: set[Key] = set()  # read during the current ``apply`` call

    def __getitem__(self, key: Key) -> Any:
        value = super().__getitem__(key)
        self.fresh.add(key)
        self.hits.add(key)
        return value

    def __missing__(self, key: Key) -> Any:
        self.misses.add(key)
        raise KeyError(key)


LATE_STARTS = ["1.2", "2.2", TEST_RUN, TEST_RUN, "4.1"]  # a review or the tests next
LATE_POLICY = Policy(max_per_phase=1, review_max_retries={p: 1 for p in REVIEWS})


class GatePhaseMachine(PhaseMachine):
    """The phase machine plus test runs that pass or fail (the TEST gate's moves) and runs that
    start late (every phase before a review or the tests skipped), so short walks reach them."""

    @precondition(lambda self: self.state is None)
    @rule(at=st.sampled_from(LATE_STARTS))
    def start_late(self, at: str) -> None:
        self.policy = LATE_POLICY
        skipped = tuple(PHASE_IDS[: PHASE_IDS.index(at)])
        self.state = new_state(ev.Start(task="t", skipped=skipped), self.now)

    @precondition(lambda self: self.state is not None)
    @rule(passed=st.sampled_from([True, False, False]))
    def test_run(self, passed: bool) -> None:
        assert self.state is not None
        if self.state.currentPhase == TEST_RUN:
            self._apply(
                ev.PhaseComplete(
                    phase=TEST_RUN,
                    tests_passed=passed,
                    failed_commands=() if passed else ("pytest",),
                )
            )
        elif self.state.currentPhase == TEST_ANALYSIS:
            self._apply(ev.PhaseComplete(phase=TEST_ANALYSIS))

    @invariant()
    def done_phases_stay_done_unless_sent_back(self) -> None:
        """As in the phase machine, and the gate's send-back: a finished analysis reopens the
        failed test run, a failed run reopens the analysis."""
        s = self.state
        if s is None:
            return
        done = {p for p in PHASES if s.phase(p).status in ("completed", "skipped")}
        for p in self.done - done:
            assert s.phase(p).status in ("pending", "blocked"), p
            assert p in (TEST_RUN, TEST_ANALYSIS) or any(
                s.phase(r).reviewRounds > 0 for r in REVIEWS
            ), p
        self.done = done


class ResumingTaskMachine(TaskMachine):
    """The task machine plus ``task start`` and a retry while running (the driver died)."""

    @rule(tid=st.sampled_from(IDS), agent=st.none() | st.sampled_from(["w1", "w2"]))
    def start(self, tid: str, agent: str | None) -> None:
        self._apply(ev.TaskStart(task_id=tid, agent=agent))

    @precondition(lambda self: self.state.status == "in_progress")
    @rule()
    def driver_died(self) -> None:
        self._apply(ev.Retry())


def _load_into_listed_waves() -> None:
    """Design 004: definitions for waves the state lists, some done (not in the machines)."""
    state = new_state(
        ev.Start(task="t", skipped=tuple(PHASE_IDS[: PHASE_IDS.index(TASK_PHASE)])), T0
    )
    state.phase(TASK_PHASE).waves = [
        Wave(tasks=["a"], status="completed"),
        Wave(tasks=["b"], status="skipped"),
        Wave(tasks=["c"], status="pending"),
    ]
    load = ev.TasksLoad(
        tasks=tuple((t, {"dependencies": []}) for t in "abc"), waves=(("a",), ("b",), ("c",))
    )
    out = apply(state, load, T0)
    tasks = out.state.phase(TASK_PHASE).tasks or {}
    assert [tasks[t].status for t in "abc"] == ["completed", "skipped", "pending"]


def _walk(start_at: str, policy: Policy, *events: ev.Event, skip: tuple[str, ...] = ()) -> None:
    """Apply ``events`` in order from a workflow that starts at ``start_at``; none is refused."""
    before = tuple(PHASE_IDS[: PHASE_IDS.index(start_at)])
    state = new_state(ev.Start(task="t", skipped=before + skip), T0)
    for event in events:
        state = apply(state, event, T0, policy).state


def _scenarios() -> None:
    """Moves the random walks reach too rarely to rely on: review rounds, the test gate."""
    start, done = ev.PhaseStart, ev.PhaseComplete
    one_round = Policy(max_per_phase=1, review_max_retries={"1.3": 1})
    sent_back = (start("1.2"), done("1.2"), start("1.3"), done("1.3", blocking_issues=1))
    _walk(
        "1.2",
        one_round,
        *sent_back,
        *sent_back,
        ev.Retry(),
        done("1.3", blocking_issues=1),
        done("1.2"),
        done("1.3", blocking_issues=1),
        ev.Skip(),
    )
    # issue 36: a person rejects a gated phase, then approves it
    gated = Policy(gates=frozenset({"1.2"}))
    answer = ev.GateAnswer
    _walk(
        "1.2",
        gated,
        done("1.2"),
        answer("1.2", "rejected", "ann", "no"),
        done("1.2"),
        answer("1.2", "approved", "ann"),
    )
    # a review of a skipped phase (every phase before ``start_at`` is): nothing to rework
    _walk("1.3", one_round, start("1.3"), done("1.3", blocking_issues=1), ev.Retry())
    _walk("1.3", one_round, done("1.3", blocking_issues=1), ev.Skip())
    fail = done(TEST_RUN, tests_passed=False, failed_commands=("pytest",))
    run_fail = (start(TEST_RUN), fail)
    _walk(
        TEST_RUN,
        one_round,
        *run_fail,
        done(TEST_ANALYSIS),
        *run_fail,
        ev.Retry(),
        done(TEST_ANALYSIS),
        start(TEST_RUN),
        done(TEST_RUN, tests_passed=True),
    )
    _walk(TEST_RUN, one_round, *run_fail, done(TEST_ANALYSIS), *run_fail, ev.Skip())
    _walk(TEST_RUN, Policy(max_per_phase=2), *run_fail, done(TEST_ANALYSIS), *run_fail)
    _walk(TEST_RUN, one_round, done(TEST_RUN, tests_passed=True))
    pf = ev.PhaseFail(phase=PHASE_IDS[1], error="x")
    _walk(PHASE_IDS[1], one_round, pf, start(PHASE_IDS[1]), pf, ev.Retry(), pf, ev.Skip())
    _walk(
        PHASE_IDS[1],
        one_round,
        start(PHASE_IDS[1]),
        pf,
        pf,
        ev.Retry(),
        start(PHASE_IDS[1]),
        ev.Retry(),
    )
    no_rounds = Policy(max_per_phase=0)
    _walk(TEST_RUN, no_rounds, fail, ev.Retry())
    _walk(TEST_RUN, no_rounds, fail, ev.Skip())
    _walk(TEST_RUN, one_round, fail, skip=(TEST_ANALYSIS,))
    _walk(TEST_RUN, no_rounds, fail, ev.Retry(), skip=(TEST_ANALYSIS,))
    _walk(PHASE_IDS[0], one_round, start(PHASE_IDS[0]), ev.Block(reason="r"), ev.Skip())
    load = ev.TasksLoad(
        tasks=(("a", {"dependencies": []}), ("b", {"dependencies": ["a"]})), waves=(("a",), ("b",))
    )
    _walk(
        TASK_PHASE,
        Policy(max_per_task=0),
        load,
        ev.TaskClaim(agent="w"),
        ev.Block(reason="r"),
        ev.TaskFail(task_id="a", error="x"),
        ev.Skip(),
    )
    # a hand-edited state at the last phase whose last test run failed
    state = new_state(ev.Start(task="t", skipped=PHASE_IDS[:-1]), T0)
    state.phase(TEST_RUN).passed, state.phase(TEST_RUN).status = False, "completed"
    assert apply(state, done(PHASE_IDS[-1]), T0).state.status == "blocked"
    _workflow_scenarios()


def _workflow_scenarios() -> None:
    """The workflow's own moves the walks reach rarely: a stop while a step runs (honoured when
    it ends), a stop before it started (the step in flight is still recorded, issue 15)."""
    start, done, stop = ev.PhaseStart, ev.PhaseComplete, ev.Stop()
    first, last = PHASE_IDS[0], PHASE_IDS[-1]
    one_round = Policy(max_per_phase=1, review_max_retries={"1.3": 1})
    _walk(first, one_round, start(first), stop, done(first))  # advance: stops as requested
    pf = ev.PhaseFail(phase=first, error="x")
    _walk(first, one_round, start(first), stop, pf)  # a retry left: stops as requested
    _walk(first, Policy(max_per_phase=0), stop, pf)  # stopped, no retry left: fails
    _walk(last, one_round, stop, done(last))  # stopped before the last step: it finishes
    blocking = done("1.3", blocking_issues=1)
    _walk("1.2", Policy(review_max_retries={"1.3": 0}), done("1.2"), stop, blocking)
    _walk("1.3", one_round, stop, blocking)  # 1.2 skipped: nothing to rework
    fail = done(TEST_RUN, tests_passed=False, failed_commands=("pytest",))
    _walk(TEST_RUN, Policy(max_per_phase=0), stop, fail)  # stopped, out of fix rounds: blocked
    # each of the other workflow moves once, whatever the random walks reach in this order
    _walk(last, one_round, done(last))
    _walk("1.2", Policy(review_max_retries={"1.3": 0}), done("1.2"), blocking)
    for resume in (ev.Retry(), ev.Skip(), ev.Abort()):
        _walk(first, one_round, stop, resume)
    _walk(first, one_round, ev.Abort())
    _walk(first, one_round, start(first), ev.Block(reason="r"), ev.Abort())
    _walk(first, Policy(max_per_phase=0), pf, ev.Abort())
    _walk(first, one_round, stop, done(first))  # stopped before the step: recorded, then stops
    _walk(first, one_round, stop, pf)  # the same with a retry left
    load = ev.TasksLoad(tasks=(("a", {"dependencies": []}),), waves=(("a",),))
    claim, task_fail = ev.TaskClaim(agent="w"), ev.TaskFail(task_id="a", error="x")
    _walk(TASK_PHASE, Policy(max_per_task=0), load, claim, task_fail)
    # stopped before the last step, the last test run failed: blocked, not completed
    state = new_state(ev.Start(task="t", skipped=PHASE_IDS[:-1]), T0)
    state.phase(TEST_RUN).passed, state.phase(TEST_RUN).status = False, "completed"
    state = apply(state, stop, T0).state
    assert apply(state, done(last), T0).state.status == "blocked"
    _task_walks()


def _task_walks() -> None:
    """Every task move and the task phase's own, by fixed walks (issue 26): the random machines
    reach them too, but which ones a run reaches had come to depend on the order of the tests."""
    two = ev.TasksLoad(
        tasks=(("a", {"dependencies": []}), ("b", {"dependencies": ["a"]})), waves=(("a",), ("b",))
    )
    other = ev.TasksLoad(tasks=(("c", {"dependencies": []}),), waves=(("c",),))
    one_retry, no_retry = Policy(max_per_task=1, lease_seconds=30), Policy(max_per_task=0)
    claim, late = ev.TaskClaim(agent="w"), T0 + timedelta(seconds=60)
    fail_a = ev.TaskFail(task_id="a", error="x")
    _walk(TASK_PHASE, one_retry, two, ev.TaskStart(task_id="a", agent="w"), ev.TaskDone("a"))
    _walk(TASK_PHASE, one_retry, two, ev.TaskDone("a"), ev.TaskDone("b"))  # done claims; last
    _walk(TASK_PHASE, one_retry, two, claim, fail_a, fail_a)  # in progress, then pending: fail
    _walk(TASK_PHASE, no_retry, two, fail_a, ev.Retry(), fail_a, ev.Skip())  # pending: exhausted
    _walk(TASK_PHASE, one_retry, two, claim, ev.Retry())  # the driver died: released
    _walk(TASK_PHASE, one_retry, two, other)  # nothing claimed yet: loaded again
    state = new_state(
        ev.Start(task="t", skipped=tuple(PHASE_IDS[: PHASE_IDS.index(TASK_PHASE)])), T0
    )
    state = apply(state, two, T0, one_retry).state
    state = apply(state, claim, T0, one_retry).state
    assert apply(state, ev.TaskClaim(agent="v"), late, one_retry).data["task"] == "a"  # stale


@dataclass(frozen=True)
class Witness:
    state: State
    event: ev.Event
    now: datetime
    policy: Policy | None
    result: dict[str, Any]


def _witnessing(
    real: Callable[..., Outcome],
    tables: dict[str, Recording],
    witnesses: dict[tuple[str, Key], list[Witness]],
) -> Callable[..., Outcome]:
    def apply_and_witness(
        state: State, event: ev.Event, now: datetime, policy: Policy | None = None
    ) -> Outcome:
        for t in tables.values():
            t.fresh.clear()
        out = real(state, event, now, policy)
        for name, t in tables.items():
            for key in t.fresh:
                seen = witnesses.setdefault((name, key), [])
                if len(seen) < WITNESSES:
                    seen.append(Witness(state, event, now, policy, out.state.to_json_dict()))
        return out

    return apply_and_witness


def _drive(examples: int) -> None:
    fast = settings(
        max_examples=examples,
        stateful_step_count=50,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
    )  # a failure is reported unshrunk
    run_state_machine_as_test(GatePhaseMachine, settings=fast)
    run_state_machine_as_test(ResumingTaskMachine, settings=fast)
    _load_into_listed_waves()
    _scenarios()


WITNESSES = 12  # calls kept per entry: one whose result the entry's target decides is enough
TABLES = ("PHASE_MOVES", "TASK_MOVES", "WORKFLOW_MOVES")  # issue 26: the workflow's own too
Recorded = tuple[dict[str, Recording], dict[tuple[str, Key], list[Witness]]]


@pytest.fixture(scope="module")
def recorded() -> Iterator[Recorded]:
    tables = {name: Recording(getattr(table, name)) for name in TABLES}
    witnesses: dict[tuple[str, Key], list[Witness]] = {}
    wrapped = _witnessing(apply, tables, witnesses)
    with pytest.MonkeyPatch.context() as mp:
        for name, recording in tables.items():
            mp.setattr(table, name, recording)
        for module in (sys.modules[__name__], test_engine_stateful, test_waves):
            mp.setattr(module, "apply", wrapped)
        _drive(300)
    yield tables, witnesses


def test_every_reached_pair_is_a_table_entry_and_every_entry_is_reached(recorded: Recorded) -> None:
    tables = recorded[0]
    assert {name: t.misses for name, t in tables.items()} == {name: set() for name in TABLES}
    unreached = {
        (name, k) for name, t in tables.items() for k in getattr(table, name) if k not in t.hits
    }
    assert sorted(unreached) == sorted(_unreached_by_design())


def _unreached_by_design() -> set[tuple[str, Key]]:
    """``UNREACHED_BY_DESIGN`` (phase and task keys) and ``WORKFLOW_UNREACHED``, by table."""
    return {
        (name, k)
        for name in ("PHASE_MOVES", "TASK_MOVES")
        for k in getattr(table, name)
        if k in UNREACHED_BY_DESIGN
    } | {("WORKFLOW_MOVES", k) for k in WORKFLOW_UNREACHED}


OTHER = {
    "pending": "in_progress",
    "in_progress": "pending",
    "completed": "pending",
    "failed": "pending",
    "blocked": "pending",
    "skipped": "completed",
    "stopped": "in_progress",
}
ENTRIES = [
    (name, key)
    for name in TABLES
    for key in getattr(table, name)
    if (name, key) not in _unreached_by_design()
]


@pytest.mark.parametrize(("name", "key"), ENTRIES, ids=lambda v: str(v))
def test_changing_a_target_changes_what_the_engine_does(
    recorded: Recorded, monkeypatch: pytest.MonkeyPatch, name: str, key: Key
) -> None:
    witnesses = recorded[1][(name, key)]
    mutated = dict(getattr(table, name))
    mutated[key] = OTHER[mutated[key]]
    monkeypatch.setattr(table, name, mutated)
    assert any(_differs(w) for w in witnesses), f"{len(witnesses)} witness(es) unchanged"


def _differs(w: Witness) -> bool:
    try:
        result = apply(w.state, w.event, w.now, w.policy).state.to_json_dict()
    except TransitionNotAllowedError:
        return True  # refused: a later lookup has no entry for the changed status
    return result != w.result


def test_guards_are_typed_and_each_is_used() -> None:
    """Issue 26: the guards are a ``Literal`` (a misspelt one fails the type check); this keeps
    the type and the tables the same set."""
    from typing import get_args

    used = {k[2] for name in TABLES for k in getattr(table, name)}
    assert used == set(get_args(table.Guard))


def test_each_event_type_has_one_handler() -> None:
    """Issue 26: events are dispatched by type; the phase and workflow events through
    ``HANDLERS``, the task events through ``apply_task_event``; only ``Start`` has none
    (``new_state`` takes it)."""
    from agents_state.engine.flow import HANDLERS

    events = {c for c in vars(ev).values() if isinstance(c, type) and issubclass(c, ev.Event)}
    tasks = {ev.TasksLoad, ev.TaskClaim, ev.TaskStart, ev.TaskDone, ev.TaskFail}
    tasks |= {ev.MergeBegin, ev.MergeRecord, ev.MergeResolve}  # worktree isolation (issue 22)
    assert HANDLERS.kinds == events - tasks - {ev.Event, ev.Start}


def test_an_outcome_and_a_context_stay_as_built() -> None:
    """``Ctx`` and ``Outcome`` are plain classes now (issue 26), read-only like the frozen
    dataclasses they replace, each with its own ``record`` and ``data``."""
    from agents_state.engine.context import Ctx, Outcome

    a, b = Outcome(None, "m"), Outcome(None, "m", False)  # type: ignore[arg-type]
    assert (a.changed, b.changed, a.record, a.data) == (True, False, {}, {})
    assert a.record is not b.record and a.data is not b.data
    assert repr(b) == "Outcome(state=None, message='m', changed=False, record={}, data={})"
    with pytest.raises(AttributeError, match="cannot assign to field 'message'"):
        a.message = "n"
    with pytest.raises(AttributeError, match="cannot delete field 'state'"):
        del a.state
    c = Ctx(None, "ts", None, None)  # type: ignore[arg-type]
    with pytest.raises(AttributeError, match="cannot assign to field 'ts'"):
        c.ts = "x"


def test_issue_33_a_phase_nobody_started_is_timed_from_when_it_became_current() -> None:
    """Phases completed without `phase start` read 0 s: their start was their completion."""
    t0 = datetime(2026, 11, 28, 12, 0, 0, tzinfo=T0.tzinfo)
    state = new_state(ev.Start(task="t"), t0)
    state = apply(state, ev.PhaseComplete(phase="0"), t0 + timedelta(minutes=5)).state
    state = apply(state, ev.PhaseComplete(phase="1.1"), t0 + timedelta(minutes=12)).state
    explore, ideas = state.phase("0"), state.phase("1.1")
    assert (explore.startedAt, explore.completedAt) == (
        "2026-11-28T12:00:00Z",
        "2026-11-28T12:05:00Z",
    )
    assert (ideas.startedAt, ideas.completedAt) == ("2026-11-28T12:05:00Z", "2026-11-28T12:12:00Z")
    # an explicit start still counts from itself
    state = apply(state, ev.PhaseStart(phase="1.2"), t0 + timedelta(minutes=20)).state
    state = apply(state, ev.PhaseComplete(phase="1.2"), t0 + timedelta(minutes=30)).state
    assert state.phase("1.2").startedAt == "2026-11-28T12:20:00Z"
