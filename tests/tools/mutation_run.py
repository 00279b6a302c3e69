"""A mutation run over the engine (issue 35): apply one change at a time to the package, run
the tests named to kill it, report whether they did, and put the file back.

Each mutation is a literal replacement that must match exactly once (so a change to the code
that moves it shows up as ``stale``, not as a silent pass).  "Killed": each named test, run on
its own, fails with the mutation in place (pytest exit 1); "survived": one of them passes;
"error": pytest could not run them.
The list, with what each mutation breaks and the test that kills it, is in docs/reliability.md
("Mutations the suite kills").

    .venv/bin/python tests/tools/mutation_run.py [--only NAME ...] [--list]

Exit 0 when every mutation is killed.  It edits files of this checkout in place, one at a time,
and restores each in a ``finally``: do not run two at once, nor edit the package meanwhile.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "agents_state"


class Mutation(NamedTuple):
    name: str  # short id
    area: str  # transitions, waves, claims, merge order, approvals, room argv
    path: str  # under agents_state/
    old: str
    new: str
    tests: tuple[str, ...]  # pytest node ids that must fail


MUTATIONS = (
    Mutation(
        "lease-from-claim",
        "claims",
        "engine/ready.py",
        "beat = task.heartbeatAt or task.claimedAt",
        "beat = task.claimedAt",
        ("tests/test_waves.py::test_a_lease_renewed_by_task_start_is_counted_from_the_renewal",),
    ),
    Mutation(
        "lease-doubled",
        "claims",
        "engine/ready.py",
        "parse_time(beat) + timedelta(seconds=lease_seconds) < now",
        "parse_time(beat) + timedelta(seconds=2 * lease_seconds) < now",
        ("tests/test_waves.py::test_stale_claim_is_reclaimed_after_lease",),
    ),
    Mutation(
        "renewal-not-recorded",
        "claims",
        "engine/tasks.py",
        '    task.heartbeatAt = ts\n    return _outcome(state, f"{e.task_id} in progress (lease',
        '    return _outcome(state, f"{e.task_id} in progress (lease',
        ("tests/test_waves.py::test_a_lease_renewed_by_task_start_is_counted_from_the_renewal",),
    ),
    Mutation(
        "claim-last-ready",
        "claims",
        "engine/tasks.py",
        "        tid = ready[0]\n",
        "        tid = ready[-1]\n",
        ("tests/test_waves.py::test_claim_done_advances_waves_exactly_once",),
    ),
    Mutation(
        "backoff-ignored",
        "waves",
        "engine/ready.py",
        "waiting = t.retryAt is not None and parse_time(t.retryAt) > now",
        "waiting = False",
        ("tests/test_waves.py::test_failed_task_waits_for_backoff_then_fails_workflow",),
    ),
    Mutation(
        "skipped-dependency-blocks",
        "waves",
        "engine/ready.py",
        "return all(tasks[d].status in DONE for d in task.dependencies if d in tasks)",
        'return all(tasks[d].status == "completed" for d in task.dependencies if d in tasks)',
        ("tests/test_waves.py::test_failed_task_waits_for_backoff_then_fails_workflow",),
    ),
    Mutation(
        "wave-size-off-by-one",
        "waves",
        "engine/waves.py",
        "    size = max(1, max_parallel)\n    waves: list[list[str]] = []\n",
        "    size = max(1, max_parallel + 1)\n    waves: list[list[str]] = []\n",
        ("tests/test_waves.py::test_waves_are_levels_split_by_max_parallel",),
    ),
    Mutation(
        "same-wave-dependency-allowed",
        "waves",
        "engine/waves.py",
        "late = [d for d in ds if wave_of.get(d, end) >= wave_of.get(tid, end - 1)]",
        "late = [d for d in ds if wave_of.get(d, end) > wave_of.get(tid, end - 1)]",
        ("tests/test_wave_order.py::test_late_dependencies_names_the_first_offender",),
    ),
    Mutation(
        "task-done-fails-it",
        "transitions",
        "engine/table.py",
        '    ("in_progress", "task_done", ""): "completed",\n',
        '    ("in_progress", "task_done", ""): "failed",\n',
        ("tests/test_waves.py::test_claim_done_advances_waves_exactly_once",),
    ),
    Mutation(
        "last-task-leaves-phase-open",
        "transitions",
        "engine/table.py",
        '    ("in_progress", "task_done", "last_task"): "completed",\n',
        '    ("in_progress", "task_done", "last_task"): "in_progress",\n',
        ("tests/test_waves.py::test_claim_done_advances_waves_exactly_once",),
    ),
    Mutation(
        "another-agent-renews",
        "claims",
        "engine/tasks.py",
        "    if e.agent and task.owner and e.agent != task.owner:\n",
        "    if False:\n",
        ("tests/test_waves.py::test_only_the_owner_renews_its_lease",),
    ),
    Mutation(
        "merge-in-wave-order",
        "merge order",
        "engine/worktrees.py",
        "        return sorted(\n            t for t in wave.tasks",
        "        return list(\n            t for t in wave.tasks",
        (
            "tests/test_wave_order.py::"
            "test_the_merge_queue_waits_for_the_wave_and_takes_task_id_order",
            "tests/gitwork/test_isolation.py::"
            "test_a_wave_listed_out_of_id_order_merges_in_task_id_order",
        ),
    ),
    Mutation(
        "merge-before-wave-ends",
        "merge order",
        "engine/worktrees.py",
        '        if any(tasks[t].status not in ("completed", "skipped") for t in wave.tasks):\n'
        "            return []\n",
        "",
        (
            "tests/test_wave_order.py::"
            "test_the_merge_queue_waits_for_the_wave_and_takes_task_id_order",
        ),
    ),
    # The approvals table cannot hold a person's decision: ``hooks.engine_steps`` drops every
    # option of ``persons.DECISIONS`` from it, so adding ``--skip`` or ``--force`` to the table
    # (this list's first two approvals mutations) became equivalent; the promise is the table.
    Mutation(
        "skip-not-a-persons",
        "approvals",
        "persons.py",
        '        "--skip",\n        "agents-state resume --skip",\n',
        '        "--skip-never",\n        "agents-state resume --skip",\n',
        (
            "tests/plugin/test_person_decisions_hooks.py::"
            "test_every_persons_decision_is_denied_as_bash_reads_it",
        ),
    ),
    Mutation(
        "force-not-a-persons",
        "approvals",
        "persons.py",
        '        "--force",\n        "agents-state task done ID --force",\n',
        '        "--force-never",\n        "agents-state task done ID --force",\n',
        (
            "tests/plugin/test_person_decisions_hooks.py::"
            "test_every_persons_decision_is_denied_as_bash_reads_it",
        ),
    ),
    Mutation(
        "room-keeps-network",
        "room argv",
        "hooks/room.py",
        '        *([] if room.network else ["--unshare-net"]),\n',
        "",
        ("tests/protocol/test_sandbox_room.py::test_the_network_only_where_the_profile_grants_it",),
    ),
    Mutation(
        "room-writable-everywhere",
        "room argv",
        "hooks/room.py",
        '        "--ro-bind",\n        "/",\n        "/",\n',
        '        "--bind",\n        "/",\n        "/",\n',
        ("tests/protocol/test_sandbox_room.py::test_a_task_worktree_is_the_only_place_written",),
    ),
    Mutation(
        "room-protected-writable",
        "room argv",
        "hooks/room.py",
        '        if os.path.lexists(path):\n            args += ["--ro-bind", path, path]\n',
        '        if os.path.lexists(path):\n            args += ["--bind", path, path]\n',
        ("tests/protocol/test_sandbox_room.py::test_writers_are_contained_and_not_judged",),
    ),
    Mutation(
        "handoff-scan-uncapped",
        "handoffs",
        "handoff/extract.py",
        "            if failed >= MAX_FAILED:\n",
        "            if failed >= 10**9:\n",
        ("tests/test_issue23_causes.py::test_issue_23_handoff_extraction_is_linear",),
    ),
)


def _pytest(tests: tuple[str, ...]) -> int:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONUNBUFFERED",)}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no bytecode of a mutant left behind
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, check=False).returncode


def run(m: Mutation) -> str:
    path = PKG / m.path
    source = path.read_text(encoding="utf-8")
    if source.count(m.old) != 1:
        return "stale"
    try:
        path.write_text(source.replace(m.old, m.new), encoding="utf-8")
        codes = [_pytest((test,)) for test in m.tests]  # each named test must fail alone
    finally:
        path.write_text(source, encoding="utf-8")
    if all(code == 1 for code in codes):
        return "killed"
    if 0 in codes:
        return "survived"
    return f"error (pytest exit {max(codes)})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    chosen = [m for m in MUTATIONS if args.only is None or m.name in args.only]
    if args.list:
        for m in chosen:
            print(f"{m.name:<30} {m.area:<12} {m.path:<24} {' '.join(m.tests)}")
        return 0
    bad = 0
    for m in chosen:
        start = time.monotonic()
        verdict = run(m)
        bad += verdict != "killed"
        print(f"{verdict:<10} {m.name:<30} {m.area:<12} {time.monotonic() - start:5.1f}s")
        sys.stdout.flush()
    print(f"{len(chosen) - bad} of {len(chosen)} mutations killed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
