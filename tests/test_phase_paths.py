"""Issue 18: the paths no test used to run, through the command line in process (``CliRunner``):
``phase fail`` and its retries up to ``retries.maxPerPhase``, a phase failure then ``resume``
(the explanation screen, ``--retry``, ``--skip``), stop after the current phase, compaction
between phases, and the crash handler (exit 1, the traceback logged, its path named)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from clitools import cli_json, run_cli, walk_to

A = ".agents"


def _state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / A / "state.json").read_text())
    return data


def _phase(root: Path, pid: str) -> dict[str, Any]:
    stages = _state(root)["stages"]
    found: dict[str, Any] = next(s["phases"][pid] for s in stages.values() if pid in s["phases"])
    return found


def _ok(root: Path, *args: str, stdin: str | None = None) -> str:
    proc = run_cli(root, *args, stdin=stdin)
    assert (proc.returncode, proc.stderr) == (0, ""), (args, proc.stderr)
    return proc.stdout


def _first_line(root: Path, *args: str, stdin: str | None = None) -> str:
    return _ok(root, *args, stdin=stdin).splitlines()[0]


def _config(root: Path, doc: dict[str, Any]) -> None:
    (root / A).mkdir(exist_ok=True)
    (root / A / "config.json").write_text(json.dumps(doc))


# -- phase fail ---------------------------------------------------------------------------------


def _retried(line: str, attempt: int, error: str, of: int) -> None:
    assert re.fullmatch(
        rf"phase 0 failed \(attempt {attempt}\): {error}; retry {attempt} of "
        rf"{of} not before \d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
        line,
    ), line


def test_phase_fail_is_retried_until_max_per_phase_then_fails_the_workflow(root: Path) -> None:
    # retries.maxPerPhase (3 by default) counts retries after the first attempt (issue 15)
    _ok(root, "dispatch", "Add a health endpoint")
    _ok(root, "phase", "start", "0")
    _retried(
        _first_line(root, "phase", "fail", "0", "--error", "agent timed out"),
        1,
        "agent timed out",
        3,
    )
    phase = _phase(root, "0")
    assert {k: phase[k] for k in ("status", "attempts", "reviewRounds", "error")} == {
        "status": "pending",
        "attempts": 1,
        "reviewRounds": 0,
        "error": "agent timed out",
    }
    assert phase["retryAt"] > phase["startedAt"]
    assert _state(root)["status"] == "in_progress"
    # the next action waits out the backoff and says why the step runs again
    nxt = cli_json(root, "next")
    assert (nxt["kind"], nxt["until"]) == ("wait", phase["retryAt"])
    assert nxt["instructions"].endswith("The previous attempt failed: agent timed out")
    _retried(_first_line(root, "phase", "fail", "0", "--error", "again"), 2, "again", 3)
    _retried(_first_line(root, "phase", "fail", "0", "--error", "third"), 3, "third", 3)
    out = run_cli(root, "phase", "fail", "0", "--error", "fourth", "--json")
    assert out.returncode == 0
    doc = json.loads(out.stdout)
    assert doc["message"] == (
        "phase 0 failed after 4 attempt(s): fourth; workflow failed (see: agents-state resume)"
    )
    assert (doc["status"], doc["revision"]) == ("failed", 6)
    # a failed workflow asks the user; the model does not pick an option by itself
    assert doc["next"]["kind"] == "ask_user" and doc["next"]["command"] is None
    assert [o["command"] for o in doc["next"]["options"]] == [
        "agents-state resume --retry",
        "agents-state resume --skip",
        "agents-state resume --abort",
    ]
    state = _state(root)
    assert state["status"] == "failed" and state["stages"]["EXPLORE"]["status"] == "failed"
    assert state["failure"]["phase"] == "0" and state["failure"]["error"] == "fourth"
    assert _phase(root, "0")["status"] == "failed"


def test_max_per_phase_from_the_config_file(root: Path) -> None:
    _config(root, {"retries": {"maxPerPhase": 1}})
    _ok(root, "dispatch", "x")
    _retried(_first_line(root, "phase", "fail", "0", "--error", "boom"), 1, "boom", 1)
    assert (
        _first_line(root, "phase", "fail", "0", "--error", "boom")
        == "phase 0 failed after 2 attempt(s): boom; workflow failed (see: agents-state resume)"
    )
    assert _state(root)["status"] == "failed"


def test_max_per_phase_zero_fails_at_the_first_failure(root: Path) -> None:
    _config(root, {"retries": {"maxPerPhase": 0}})
    _ok(root, "dispatch", "x")
    assert (
        _first_line(root, "phase", "fail", "0", "--error", "boom")
        == "phase 0 failed after 1 attempt(s): boom; workflow failed (see: agents-state resume)"
    )
    assert _state(root)["status"] == "failed"


def test_phase_fail_of_a_phase_that_is_not_current_is_refused_untouched(root: Path) -> None:
    _ok(root, "dispatch", "x")
    before = (root / A / "state.json").read_bytes()
    proc = run_cli(root, "phase", "fail", "1.1", "--error", "boom")
    assert (proc.returncode, proc.stderr) == (
        4,
        "agents-state: error: phase 1.1 is pending: cannot fail (the current phase is 0)\n",
    )
    assert (root / A / "state.json").read_bytes() == before
    proc = run_cli(root, "phase", "fail", "9", "--error", "boom")
    assert proc.returncode == 3 and proc.stderr.startswith("agents-state: error: unknown phase '9'")


def test_phase_fail_needs_an_error_text(root: Path) -> None:
    _ok(root, "dispatch", "x")
    proc = run_cli(root, "phase", "fail", "0")
    assert proc.returncode == 2
    assert proc.stderr.startswith("agents-state: error: Missing option '--error'.")


# -- failure, then resume ------------------------------------------------------------------------


def _failed(root: Path) -> None:
    _config(root, {"retries": {"maxPerPhase": 0}})
    _ok(root, "dispatch", "x")
    _ok(root, "phase", "start", "0")
    _ok(root, "phase", "fail", "0", "--error", "agent timed out")


def test_resume_explains_a_failure_and_lists_the_options(root: Path) -> None:
    _failed(root)
    at = _state(root)["failure"]["failedAt"]
    assert _ok(root, "resume") == (
        f"Failed in phase 0 at {at}: agent timed out\n"
        "  agents-state resume --retry      run phase 0 again (attempts are counted)\n"
        "  agents-state resume --skip       mark phase 0 (or its failed tasks) skipped and go on\n"
        "  agents-state resume --abort      end the workflow, keep every file\n"
    )
    doc = cli_json(root, "resume")
    assert {k: doc[k] for k in ("status", "phase", "explanation")} == {
        "status": "failed",
        "phase": "0",
        "explanation": f"Failed in phase 0 at {at}: agent timed out",
    }
    assert [o["command"] for o in doc["options"]] == [
        "agents-state resume --retry",
        "agents-state resume --skip",
        "agents-state resume --abort",
    ]
    assert doc["next"]["kind"] == "ask_user"
    before = (root / A / "state.json").read_bytes()
    _ok(root, "resume")  # explaining writes nothing
    assert (root / A / "state.json").read_bytes() == before


def test_failed_workflow_refuses_phase_moves_until_resumed(root: Path) -> None:
    _failed(root)
    proc = run_cli(root, "phase", "complete", "0", "--artifact", "-", stdin="x")
    assert proc.returncode == 4
    assert proc.stderr == (
        "agents-state: error: workflow is failed: cannot phase complete; "
        "allowed from here: abort, compact, retry, skip, task done, task fail, "
        "task start (run: agents-state resume)\n"
    )
    assert not (root / A / "phases" / "0-explore.md").exists()


def test_resume_retry_runs_the_failed_phase_again(root: Path) -> None:
    _failed(root)
    assert _first_line(root, "resume", "--retry") == "phase 0 will run again (attempt 2)"
    state = _state(root)
    assert state["status"] == "in_progress" and "failure" not in state
    assert _phase(root, "0")["status"] == "pending" and _phase(root, "0")["attempts"] == 1
    assert (
        _first_line(root, "phase", "complete", "0", "--artifact", "-", stdin="notes")
        == "phase 0 Parallel Explore completed"
    )
    assert _state(root)["currentPhase"] == "1.1"
    assert "error" not in _phase(root, "0")  # cleared once the phase completed


def test_resume_skip_marks_the_failed_phase_skipped_and_goes_on(root: Path) -> None:
    _failed(root)
    assert _first_line(root, "resume", "--skip") == "phase 0 Parallel Explore skipped"
    state = _state(root)
    assert state["status"] == "in_progress" and state["currentPhase"] == "1.1"
    assert state["stages"]["EXPLORE"]["status"] == "skipped"
    assert cli_json(root, "next")["phase"] == "1.1"


def test_resume_abort_ends_the_workflow_and_keeps_the_files(root: Path) -> None:
    _failed(root)
    assert (
        _first_line(root, "resume", "--abort") == "workflow aborted; every file is kept in .agents/"
    )
    assert _ok(root, "resume") == "The workflow is aborted: nothing to resume.\n"
    assert (root / A / "state.json").exists() and (root / A / "events.jsonl").exists()


def test_resume_options_are_exclusive(root: Path) -> None:
    _failed(root)
    proc = run_cli(root, "resume", "--retry", "--answer", "yes")
    assert (proc.returncode, proc.stderr) == (
        2,
        "agents-state: error: --answer cannot be combined with --retry, --skip or --abort "
        "(see: agents-state resume --help)\n",
    )


# -- stop ---------------------------------------------------------------------------------------


def test_stop_during_a_phase_stops_after_it(root: Path) -> None:
    _ok(root, "dispatch", "x")
    _ok(root, "phase", "start", "0")
    assert _first_line(root, "stop") == "workflow will stop after phase 0"
    assert _state(root)["stopRequested"] is True and _state(root)["status"] == "in_progress"
    assert _first_line(root, "stop") == "stop already requested"
    assert (
        _first_line(root, "phase", "complete", "0", "--artifact", "-", stdin="notes")
        == "phase 0 Parallel Explore completed; workflow stopped as requested"
    )
    state = _state(root)
    assert (state["status"], state["currentPhase"]) == ("stopped", "1.1")
    assert "stopRequested" not in state or state["stopRequested"] is False
    assert _ok(root, "resume").splitlines()[0] == "Stopped before phase 1.1 on request."
    proc = run_cli(root, "phase", "start", "1.1")
    assert proc.returncode == 4 and "workflow is stopped: cannot phase start" in proc.stderr
    assert _first_line(root, "resume", "--retry") == "workflow resumed at phase 1.1"
    assert _state(root)["status"] == "in_progress"
    assert _first_line(root, "phase", "start", "1.1") == "phase 1.1 Brainstorm started"


def test_stop_before_a_phase_starts_stops_at_once(root: Path) -> None:
    _ok(root, "dispatch", "x")
    assert _first_line(root, "stop") == (
        "workflow stopped at phase 0: nothing new starts; a step "
        "already in flight can still be recorded"
    )
    assert _state(root)["status"] == "stopped"
    nxt = cli_json(root, "next")
    assert (nxt["kind"], nxt["command"]) == ("blocked", "agents-state resume --retry")


# -- compaction ----------------------------------------------------------------------------------


def test_compaction_between_phases_when_configured(root: Path) -> None:
    _config(root, {"compaction": {"betweenPhases": True, "betweenStages": False}})
    _ok(root, "dispatch", "x")
    _ok(root, "phase", "complete", "0", "--artifact", "-", stdin="notes")
    assert _state(root)["compaction"]["pending"] == "0"
    action = cli_json(root, "next")
    assert (action["kind"], action["command"]) == ("compact", "agents-state compact")
    assert (
        _first_line(root, "compact")
        == "compaction after 0 recorded as asked of the user (this command compacts nothing): "
        'ask the user to run /compact (under claude -p: claude -p --continue "/compact") '
        "unless they just did; afterwards continue with: agents-state context"
    )
    compaction = _state(root)["compaction"]
    assert compaction["history"] == ["0"] and compaction.get("pending") is None
    assert cli_json(root, "next")["phase"] == "1.1"
    _ok(root, "phase", "complete", "1.1", "--artifact", "-", stdin="ideas")
    assert cli_json(root, "next")["kind"] == "compact"  # after every phase, not only stages


def test_no_compaction_between_phases_by_default(root: Path) -> None:
    _ok(root, "dispatch", "x")
    _ok(root, "phase", "complete", "0", "--artifact", "-", stdin="notes")
    assert _state(root)["compaction"]["pending"] == "EXPLORE"  # the stage ended
    _ok(root, "compact")
    _ok(root, "phase", "complete", "1.1", "--artifact", "-", stdin="ideas")
    assert _state(root)["compaction"].get("pending") is None
    assert cli_json(root, "next")["phase"] == "1.2"


def test_starting_the_next_phase_drops_a_pending_compaction(root: Path) -> None:
    _ok(root, "dispatch", "x")
    _ok(root, "phase", "complete", "0", "--artifact", "-", stdin="notes")
    _ok(root, "phase", "start", "1.1")
    assert _state(root)["compaction"].get("pending") is None


# -- crash handler ------------------------------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_crash_exits_1_and_names_the_logged_traceback(
    root: Path, as_json: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import agents_state.engine.resume

    def boom(state: object) -> dict[str, Any]:
        raise RuntimeError("boom")

    monkeypatch.setattr(agents_state.engine.resume, "explain", boom)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    _failed(root)
    before = (root / A / "state.json").read_bytes()
    proc = run_cli(root, "resume", *(["--json"] if as_json else []))
    assert proc.returncode == 1 and proc.stdout == ""
    if as_json:
        err = json.loads(proc.stderr)["error"]
        assert (err["code"], err["exit"]) == ("internal", 1)
        message = err["message"]
    else:
        assert proc.stderr.startswith("agents-state: error: ") and proc.stderr.count("\n") == 1
        message = proc.stderr[len("agents-state: error: ") : -1]
    m = re.fullmatch(r"internal error \(RuntimeError: boom\); traceback written to (\S+)", message)
    assert m, message
    log = Path(m.group(1))
    assert log.parent == tmp_path and log.name.startswith("agents-state-crash-")
    text = log.read_text()
    assert text.splitlines()[0].endswith("resume" + (" --json" if as_json else ""))
    assert "Traceback (most recent call last)" in text and "RuntimeError: boom" in text
    assert "Traceback" not in proc.stderr
    assert (root / A / "state.json").read_bytes() == before


def test_resume_explains_a_review_that_ran_out_of_rounds(root: Path) -> None:
    _config(root, {"stages": {"PLAN": {"review": {"maxRetries": 0}}}})
    walk_to(root, "1.3")
    review = json.dumps({"issues": [{"severity": "critical", "description": "no tests"}]})
    out = _first_line(root, "phase", "complete", "1.3", "--artifact", "-", stdin=review)
    reason = (
        "review 1.3 still finds 1 blocking issue(s) after 0 rework round(s); see "
        ".agents/phases/1.3-plan-review.json"
    )
    assert out == f"workflow blocked: {reason}"
    assert _state(root)["status"] == "blocked"
    assert _ok(root, "resume").splitlines() == [
        f"Blocked in phase 1.3: {reason}",
        "  agents-state resume --retry      run phase 1.3 again (attempts are counted)",
        "  agents-state resume --skip       mark phase 1.3 (or its failed tasks) skipped and go on",
        "  agents-state resume --abort      end the workflow, keep every file",
    ]
    assert _first_line(root, "resume", "--skip") == "phase 1.3 Plan Review skipped"
    assert _state(root)["status"] == "in_progress" and "blockedReason" not in _state(root)


def test_a_review_of_a_skipped_phase_blocks_instead_of_sending_it_back(root: Path) -> None:
    # the plan (1.2) failed and the person skipped it; its review still finds a blocking issue:
    # sending the workflow back to 1.2 would point it at a phase that never runs again
    _config(root, {"retries": {"maxPerPhase": 0}})
    walk_to(root, "1.2")
    _ok(root, "phase", "start", "1.2")
    _ok(root, "phase", "fail", "1.2", "--error", "planner crashed")
    assert _first_line(root, "resume", "--skip") == "phase 1.2 Parallel Plan skipped"
    assert cli_json(root, "next")["phase"] == "1.3"
    review = json.dumps({"issues": [{"severity": "critical", "description": "no plan"}]})
    out = _first_line(root, "phase", "complete", "1.3", "--artifact", "-", stdin=review)
    reason = (
        "review 1.3 found 1 blocking issue(s) in phase 1.2, which was skipped, so there is "
        "nothing to rework; see .agents/phases/1.3-plan-review.json, then resume --retry "
        "(review again) or --skip (go on without)"
    )
    assert out == f"workflow blocked: {reason}"
    state = _state(root)
    assert (state["status"], state["currentPhase"]) == ("blocked", "1.3")
    assert _phase(root, "1.2")["status"] == "skipped"
    assert _ok(root, "resume").splitlines()[0] == f"Blocked in phase 1.3: {reason}"
    assert _first_line(root, "resume", "--skip") == "phase 1.3 Plan Review skipped"
    assert cli_json(root, "next")["phase"] == "2.1"
