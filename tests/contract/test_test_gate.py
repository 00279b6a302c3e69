"""Issue 15, items 2-4: the TEST gate, stop after the current step, ask the user when blocked."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agents_state.commands import run_phase_commands
from contract.helpers import FAILING, PASSING, js, sh, state_bytes, walk_to


def _no_commands(root: Path, retries: int = 2) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps({"stages": {"TEST": {"commands": {}}}, "retries": {"maxPerPhase": retries}})
    )


def _record_run(root: Path, body: str) -> dict[str, Any]:
    out: dict[str, Any] = js(root, "phase", "complete", "3.1", "--artifact", "-", stdin=body)
    return out


def _analyse(root: Path) -> dict[str, Any]:
    out: dict[str, Any] = js(
        root, "phase", "complete", "3.2", "--artifact", "-", stdin="fixed the import\n"
    )
    return out


def test_failing_run_goes_to_analysis_and_back_then_passes(root: Path) -> None:
    _no_commands(root)
    walk_to(root, "3.1")
    out = _record_run(root, FAILING)
    assert out["message"] == (
        "phase 3.1 Run Tests FAILED (test): next phase 3.2 analyses and "
        "fixes them (fix round 1 of 2)"
    )
    assert out["status"] == "in_progress" and out["next"]["phase"] == "3.2"
    inline = [i["path"] for i in out["next"].get("inline", [])]  # issue 34: short, printed
    assert ".agents/phases/3.1-test-results.json" in [*out["next"]["read"], *inline]
    assert "The last test run FAILED" in out["next"]["instructions"]
    out = _analyse(root)
    assert out["message"] == (
        "phase 3.2 Analyze Failures completed; back to phase 3.1 to run the tests again"
    )
    assert out["next"]["phase"] == "3.1"
    out = _record_run(root, PASSING)
    assert out["message"] == "phase 3.1 Run Tests passed"
    assert out["next"]["phase"] == "3.3" or out["next"]["kind"] == "compact"
    state = json.loads(state_bytes(root))
    p31 = state["stages"]["TEST"]["phases"]["3.1"]
    assert (p31["status"], p31["passed"], p31["failedRuns"]) == ("completed", True, 0)
    assert state["stages"]["TEST"]["phases"]["3.2"]["status"] == "completed"


def test_tests_that_keep_failing_ask_the_user_never_complete(root: Path) -> None:
    _no_commands(root, retries=1)
    walk_to(root, "3.1")
    _record_run(root, FAILING)
    _analyse(root)
    out = _record_run(root, FAILING)
    assert out["message"] == (
        "phase 3.1 Run Tests FAILED (test); workflow blocked: ask the user (see: agents-state next)"
    )
    action = out["next"]
    assert action["kind"] == "ask_user" and action["command"] is None
    assert action["reason"] == (
        "tests still fail after 1 fix round(s) (failed: test); see "
        ".agents/phases/3.1-test-results.json"
    )
    assert action["options"] == [
        {
            "option": "retry",
            "command": "agents-state resume --retry",
            "effect": "another round: fix the failures (phase 3.2), then run the tests again",
        },
        {
            "option": "skip",
            "command": "agents-state resume --skip",
            "effect": "accept the failing tests and go on to phase 3.3 (the final status records "
            "it)",
        },
        {
            "option": "abort",
            "command": "agents-state resume --abort",
            "effect": "end the workflow, keep every file",
        },
    ]
    code, text, _ = sh(root, "next")
    assert code == 0 and text.splitlines()[:5] == [
        "NEXT: ask the user — TEST / phase 3.1 Run Tests",
        "  reason: tests still fail after 1 fix round(s) (failed: test); see "
        ".agents/phases/3.1-test-results.json",
        "  option retry: agents-state resume --retry — another round: fix the failures (phase "
        "3.2), then run the tests again",
        "  option skip: agents-state resume --skip — accept the failing tests and go on to "
        "phase 3.3 (the final status records it)",
        "  option abort: agents-state resume --abort — end the workflow, keep every file",
    ]
    # the model cannot move on by itself
    before = state_bytes(root)
    code, _, err = sh(root, "phase", "complete", "3.3", "--artifact", "-", stdin='{"issues": []}')
    assert (code, err) == (
        4,
        "agents-state: error: workflow is blocked: cannot phase complete; "
        "allowed from here: abort, compact, retry, skip, task done, task fail, "
        "task start (run: agents-state resume)\n",
    )
    assert state_bytes(root) == before
    # retry: a fresh round of fixes
    out = js(root, "resume", "--retry")
    assert out["message"] == "another round of fixes: phase 3.2, then the tests run again"
    assert out["next"]["phase"] == "3.2"


def test_skip_by_the_user_is_recorded_in_the_final_status(root: Path) -> None:
    _no_commands(root, retries=0)
    walk_to(root, "3.1")
    assert _record_run(root, FAILING)["next"]["kind"] == "ask_user"
    out = js(root, "resume", "--skip")
    assert out["message"] == ("phase 3.1 Run Tests skipped; failing tests accepted by the user")
    for _ in range(20):
        a = js(root, "next")
        if a["kind"] == "done":
            break
        if a["kind"] == "compact":
            sh(root, "compact")
            continue
        if a["phase"] == "3.3":
            assert "The user accepted failing tests" in a["instructions"]
        body = '{"issues": []}' if a["write"].endswith(".json") else "x"
        assert sh(root, "phase", "complete", a["phase"], "--artifact", "-", stdin=body)[0] == 0
    assert a["instructions"].endswith(
        "Tests: FAILING, accepted by the user. Skipped by the user: phase 3.1, 3.2."
    )


def test_a_handoff_cannot_pass_the_test_gate(root: Path) -> None:
    # issue 15: phase 3.1 passes on its results only; a PROCEED handoff naming it is refused
    _no_commands(root)
    walk_to(root, "3.1")
    before = state_bytes(root)
    from protocol.examples import VALID

    (root / "proceed.json").write_text(json.dumps(VALID["001 validator output"][1]))
    code, out, err = sh(root, "handoff", "record", str(root / "proceed.json"), "--phase", "3.1")
    assert (code, out, err) == (
        4,
        "",
        (
            "agents-state: error: phase 3.1 is pending: cannot complete from a handoff (phase 3.1 "
            "is recorded with its test results: agents-state phase run 3.1, or agents-state phase "
            "complete 3.1 --artifact RESULTS.json)\n"
        ),
    )
    assert state_bytes(root) == before


def test_engine_never_completes_over_a_failed_run() -> None:
    """A hand-edited state at 4.3 whose last test run failed: finishing it blocks instead."""
    from datetime import UTC, datetime

    from agents_state.engine import events as ev
    from agents_state.engine.phases import apply, new_state
    from agents_state.policy import Policy
    from agents_state.workflow import PHASE_IDS

    now = datetime(2026, 1, 29, tzinfo=UTC)
    s = new_state(ev.Start(task="t", skipped=PHASE_IDS[:-1]), now)
    s.phase("3.1").passed = False
    s.phase("3.1").status = "completed"
    out = apply(s, ev.PhaseComplete(phase="4.3"), now, Policy())
    assert out.state.status == "blocked"
    assert out.message == (
        "phase 4.3 Completion completed; workflow blocked: the last test run failed"
    )
    assert out.state.blockedReason == (
        "the last test run failed; run the tests again or ask the user to skip them"
    )
    assert out.state.currentPhase == "3.1"


def test_phase_run_records_failures_with_output_tails(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps(
            {
                "stages": {
                    "TEST": {
                        "commands": {
                            "lint": "echo lint ok",
                            "test": "echo 'FAILED test_login'; exit 3",
                        }
                    }
                }
            }
        )
    )
    walk_to(root, "3.1")
    code, text, _ = sh(root, "phase", "run", "3.1")
    assert code == 0
    assert text.splitlines()[0] == (
        "phase 3.1 Run Tests FAILED (test): next phase 3.2 analyses "
        "and fixes them (fix round 1 of 3)"
    )
    doc = json.loads((root / ".agents/phases/3.1-test-results.json").read_text())
    assert (doc["passed"], doc["failed"]) == (False, ["test"])
    assert doc["commands"][1]["exitCode"] == 3
    assert doc["commands"][1]["outputTail"] == "FAILED test_login"


def test_timed_out_command_is_killed_with_its_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    cmd = f"sleep 600 & echo $! > {pidfile}; wait"
    done: list[bytes] = []
    run = threading.Thread(
        target=lambda: done.append(run_phase_commands({"test": cmd}, 1, tmp_path)), daemon=True
    )
    run.start()
    run.join(timeout=300)  # a bound that turns a hang into a failure, not a measurement
    assert done, "the run waited for the command's child (sleep 600) past its 1 s timeout"
    doc = json.loads(done[0])
    result = doc["commands"][0]
    assert (result["exitCode"], result["timedOut"], doc["passed"]) == (None, True, False)
    assert result["outputTail"].endswith(
        "[agents-state: timed out after 1s; its process group was killed]"
    )
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the test command's child {child} outlived the timeout")


# -- stop after the current step ------------------------------------------------------------


def test_stop_then_the_step_in_flight_is_still_recorded(root: Path) -> None:
    walk_to(root, "1.1")
    out = js(root, "stop")
    assert out["message"] == (
        "workflow stopped at phase 1.1: nothing new starts; a step "
        "already in flight can still be recorded"
    )
    assert out["next"]["kind"] == "blocked"
    out = js(root, "phase", "complete", "1.1", "--artifact", "-", stdin="approach\n")
    assert out["message"] == "phase 1.1 Brainstorm completed; workflow stopped as requested"
    assert out["status"] == "stopped"
    state = json.loads(state_bytes(root))
    assert state["currentPhase"] == "1.2"
    assert (root / ".agents/phases/1.1-brainstorm.md").read_text() == "approach\n"
    before = state_bytes(root)
    code, _, err = sh(root, "phase", "complete", "1.2", "--artifact", "-", stdin="plan")
    assert (code, err) == (
        4,
        "agents-state: error: workflow is stopped: cannot phase complete; "
        "allowed from here: abort, compact, retry, skip, task done, task fail, "
        "task start (run: agents-state resume)\n",
    )
    assert state_bytes(root) == before
    assert js(root, "resume", "--retry")["next"]["phase"] == "1.2"


def test_stop_while_started_phase_runs_stops_after_it(root: Path) -> None:
    walk_to(root, "1.1")
    sh(root, "phase", "start", "1.1")
    assert js(root, "stop")["message"] == "workflow will stop after phase 1.1"
    out = js(root, "phase", "complete", "1.1", "--artifact", "-", stdin="x")
    assert out["message"] == "phase 1.1 Brainstorm completed; workflow stopped as requested"


def test_test_run_racing_with_stop_keeps_its_results(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps({"stages": {"TEST": {"commands": {"test": "true"}}}})
    )
    walk_to(root, "3.1")
    import agents_state.commands as commands

    real = commands.run_phase_commands

    def run_then_stop(*args: object) -> bytes:
        data = real(*args)  # type: ignore[arg-type]
        assert sh(root, "stop")[0] == 0  # a person stops while the tests run
        return data

    monkeypatch.setattr(commands, "run_phase_commands", run_then_stop)
    out = js(root, "phase", "run", "3.1")
    assert out["message"] == "phase 3.1 Run Tests passed; workflow stopped as requested"
    assert out["status"] == "stopped"
    assert json.loads((root / ".agents/phases/3.1-test-results.json").read_text())["passed"]


def test_failed_workflow_asks_the_user(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text('{"retries": {"maxPerPhase": 0}}')
    walk_to(root, "1.1")
    out = js(root, "phase", "fail", "1.1", "--error", "no idea")
    assert out["next"]["kind"] == "ask_user"
    assert [o["option"] for o in out["next"]["options"]] == ["retry", "skip", "abort"]
    assert out["next"]["instructions"] == (
        "Workflow failed: no idea. Do not choose yourself: "
        "ask the user which option to take, then run that "
        "option's command only."
    )


# -- issue 23: phase run waits for the command, not for the pipe its stray children hold ---------


def _gone(pid: int) -> bool:
    """The process no longer runs (absent, or a zombie its new parent has not reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def test_a_command_that_leaves_a_background_process_is_judged_by_its_exit(root: Path) -> None:
    (root / ".agents").mkdir()
    commands = {
        "lint": "sleep 100 & echo $! > lint.pid; echo lint ok",
        # a process that left the group holds the output too
        "test": (
            "sleep 100 & echo $! > test.pid; "
            "(setsid sh -c 'echo $$ > stray.tmp; mv stray.tmp stray.pid; exec sleep 100' &); "
            "while [ ! -e stray.pid ]; do sleep 0.01; done; echo 'FAILED x'; exit 3"
        ),
    }
    (root / ".agents/config.json").write_text(
        json.dumps({"stages": {"TEST": {"commands": commands, "timeoutSeconds": 20}}})
    )
    walk_to(root, "3.1")
    code, text, _ = sh(root, "phase", "run", "3.1")
    assert code == 0
    assert text.splitlines()[0] == (
        "phase 3.1 Run Tests FAILED (test): next phase 3.2 analyses "
        "and fixes them (fix round 1 of 3)"
    )
    doc = json.loads((root / ".agents/phases/3.1-test-results.json").read_text())
    assert (doc["passed"], doc["failed"]) == (False, ["test"])
    lint, test = doc["commands"]
    assert (lint["exitCode"], lint["timedOut"], lint["outputTail"]) == (0, False, "lint ok")
    assert (test["exitCode"], test["timedOut"], test["outputTail"]) == (3, False, "FAILED x")
    # what a command leaves behind in its process group is ended when it exits
    for name in ("lint.pid", "test.pid"):
        assert _gone(int((root / name).read_text())), name
    os.kill(int((root / "stray.pid").read_text()), 9)


def test_issue_32_configured_tests_are_judged_only_by_running_them(root: Path) -> None:
    """Red team: a Write of a "passing" results file and ``phase complete 3.1`` passed a gate
    whose configured command never ran.  With TEST commands configured, only ``phase run``
    records the gate."""
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps({"stages": {"TEST": {"commands": {"test": "echo ran > ran.txt"}}}})
    )
    walk_to(root, "3.1")
    before = state_bytes(root)
    refused = (
        4,
        "",
        "agents-state: error: phase 3.1 is judged by its configured TEST commands: cannot be "
        "completed with a results file (run: agents-state phase run 3.1)\n",
    )
    assert sh(root, "phase", "complete", "3.1", "--artifact", "-", stdin=PASSING) == refused
    (root / ".agents/phases/3.1-test-results.json").write_text(PASSING)
    assert sh(root, "phase", "complete", "3.1") == refused
    assert state_bytes(root) == before and not (root / "ran.txt").exists()
    code, text, err = sh(root, "phase", "run", "3.1")
    assert (code, err) == (0, "") and text.startswith("phase 3.1 Run Tests passed")
    assert (root / "ran.txt").exists()
