"""Issue 35, item 4, second round: the other hook readers read the hooks' view.

The sub-agent start hook (the current phase, the workflow's start), the task agent's own-room
check (isolation, whether phase 2.1 has tasks, which task the agent holds) and the approvals of
``agents-state task`` commands (who holds a task) read ``.agents/hook-view.json`` when it names
the very ``state.json``; the view holds exactly what they would read of the state
(``store.hookview.facts``), and a stale view sends them to the state itself."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agents_state.engine import events as ev
from agents_state.engine.phases import Outcome, apply, new_state
from agents_state.engine.waves import parse_tasks, plan_waves
from agents_state.hooks import taskowner, workflow_root
from agents_state.hooks._base import active_facts
from agents_state.hooks.ownroom import isolated_state, own_room
from agents_state.models import GitInfo, State
from agents_state.store.files import Store
from agents_state.store.hookview import facts

T0 = datetime(2026, 1, 29, 10, 0, tzinfo=UTC)


def _workflow(root: Path, git: bool) -> None:
    """Phase 2.1 with t0..t5 in waves of three; t0 held by agent a1, t1 by a2."""
    state = new_state(ev.Start(task="t"), T0)
    for pid in ("0", "1.1", "1.2", "1.3"):
        state.phase(pid).status = "completed"
    state.currentPhase, state.currentStage = "2.1", "IMPLEMENT"
    defs = parse_tasks({"tasks": [{"id": f"t{i}"} for i in range(6)]}, "test")
    load = ev.TasksLoad(
        tasks=tuple((d.id, d.as_state()) for d in defs),
        waves=tuple(tuple(w) for w in plan_waves(defs, 3)),
    )
    state = apply(state, load, T0).state
    if git:
        state.git = GitInfo(branch="agents-state/integration", base="0" * 40)
    tasks = state.phase("2.1").tasks
    assert tasks is not None
    for tid, agent in (("t0", "a1"), ("t1", "a2")):
        task = tasks[tid].model_copy()
        task.status, task.owner = "in_progress", f"agent-{agent}"
        tasks[tid] = task

    def put(_: State | None) -> Outcome:
        return Outcome(state, "set up", True, {})

    Store(root).commit(put)


def _state_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of ``state.json`` through the hooks' readers."""
    from agents_state.store import fsops

    opened: list[str] = []
    for module in (workflow_root, fsops):
        real = module.read_regular

        def spy(path: str, *args: object, _real: object = real) -> bytes:
            if os.path.basename(path) == "state.json":
                opened.append(path)
            return _real(path, *args)  # type: ignore[operator,no-any-return]

        monkeypatch.setattr(module, "read_regular", spy)
    return opened


def _view(root: Path) -> dict[str, object]:
    view = json.loads((root / ".agents/hook-view.json").read_bytes())
    del view["state"]
    return view  # type: ignore[no-any-return]


@pytest.mark.parametrize("git", [True, False])
def test_the_view_holds_what_the_hooks_read_of_the_state(root: Path, git: bool) -> None:
    _workflow(root, git)
    state = json.loads((root / ".agents/state.json").read_bytes())
    assert _view(root) == facts(state)
    assert _view(root)["held"] == {"agent-a1": ["t0"], "agent-a2": ["t1"]}
    assert (_view(root)["git"], _view(root)["tasksLoaded"]) == (git, True)
    assert _view(root)["startedAt"] == state["startedAt"]
    assert _view(root)["currentPhase"] == "2.1"


def test_the_own_room_check_reads_the_view_not_the_state(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _workflow(root, git=True)
    opened = _state_reads(monkeypatch)
    found = isolated_state(str(root))
    assert found is not None
    room, name = own_room(str(root), found, {"agent_id": "a2"})
    assert (room, name) == (
        os.path.join(os.path.realpath(root), ".agents/worktrees/t1"),
        "task t1's worktree .agents/worktrees/t1",
    )
    with pytest.raises(ValueError, match=r"it holds no task of phase 2\.1"):
        own_room(str(root), found, {"agent_id": "a3"})
    assert opened == []


def test_without_isolation_the_own_room_check_reads_no_state(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _workflow(root, git=False)
    opened = _state_reads(monkeypatch)
    assert isolated_state(str(root)) is None
    assert opened == []


def test_a_stale_view_sends_the_own_room_check_to_the_state(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _workflow(root, git=True)
    path = root / ".agents/state.json"
    data = json.loads(path.read_bytes())  # a hand edit: a2 now holds t2, not t1
    tasks = data["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]
    tasks["t1"]["status"], tasks["t1"]["owner"] = "pending", None
    tasks["t2"]["status"], tasks["t2"]["owner"] = "in_progress", "agent-a2"
    path.write_text(json.dumps(data, indent=2))
    opened = _state_reads(monkeypatch)
    found = isolated_state(str(root))
    assert found is not None and opened
    assert own_room(str(root), found, {"agent_id": "a2"})[1].startswith("task t2's worktree")


def test_task_approvals_read_who_holds_what_from_the_view(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _workflow(root, git=False)
    opened = _state_reads(monkeypatch)

    def judge(command: str, agent: str | None) -> tuple[str, str, str | None] | None:
        payload: dict[str, object] = {"tool_input": {"command": command}}
        if agent:
            payload |= {"agent_id": agent, "agent_type": "subagents:task-agent"}
        return taskowner.judge(payload, str(root), "ok")

    assert judge("agents-state task done t0", "a1") == (
        "allow",
        "ok",
        "agents-state task done t0 --agent agent-a1",
    )
    start = judge("agents-state task start t1", "a1")
    assert start is not None and start[0] == "deny" and "held by another agent" in start[1]
    assert judge("agents-state task start t2", "a1") is not None
    assert judge("agents-state task done t1", None) is None  # a sub-agent holds it: ask
    assert judge("agents-state task done t2", None) == ("allow", "ok", None)
    assert opened == []
    denied = judge("agents-state task done t2", "a1")  # the reason reads the state
    assert denied is not None and denied[0] == "deny" and "nobody started it" in denied[1]
    assert "this agent holds task t0" in denied[1] and opened


def test_the_start_hook_reads_the_phase_from_the_view(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _workflow(root, git=False)
    opened = _state_reads(monkeypatch)
    found = active_facts(str(root))
    assert found is not None and found["currentPhase"] == "2.1"
    assert opened == []
    (root / ".agents/hook-view.json").unlink()
    again = active_facts(str(root))
    assert again is not None and opened
    assert {k: v for k, v in again.items() if k != "state"} == facts(
        json.loads((root / ".agents/state.json").read_bytes())
    )


def test_a_task_started_with_no_owner_is_held_in_the_view(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task in progress that names no owner (a person's ``task start``) is still held: an
    agent's ``task start`` of it is denied, as when the hook read the state itself."""
    _workflow(root, git=False)

    def start_unowned(state: State | None) -> Outcome:
        assert state is not None
        tasks = state.phase("2.1").tasks
        assert tasks is not None
        task = tasks["t2"].model_copy()
        task.status = "in_progress"
        tasks["t2"] = task
        return Outcome(state, "started", True, {})

    Store(root).commit(start_unowned)
    assert _view(root)["held"] == {"agent-a1": ["t0"], "agent-a2": ["t1"], "": ["t2"]}
    opened = _state_reads(monkeypatch)
    payload = {
        "tool_input": {"command": "agents-state task start t2"},
        "agent_id": "a3",
        "agent_type": "subagents:task-agent",
    }
    found = taskowner.judge(payload, str(root), "ok")
    assert found is not None and found[0] == "deny" and "held by another agent" in found[1]
    assert opened == []
