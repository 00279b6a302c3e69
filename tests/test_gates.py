"""Issue 36, durable human gates: a gated phase, once recorded, waits for a person's answer
(``agents-state gate approve|reject``) before the next phase starts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from clitools import cli_json, run_cli, walk_to

from agents_state.engine import events as ev
from agents_state.engine.phases import apply, new_state
from agents_state.errors import TransitionNotAllowedError
from agents_state.models import State
from agents_state.policy import Policy

T0 = datetime(2026, 1, 1, tzinfo=UTC)
GATED = Policy(gates=frozenset({"1.1"}))
APPROVE = "agents-state gate approve 1.1 --by NAME"
REJECT = 'agents-state gate reject 1.1 --by NAME --note "WHY"'


def configure(root: Path, gates: Any) -> None:
    (root / ".agents" / "config.json").write_text(json.dumps({"gates": gates}))


def state_of(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".agents" / "state.json").read_text())
    return data


def at_gate() -> State:
    state = new_state(ev.Start(task="t", skipped=("0",)), T0)
    return apply(state, ev.PhaseComplete("1.1"), T0, GATED).state


# -- the engine -------------------------------------------------------------------------------


def test_a_recorded_gated_phase_waits_and_refuses_the_next_phase() -> None:
    state = at_gate()
    assert state.gate is not None and (state.gate.phase, state.gate.since) == (
        "1.1",
        "2026-01-01T00:00:00Z",
    )
    assert state.currentPhase == "1.1" and state.phase("1.1").status == "completed"
    assert state.phase("1.2").status == "pending"
    for event in (ev.PhaseStart("1.2"), ev.PhaseComplete("1.2"), ev.Retry(), ev.Skip()):
        with pytest.raises(TransitionNotAllowedError) as e:
            apply(state, event, T0, GATED)
        assert str(e.value).startswith(
            "workflow is waiting at the gate after phase 1.1 (since 2026-01-01T00:00:00Z): cannot "
        )
        assert f"only a person answers it, in their own shell: {APPROVE}" in str(e.value)


def test_without_the_gate_the_workflow_goes_on() -> None:
    state = new_state(ev.Start(task="t", skipped=("0",)), T0)
    state = apply(state, ev.PhaseComplete("1.1"), T0, Policy()).state
    assert state.gate is None and state.currentPhase == "1.2"


def test_approve_goes_on_and_is_recorded() -> None:
    out = apply(at_gate(), ev.GateAnswer("1.1", "approved", "ann"), T0, GATED)
    assert out.message == "gate 1.1 Brainstorm approved by ann"
    assert out.state.gate is None and out.state.currentPhase == "1.2"
    [answer] = out.state.gateAnswers
    assert (answer.phase, answer.verdict, answer.by, answer.at, answer.note) == (
        "1.1",
        "approved",
        "ann",
        "2026-01-01T00:00:00Z",
        None,
    )
    assert out.record["event"] == "gate" and out.record["by"] == "ann"


def test_reject_sends_the_phase_back_and_it_waits_again_when_recorded() -> None:
    out = apply(at_gate(), ev.GateAnswer("1.1", "rejected", "ann", "more areas"), T0, GATED)
    state = out.state
    assert state.gate is None and state.currentPhase == "1.1"
    assert state.phase("1.1").status == "pending" and state.phase("1.1").completedAt is None
    again = apply(state, ev.PhaseComplete("1.1"), T0, GATED).state
    assert again.gate is not None and again.gate.phase == "1.1"
    assert [a.verdict for a in again.gateAnswers] == ["rejected"]


def test_the_same_answer_again_is_a_no_op_and_another_is_refused() -> None:
    state = apply(at_gate(), ev.GateAnswer("1.1", "approved", "ann"), T0, GATED).state
    again = apply(state, ev.GateAnswer("1.1", "approved", "ann"), T0, GATED)
    assert not again.changed and again.state is state
    assert (
        again.message
        == "gate 1.1 was already approved by ann at 2026-01-01T00:00:00Z; nothing changed"
    )
    with pytest.raises(TransitionNotAllowedError) as e:
        apply(state, ev.GateAnswer("1.1", "rejected", "bob", "no"), T0, GATED)
    assert str(e.value) == "gate 1.1 is not waiting: cannot reject (no gate waits)"


def test_a_gated_last_phase_waits_before_the_workflow_completes() -> None:
    last = Policy(gates=frozenset({"4.3"}))
    from agents_state.workflow import PHASE_IDS

    state = new_state(ev.Start(task="t", skipped=PHASE_IDS[:-1]), T0)
    state = apply(state, ev.PhaseComplete("4.3"), T0, last).state
    assert state.status == "in_progress" and state.gate is not None
    done = apply(state, ev.GateAnswer("4.3", "approved", "ann"), T0, last).state
    assert done.status == "completed" and done.gate is None


def test_stop_abort_and_the_same_record_pass_the_gate() -> None:
    state = at_gate()
    assert apply(state, ev.Stop(), T0, GATED).state.stopRequested
    aborted = apply(state, ev.Abort(), T0, GATED).state
    assert aborted.abortedAt and aborted.gate is None
    same = apply(state, ev.PhaseComplete("1.1", same_artifact=True), T0, GATED)
    assert not same.changed and "already recorded" in same.message
    stopped = apply(
        apply(state, ev.Stop(), T0, GATED).state, ev.GateAnswer("1.1", "approved", "a"), T0, GATED
    )
    assert stopped.state.status == "stopped"  # the stop asked for at the gate takes effect


# -- the command line -------------------------------------------------------------------------


def test_config_refuses_an_unknown_phase(root: Path) -> None:
    assert run_cli(root, "dispatch", "t").returncode == 0
    configure(root, ["1.3", "9.9"])
    for args in (("config", "validate"), ("next",)):
        proc = run_cli(root, *args)
        assert proc.returncode == 5
        assert proc.stderr.strip() == (
            "agents-state: error: .agents/config.json: gates: unknown phase '9.9'; gates name "
            "phase ids, one of 0, 1.1, 1.2, 1.3, 2.1, 2.2, 2.3, 3.1, 3.2, 3.3, 4.1, 4.2, 4.3"
        )


def test_next_asks_the_user_and_names_the_commands(root: Path) -> None:
    walk_to(root, "1.1")
    configure(root, ["1.1"])
    assert run_cli(root, "phase", "complete", "1.1", "--artifact", "-", stdin="x").returncode == 0
    action = cli_json(root, "next")
    since = state_of(root)["gate"]["since"]
    assert action["kind"] == "ask_user" and action["ask"] == "gate" and action["command"] is None
    assert action["gate"] == {
        "phase": "1.1",
        "since": since,
        "artifact": ".agents/phases/1.1-brainstorm.md",
        "personApproves": APPROVE,
        "personRejects": REJECT,
    }
    words = action["instructions"]
    assert "Do not answer the gate yourself and do not run the gate commands" in words
    assert APPROVE in words and REJECT in words and "tell the user" in words
    text = run_cli(root, "next").stdout
    assert "NEXT: ask the user" in text and APPROVE in text
    status = cli_json(root, "status")
    assert status["workflow"]["gate"] == {"phase": "1.1", "since": since}
    assert status["next"]["ask"] == "gate"
    shown = run_cli(root, "status").stdout
    assert f"GATE: waiting for a person since {since} after phase 1.1 Brainstorm" in shown
    refused = run_cli(root, "phase", "start", "1.2")
    assert refused.returncode == 4 and APPROVE in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_reject_then_approve_through_the_cli(root: Path) -> None:
    walk_to(root, "1.1")
    configure(root, ["1.1"])
    run_cli(root, "phase", "complete", "1.1", "--artifact", "-", stdin="x")
    out = cli_json(root, "gate", "reject", "1.1", "--by", "ann", "--note", "list the areas")
    assert out["applied"] is True and out["next"]["phase"] == "1.1"
    assert (
        "A person (ann) rejected this phase at its gate: list the areas."
        in out["next"]["instructions"]
    )
    assert state_of(root)["gateAnswers"][0]["note"] == "list the areas"
    run_cli(root, "phase", "complete", "1.1", "--artifact", "-", stdin="y")
    out = cli_json(root, "gate", "approve", "1.1", "--by", "ann")
    assert out["applied"] is True and out["next"]["phase"] == "1.2"
    again = cli_json(root, "gate", "approve", "1.1", "--by", "ann")
    assert again["applied"] is False
    listed = cli_json(root, "gate", "list")
    assert listed["configured"] == ["1.1"] and listed["waiting"] is None
    assert [(a["verdict"], a["by"]) for a in listed["answers"]] == [
        ("rejected", "ann"),
        ("approved", "ann"),
    ]
    events = [json.loads(x) for x in (root / ".agents" / "events.jsonl").read_text().splitlines()]
    gates = [(e["verdict"], e["by"], e.get("note")) for e in events if e["event"] == "gate"]
    assert gates == [("rejected", "ann", "list the areas"), ("approved", "ann", None)]
    report = run_cli(root, "report").stdout
    assert "## Gates" in report and "| 1.1 | rejected | ann |" in report


def test_an_answer_to_a_phase_not_waiting_changes_nothing(root: Path) -> None:
    walk_to(root, "1.1")
    before = (root / ".agents" / "state.json").read_bytes()
    proc = run_cli(root, "gate", "approve", "1.1", "--by", "ann")
    assert proc.returncode == 4
    assert (
        proc.stderr
        == "agents-state: error: gate 1.1 is not waiting: cannot approve (no gate waits)\n"
    )
    assert (root / ".agents" / "state.json").read_bytes() == before
    for args, message in (
        (("reject", "1.1", "--by", "ann"), "Missing option '--note'."),
        (("approve", "1.1", "--by", " "), "--by must not be empty"),
        (("approve", "7", "--by", "ann"), "unknown phase '7'"),
    ):
        proc = run_cli(root, "gate", *args)
        assert proc.returncode in (2, 3) and message in proc.stderr
        assert (root / ".agents" / "state.json").read_bytes() == before


def test_watch_shows_the_waiting_gate(root: Path) -> None:
    import subprocess

    from clitools import CLI

    walk_to(root, "1.1")
    configure(root, ["1.1"])
    run_cli(root, "phase", "complete", "1.1", "--artifact", "-", stdin="x")
    proc = subprocess.Popen(
        [CLI, "--root", str(root), "watch", "--plain", "--exit-on-done"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = []  # its first frame, read as it comes (it shows the gate)
        for line in proc.stdout:
            first.append(line)
            if "GATE: waiting for a person since " in line:
                break
        assert run_cli(root, "resume", "--abort").returncode == 0
        rest, err = proc.communicate(timeout=60)
        out = "".join(first) + rest
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    since = state_of(root)["gateAnswers"] == [] and out
    assert since and "GATE: waiting for a person since " in out
    assert "after phase 1.1 Brainstorm; look at .agents/phases/1.1-brainstorm.md" in out
