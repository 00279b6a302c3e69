"""Only the owner finishes a task (issue 32, item 4), as the engine sees it: a task nobody
started is completed only by a person's ``--force``; an agent's report of a task someone else
completed is refused, so its work is never silently lost."""

from __future__ import annotations

from pathlib import Path

from clitools import cli_json, run_proc, wave_of


def test_a_task_nobody_started_is_refused_unless_a_person_forces_it(root: Path) -> None:
    wave_of(root, 2)
    before = (root / ".agents" / "state.json").read_bytes()
    proc = run_proc(root, "task", "done", "t0", "--summary", "x")
    assert proc.returncode == 4
    assert proc.stderr == (
        "agents-state: error: task t0 is pending (nobody started it): cannot complete (its "
        "agent runs agents-state task start t0 first; a person may complete it unstarted with: "
        "agents-state task done t0 --force)\n"
    )
    assert (root / ".agents" / "state.json").read_bytes() == before
    proc = run_proc(root, "task", "done", "t0", "--force", "--summary", "by hand")
    assert (proc.returncode, proc.stdout) == (0, "t0 completed\n"), proc.stderr


def test_the_owners_report_after_someone_else_completed_its_task_is_refused(root: Path) -> None:
    wave_of(root, 2)
    assert cli_json(root, "task", "start", "t0", "--agent", "agent-a1")["task"] == "t0"
    proc = run_proc(root, "task", "done", "t0", "--agent", "agent-b2")  # a sibling
    assert proc.returncode == 4
    assert "claimed by agent-a1: cannot complete" in proc.stderr
    proc = run_proc(root, "task", "done", "t0", "--summary", "finished by hand")  # a person
    assert proc.returncode == 0, proc.stderr
    proc = run_proc(root, "task", "done", "t0", "--agent", "agent-a1", "--summary", "mine")
    assert proc.returncode == 4
    assert proc.stderr == (
        "agents-state: error: task t0 is completed by someone else: cannot complete (agent "
        "agent-a1 did not finish it and what it did was not recorded; say so in its handoff)\n"
    )
    # the same report repeated by whoever completed it changes nothing and says so
    proc = run_proc(root, "task", "done", "t0")
    assert (proc.returncode, proc.stdout) == (0, "t0 is already completed; nothing changed\n")


def test_the_owners_own_repeat_says_nothing_changed(root: Path) -> None:
    wave_of(root, 2)
    cli_json(root, "task", "start", "t1", "--agent", "agent-a1")
    assert run_proc(root, "task", "done", "t1", "--agent", "agent-a1").returncode == 0
    proc = run_proc(root, "task", "done", "t1", "--agent", "agent-a1")
    assert (proc.returncode, proc.stdout) == (0, "t1 is already completed; nothing changed\n")
    proc = run_proc(root, "task", "done", "t1", "--agent", "agent-b2")
    assert proc.returncode == 4
    assert "task t1 is completed by agent-a1: cannot complete" in proc.stderr
