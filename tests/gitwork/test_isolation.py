"""Worktree isolation on real git repositories (issue 22): rooms, merges, conflicts."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

from clitools import CLI
from gitrepo import (
    at_tasks,
    cli_json,
    edit_line,
    git,
    integration,
    run_cli,
    show,
    state,
    task_of,
    trash_gone,
)


def _work(root: Path, tid: str, line: int, text: str) -> None:
    """What a task agent does: start (its worktree), edit one line there, done."""
    out = cli_json(root, "task", "start", tid)
    edit_line(Path(out["worktree"]) / "f.txt", line, text)
    proc = run_cli(root, "task", "done", tid, "--summary", f"{tid} edits line {line}")
    assert proc.returncode == 0, proc.stderr
    _next(root)


def _next(root: Path) -> None:
    """What the orchestrator runs once the agents have answered: ``next`` merges a done wave
    (issue 33: never the agent's own ``task done``)."""
    proc = run_cli(root, "next", "--json")
    assert proc.returncode == 0, proc.stderr


def test_five_concurrent_processes_of_one_wave_all_land(root: Path) -> None:
    ids = [f"t{i}" for i in range(5)]
    at_tasks(root, [{"id": t, "title": f"edit {t}", "files": ["f.txt"]} for t in ids])
    errors: list[str] = []

    def agent(k: int) -> None:
        tid = ids[k]
        start = subprocess.run(
            [CLI, "--root", str(root), "task", "start", tid, "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        if start.returncode != 0:
            errors.append(start.stderr)
            return
        edit_line(Path(json.loads(start.stdout)["worktree"]) / "f.txt", 10 * k, f"by {tid}")
        done = subprocess.run(
            [CLI, "--root", str(root), "task", "done", tid, "--summary", f"line {10 * k}"],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            errors.append(done.stderr)

    threads = [threading.Thread(target=agent, args=(k,)) for k in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _next(root)
    final = show(root, integration(root)).splitlines()
    assert [final[10 * k] for k in range(5)] == [f"by t{k}" for k in range(5)]
    for tid in ids:
        t = task_of(root, tid)
        assert t["merge"] == "merged" and t["branch"] == f"{integration(root)}-{tid}"
        assert git(root, "merge-base", "--is-ancestor", t["head"], integration(root)) == ""
    # merged in task id order, whatever order they finished in
    log = git(root, "log", "--first-parent", "--format=%s", integration(root)).splitlines()
    assert log[:5] == [f"Merge task t{k}: edit t{k}" for k in reversed(range(5))]
    phase = state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert phase["status"] == "completed"
    assert not (root / ".agents" / "worktrees" / "t0").exists()  # removed after its merge
    assert git(root, "rev-parse", "--verify", f"{integration(root)}-t0")  # branch kept


def test_a_wave_listed_out_of_id_order_merges_in_task_id_order(root: Path) -> None:
    """Issue 35, item 5: the tasks file lists c, a, b (so the wave does too) and they finish
    b, c, a; the merge queue still merges a, b, c (kills a queue that keeps the wave's order
    or the finishing order)."""
    ids = ["c", "a", "b"]
    at_tasks(root, [{"id": t, "title": f"edit {t}", "files": ["f.txt"]} for t in ids])
    assert state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"]["waves"][0]["tasks"] == ids
    for k, tid in enumerate(ids):
        out = cli_json(root, "task", "start", tid)
        edit_line(Path(out["worktree"]) / "f.txt", 10 * k, f"by {tid}")
    for tid in ("b", "c", "a"):
        proc = run_cli(root, "task", "done", tid, "--summary", f"{tid} done")
        assert proc.returncode == 0, proc.stderr
    _next(root)
    log = git(root, "log", "--first-parent", "--format=%s", integration(root)).splitlines()
    assert log[:3] == [f"Merge task {t}: edit {t}" for t in ("c", "b", "a")]  # newest first
    final = show(root, integration(root)).splitlines()
    assert [final[10 * k] for k in range(3)] == [f"by {t}" for t in ids]


def test_the_users_tree_and_branch_are_left_alone(root: Path) -> None:
    from gitrepo import make_repo

    make_repo(root)
    edit_line(root / "f.txt", 0, "the user's unsaved work")
    (root / "notes.txt").write_text("untracked\n")
    from clitools import walk_to
    from gitrepo import load

    walk_to(root, "2.1")
    before = git(root, "status", "--porcelain")
    out = load(root, [{"id": "a", "files": ["f.txt"]}])
    assert "starts from your HEAD plus a commit of your uncommitted changes" in out["message"]
    assert "(your branch and working tree are left as they are)" in out["message"]
    _work(root, "a", 5, "by a")
    assert git(root, "status", "--porcelain") == before
    assert git(root, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert (root / "f.txt").read_text().splitlines()[:1] == ["the user's unsaved work"]
    final = show(root, integration(root)).splitlines()
    assert final[0] == "the user's unsaved work" and final[5] == "by a"


def test_conflict_is_recorded_and_offered_for_resolution(root: Path) -> None:
    at_tasks(
        root,
        [
            {"id": "a", "title": "A"},
            {"id": "b", "title": "B"},
            {"id": "c", "dependencies": ["a", "b"]},
        ],
    )
    _work(root, "a", 3, "from a")
    head_after_a = None
    out = cli_json(root, "task", "start", "b")
    edit_line(Path(out["worktree"]) / "f.txt", 3, "from b")
    head_after_a = git(root, "rev-parse", integration(root))  # not merged yet: wave not done
    proc = run_cli(root, "task", "done", "b", "--summary", "b's line 3")
    assert proc.returncode == 0, proc.stderr
    merged = cli_json(root, "next")["merged"]
    assert merged == (
        f"merged 1 task(s) into {integration(root)}; "
        "conflict: b (resolve with: agents-state merge --resolve b)"
    )
    b = task_of(root, "b")
    assert (b["merge"], b["conflictFiles"]) == ("conflict", ["f.txt"])
    # the integration branch holds a's merge only: b's failed merge left nothing behind
    tip = git(root, "rev-parse", integration(root))
    assert git(root, "rev-parse", f"{tip}^2") == task_of(root, "a")["head"]
    assert git(root, "rev-parse", f"{tip}^1") == head_after_a
    assert show(root, integration(root)).splitlines()[3] == "from a"
    assert show(root, b["branch"]).splitlines()[3] == "from b"  # both changes on their branches
    status = run_cli(root, "status").stdout
    assert (
        f"isolation: a git worktree per task, merged into {integration(root)} "
        "(1 merged, 0 without change, 0 to merge, 1 in conflict)"
    ) in status
    assert "⚡ b conflicts in f.txt (resolve: agents-state merge --resolve b)" in status
    iso = cli_json(root, "status")["workflow"]["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert iso["isolation"] == {
        "mode": "worktree",
        "branch": integration(root),
        "merges": {"merged": 1, "conflict": 1},
        "conflicts": {"b": ["f.txt"]},
    }
    action = cli_json(root, "next")
    assert action["kind"] == "work_inline" and action["command"] == "agents-state merge --resolve b"
    assert action["conflict"] == {"task": "b", "files": ["f.txt"], "branch": b["branch"]}
    # the resolve step: markers in b's worktree, fixed, then the queue merges it
    res = cli_json(root, "merge", "--resolve", "b")
    assert res["files"] == ["f.txt"]
    wt = Path(res["worktree"])
    assert "<<<<<<<" in (wt / "f.txt").read_text()
    # issue 33: the next step is the fix in that folder, not `merge --resolve` again
    for step in (res["next"], cli_json(root, "next")):
        assert (step["kind"], step["command"]) == ("work_inline", "agents-state merge")
        assert step["conflict"] == {"task": "b", "files": ["f.txt"], "worktree": str(wt)}
        assert step["instructions"].startswith(
            f"Fix the merge conflict of task b in its worktree {wt}: in f.txt there, replace "
        )
    refused = run_cli(root, "merge")
    assert (refused.returncode, refused.stderr) == (
        9,
        f"agents-state: error: {wt}: conflict markers are still in f.txt; edit them there so "
        "that both changes survive (no <<<<<<<, ======= or >>>>>>> line left), then run: "
        "agents-state merge\n",
    )
    assert cli_json(root, "next")["command"] == "agents-state merge"  # still the fix
    assert f"⚡ b conflicts in f.txt (fix it in {wt}, then: agents-state merge)" in (
        run_cli(root, "status").stdout
    )
    edit_line(wt / "f.txt", 3, "from a and b")
    text = (wt / "f.txt").read_text()
    keep = [
        ln
        for ln in text.splitlines()
        if not ln.startswith(("<<<<<<<", "=======", ">>>>>>>")) and ln not in ("from a", "from b")
    ]
    (wt / "f.txt").write_text("\n".join(keep) + "\n")
    done = cli_json(root, "merge")
    assert (
        done["message"]
        == f"merged 1 task(s) into {integration(root)}; wave 1 completed; wave 2 opened"
    )
    assert task_of(root, "b")["merge"] == "merged"
    # the dependent task starts from its dependencies' merged work
    c = cli_json(root, "task", "start", "c")
    assert (Path(c["worktree"]) / "f.txt").read_text().splitlines()[3] == "from a and b"


def test_a_task_without_change_says_so(root: Path) -> None:
    at_tasks(root, [{"id": "a"}, {"id": "b"}])
    cli_json(root, "task", "start", "a")
    _work(root, "b", 1, "by b")
    proc = run_cli(root, "task", "done", "a", "--summary", "nothing needed")
    assert proc.returncode == 0, proc.stderr
    _next(root)
    assert task_of(root, "a")["merge"] == "nochange"
    assert task_of(root, "b")["merge"] == "merged"


def test_waves_of_ten_fifty_tasks(root: Path) -> None:
    tasks = [
        {
            "id": f"t{i:02d}",
            "files": ["f.txt"],
            "dependencies": [f"t{i - 10:02d}"] if i >= 10 else [],
        }
        for i in range(50)
    ]
    at_tasks(root, tasks, wave_size=10)
    for i in range(50):
        _work(root, f"t{i:02d}", 4 * i, f"by t{i:02d}")  # git needs unchanged lines between
    final = show(root, integration(root)).splitlines()
    assert [final[4 * i] for i in range(50)] == [f"by t{i:02d}" for i in range(50)]
    assert state(root)["stages"]["IMPLEMENT"]["phases"]["2.1"]["status"] == "completed"
    assert cli_json(root, "next")["phase"] != "2.1"


def test_later_phases_and_the_test_gate_work_on_the_merged_result(root: Path) -> None:
    from clitools import artifact_body

    at_tasks(root, [{"id": "a", "title": "A"}])
    (root / ".agents" / "config.json").write_text(
        json.dumps({"stages": {"TEST": {"commands": {"merged": "grep -qx 'by a' f.txt"}}}})
    )
    _work(root, "a", 7, "by a")
    assert "by a" not in (root / "f.txt").read_text()  # the user's checkout is left alone
    seen = set()
    for _ in range(20):
        action = cli_json(root, "next")
        if action["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        if action["phase"] == "3.1":
            break
        seen.add(action["phase"])
        assert (
            f"Worktree isolation: the merged work is on branch {integration(root)}, checked "
            f"out in {root}/.agents/worktrees/_integration; read, change and commit there"
        ) in action["instructions"]
        body = artifact_body(action["write"])
        proc = run_cli(root, "phase", "complete", action["phase"], "--artifact", "-", stdin=body)
        assert proc.returncode == 0, proc.stderr
    assert {"2.2", "2.3"} <= seen
    proc = run_cli(root, "phase", "run", "3.1", "--json")
    assert proc.returncode == 0, proc.stderr
    results = json.loads((root / ".agents" / "phases" / "3.1-test-results.json").read_text())
    assert [c["exitCode"] for c in results["commands"]] == [0]
    for _ in range(20):
        action = cli_json(root, "next")
        if action["kind"] == "compact":
            assert run_cli(root, "compact").returncode == 0
            continue
        if action["phase"] == "4.3":
            break
        body = artifact_body(action["write"])
        proc = run_cli(root, "phase", "complete", action["phase"], "--artifact", "-", stdin=body)
        assert proc.returncode == 0, proc.stderr
    assert action["instructions"].endswith(
        f"To finish: push {integration(root)} and open the pull request from it "
        "(it is the PR's branch)."
    )


def test_graph_marks_a_conflict(root: Path) -> None:
    at_tasks(root, [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}])
    _work(root, "a", 3, "from a")
    _work(root, "b", 3, "from b")
    chart = run_cli(root, "graph").stdout
    assert '["⚡ b: B · merge conflict: f.txt"]:::conflict' in chart
    assert "classDef conflict fill:#fff8c5,stroke:#bf8700" in chart
    assert '["✓ a: A"]:::completed' in chart


def test_a_task_completed_by_its_handoff_is_committed_and_merged_by_the_queue(root: Path) -> None:
    """The SubagentStop path records done without the commit: ``next`` runs the merge, which
    commits what the agent left and merges it."""
    at_tasks(root, [{"id": "a", "title": "A"}])
    out = cli_json(root, "task", "start", "a")
    edit_line(Path(out["worktree"]) / "f.txt", 2, "left uncommitted by a")
    reply = {
        "task_id": "a",
        "phase": "write",
        "status": "complete",
        "decision": "PROCEED",
        "context_summary": "a done",
        "issues": [],
    }
    proc = run_cli(root, "handoff", "record", "-", "--task", "a", stdin=json.dumps(reply))
    assert proc.returncode == 0, proc.stderr
    assert task_of(root, "a")["merge"] == "pending"
    action = cli_json(root, "next")
    assert action["merged"].startswith(f"merged 1 task(s) into {integration(root)}; wave 1")
    assert action["phase"] == "2.2"
    assert show(root, integration(root)).splitlines()[2] == "left uncommitted by a"
    a = task_of(root, "a")
    assert git(root, "log", "-1", "--format=%s", a["head"]) == "a: A"


def test_a_reclaimed_task_keeps_the_work_on_its_branch(root: Path) -> None:
    at_tasks(root, [{"id": "a"}, {"id": "b"}])
    out = cli_json(root, "task", "start", "a")
    wt = Path(out["worktree"])
    edit_line(wt / "f.txt", 4, "first attempt")
    git(wt, "commit", "-qam", "first attempt")
    git(root, "worktree", "remove", "--force", str(wt))  # a crash between claim and work, say
    again = cli_json(root, "task", "start", "a")
    assert again["worktree"] == out["worktree"]
    assert (wt / "f.txt").read_text().splitlines()[4] == "first attempt"


def test_dispatch_says_how_the_users_checkout_is_treated(root: Path) -> None:
    from gitrepo import make_repo

    make_repo(root)
    out = cli_json(root, "dispatch", "Add a health endpoint")
    assert out["message"] == (
        "workflow started: Add a health endpoint; worktree isolation: in phase 2.1 each task "
        "works in its own git worktree and is merged into an integration branch made from your "
        "HEAD plus a commit of your uncommitted changes to tracked files; your branch and "
        "working tree are left as they are"
    )


def test_merged_branches_can_be_deleted_by_config(root: Path) -> None:
    from gitrepo import make_repo

    make_repo(root)
    from clitools import walk_to
    from gitrepo import load

    walk_to(root, "2.1")
    (root / ".agents" / "config.json").write_text(
        json.dumps({"stages": {"IMPLEMENT": {"tasks": {"deleteMergedBranches": True}}}})
    )
    load(root, [{"id": "a"}, {"id": "b"}])
    _work(root, "a", 1, "by a")
    _work(root, "b", 5, "by b")
    refs = git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/agents/").split()
    assert refs == [integration(root)]
    final = show(root, integration(root)).splitlines()
    assert (final[1], final[5]) == ("by a", "by b")
    assert task_of(root, "a")["merge"] == "merged"
    trash_gone(root)  # merged worktrees are deleted by a detached rm -rf
    assert run_cli(root, "doctor").stdout == "doctor: no problems found\n"


def test_commits_carry_the_users_identity_or_the_engines(root: Path) -> None:
    at_tasks(root, [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}])
    git(root, "config", "user.name", "Dev Eloper")
    git(root, "config", "user.email", "dev@example.com")
    _work(root, "a", 1, "by a")
    git(root, "config", "--unset", "user.email")
    git(root, "config", "--unset", "user.name")
    _work(root, "b", 5, "by b")
    author = {
        t: git(root, "log", "-1", "--format=%an <%ae>", task_of(root, t)["head"]) for t in "ab"
    }
    assert author == {
        "a": "Dev Eloper <dev@example.com>",
        "b": "agents-state <agents-state@localhost>",
    }


def test_an_earlier_workflows_branch_is_never_reused_and_a_repeated_load_keeps_its_own(
    root: Path,
) -> None:
    from clitools import walk_to
    from gitrepo import load, make_repo

    make_repo(root)
    walk_to(root, "2.1")
    slug = "".join(c for c in state(root)["startedAt"] if c.isdigit())
    taken = f"agents/{slug[:8]}-{slug[8:14]}"
    git(root, "branch", taken, "main")  # left by a workflow started in the same second
    tasks = [{"id": "a"}]
    load(root, tasks)
    assert integration(root) == f"{taken}.2"
    again = load(root, tasks)
    assert again["message"] == "these 1 task definitions are already loaded; nothing changed"
    refs = git(root, "for-each-ref", "--format=%(refname:short)", "refs/heads/agents/").split()
    assert sorted(refs) == sorted([taken, f"{taken}.2"])
