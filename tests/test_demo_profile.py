"""Issue 18: the README's main job (``demo``) and ``profile show / check``, in process, with the
texts, ``--json`` shapes and exit codes a user sees."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from clitools import invoke


def test_demo_runs_a_workflow_to_the_end_and_cleans_up() -> None:
    proc = invoke(["demo"])
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    m = re.match(r"\(in (\S+); \.agents/config\.json sets the test command\)$", lines[0])
    assert m, lines[0]
    assert lines[2] == "$ agents-state dispatch 'Add OAuth login with Google and GitHub'"
    assert "NEXT: done" in proc.stdout and "Workflow completed" in proc.stdout
    assert lines[-1] == (
        "files: 0-explore.md, 1.1-brainstorm.md, 1.2-plan.md, "
        "1.3-plan-review.json, 2.1-summary.md, 2.1-tasks.json, 2.2-simplify.md, "
        "2.3-impl-review.json, 3.1-test-results.json, 3.2-analysis.md, "
        "3.3-test-review.json, 4.1-docs.md, 4.2-final-review.json, "
        "4.3-completion.md, EXPLORE-output.md, FINAL-output.md, "
        "IMPLEMENT-output.md, PLAN-output.md, TEST-output.md"
    )
    assert not Path(m.group(1)).exists()


def test_demo_keep_leaves_a_completed_workflow() -> None:
    proc = invoke(["demo", "--keep"])
    assert proc.returncode == 0
    kept = Path(proc.stdout.splitlines()[-1].removeprefix("kept: "))
    try:
        state = json.loads((kept / ".agents" / "state.json").read_text())
        assert state["status"] == "completed"
        assert all(s["status"] == "completed" for s in state["stages"].values())
    finally:
        shutil.rmtree(kept)


_CCLSP_READ = ", ".join(
    f"mcp__cclsp__{t}"
    for t in (
        "find_definition",
        "find_references",
        "find_workspace_symbols",
        "find_implementation",
        "get_hover",
        "get_diagnostics",
        "prepare_call_hierarchy",
        "get_incoming_calls",
        "get_outgoing_calls",
    )
)  # read-only tools one by one: rename_symbol edits files (issue 16)


def test_profile_show_lists_and_explains(root: Path) -> None:
    shown = invoke(["--root", str(root), "profile", "show", "researcher"])
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[:3] == [
        "researcher / research: Read, search and web lookup",
        "  tools: Read, Grep, Glob, " + _CCLSP_READ + ", WebFetch, WebSearch, "
        "mcp__context7__resolve-library-id, mcp__context7__get-library-docs, "
        "mcp__context7__query-docs",
        "  no .env or credential files",
    ]
    combined = invoke(["--root", str(root), "profile", "show", "reader+Bash"])
    assert combined.stdout.splitlines()[1] == "  tools: Read, Grep, Glob, " + _CCLSP_READ + ", Bash"
    every = json.loads(invoke(["--root", str(root), "profile", "show", "--json"]).stdout)
    assert [p["name"] for p in every][:2] == ["reader", "researcher"]
    # issue 23: which profiles' Bash runs contained
    assert {p["name"]: p["bashContained"] for p in every} == {
        "reader": False,
        "researcher": False,
        "validator": True,
        "committer": True,
        "writer": False,
        "orchestrator": False,
    }
    validator = invoke(["--root", str(root), "profile", "show", "validator"]).stdout
    assert validator.splitlines()[3] == (
        "  Bash runs in a bubblewrap sandbox: credential files read empty, writes only in the "
        "project, no network (docs/plugin.md)"
    )


def test_profile_check_allows_denies_and_names_unknown_profiles(root: Path) -> None:
    ok = invoke(
        ["--root", str(root), "profile", "check", "researcher", "Read", "--path", "src/a.py"]
    )
    assert (ok.returncode, ok.stdout) == (0, "researcher allows Read\n")
    denied = invoke(["--root", str(root), "profile", "check", "researcher", "Bash"])
    assert denied.returncode == 4
    assert denied.stderr.startswith(
        "agents-state: error: profile researcher is missing the "
        "tool: cannot use Bash (Bash is not in it."
    )
    secret = invoke(
        ["--root", str(root), "profile", "check", "researcher", "Read", "--path", ".env"]
    )
    assert secret.returncode == 4 and "handoffs must stay free of secrets" in secret.stderr
    doc = json.loads(
        invoke(["--root", str(root), "profile", "check", "researcher", "Bash", "--json"]).stdout
    )
    assert (doc["profile"], doc["tool"], doc["allowed"]) == ("researcher", "Bash", False)
    unknown = invoke(["--root", str(root), "profile", "check", "nonesuch", "Read"])
    assert unknown.returncode == 3
    assert unknown.stderr.startswith(
        "agents-state: error: unknown profile 'nonesuch'; profiles "
        "are reader / read-only, researcher / research, "
    )
