"""Issue 3: random claim / done / fail / retry / skip / resume sequences keep the invariants."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from test_waves import T0, _at_tasks

from agents_state import events as ev
from agents_state.engine import apply
from agents_state.errors import AgentsStateError
from agents_state.models import State
from agents_state.policy import Policy

POLICY = Policy(max_per_task=1, backoff_seconds=(1,), lease_seconds=30)
SPEC = {"a": [], "b": [], "c": ["a"], "d": ["a", "b"], "e": ["c"], "f": []}
IDS = sorted(SPEC)


class TaskMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state: State = _at_tasks(SPEC, POLICY)
        self.now = T0
        self.completed: set[str] = set()

    def _apply(self, event: ev.Event) -> None:
        before = self.state.to_json_dict()
        try:
            out = apply(self.state, event, self.now, POLICY)
        except AgentsStateError:
            assert self.state.to_json_dict() == before  # refused: input untouched
            return
        assert self.state.to_json_dict() == before  # apply never mutates its input
        if out.changed:
            assert out.state.revision == self.state.revision + 1
        else:
            assert out.state is self.state
        self.state = out.state

    @rule(seconds=st.integers(0, 40))
    def tick(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)

    @rule(agent=st.sampled_from(["w1", "w2", "w3"]), tid=st.none() | st.sampled_from(IDS))
    def claim(self, agent: str, tid: str | None) -> None:
        self._apply(ev.TaskClaim(agent=agent, task_id=tid))

    @rule(tid=st.sampled_from(IDS), agent=st.none() | st.sampled_from(["w1", "w2"]))
    def done(self, tid: str, agent: str | None) -> None:
        self._apply(ev.TaskDone(task_id=tid, agent=agent))

    @rule(tid=st.sampled_from(IDS))
    def fail(self, tid: str) -> None:
        self._apply(ev.TaskFail(task_id=tid, error="x"))

    @precondition(lambda self: self.state.status != "in_progress")
    @rule(move=st.sampled_from(["retry", "skip"]))
    def resume(self, move: str) -> None:
        self._apply(ev.Retry() if move == "retry" else ev.Skip())

    @invariant()
    def dependencies_first(self) -> None:
        tasks = self.state.phase("2.1").tasks or {}
        for tid, t in tasks.items():
            if t.status in ("in_progress", "completed"):
                for d in t.dependencies:
                    assert tasks[d].status in ("completed", "skipped"), (tid, d)

    @invariant()
    def completed_stay_completed(self) -> None:
        tasks = self.state.phase("2.1").tasks or {}
        now_done = {t for t, s in tasks.items() if s.status == "completed"}
        assert self.completed <= now_done
        self.completed = now_done

    @invariant()
    def one_current_wave(self) -> None:
        waves = self.state.phase("2.1").waves or []
        statuses = [w.status for w in waves]
        open_ = [i for i, s in enumerate(statuses) if s not in ("completed", "skipped")]
        if open_:
            first = open_[0]
            assert statuses[first] == "in_progress"
            assert all(s == "pending" for s in statuses[first + 1:])
            assert statuses.count("in_progress") == 1
        else:
            assert self.state.phase("2.1").status in ("completed", "skipped")

    @invariant()
    def failure_matches_tasks(self) -> None:
        f = self.state.failure
        tasks = self.state.phase("2.1").tasks or {}
        if self.state.status == "failed":
            assert f is not None and f.context is not None
            assert f.context.failedTask is not None
            assert tasks[f.context.failedTask].status == "failed"
            assert set(f.context.completedTasks) <= {t for t, s in tasks.items()
                                                     if s.status == "completed"}
        else:
            assert f is None


TaskMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40,
                                         deadline=None)
TestTaskMachine = TaskMachine.TestCase
