"""Issue 34, item 2: the short artifacts a step needs are printed in its action, not left to a
``read:`` that costs the main conversation a turn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agents_state.views.inline import ONE, inline_reads

_EXE = Path(sys.executable).with_name("agents-state")
CMD = [str(_EXE)] if _EXE.exists() else [sys.executable, "-m", "agents_state"]


def _phases(root: Path) -> Path:
    folder = root / ".agents" / "phases"
    folder.mkdir(parents=True)
    return folder


def test_a_short_artifact_moves_inline_and_a_long_one_stays_to_read(root: Path) -> None:
    folder = _phases(root)
    (folder / "a.md").write_text("# a\nshort\n")
    (folder / "b.md").write_text("x" * (ONE + 1))
    action = {"kind": "work_inline", "read": [".agents/phases/a.md", ".agents/phases/b.md"]}
    out = inline_reads(action, str(root))
    assert out["read"] == [".agents/phases/b.md"]
    assert out["inline"] == [{"path": ".agents/phases/a.md", "text": "# a\nshort\n"}]


def test_missing_files_and_files_outside_agents_stay_to_read(root: Path) -> None:
    (root / "README.md").write_text("hi\n")
    action = {"kind": "work_inline", "read": ["README.md", ".agents/phases/none.md"]}
    assert inline_reads(action, str(root)) == action


def _cli(root: Path, *args: str) -> str:
    run = subprocess.run(
        [*CMD, "--root", str(root), *args], capture_output=True, text=True, check=True
    )
    return run.stdout


def test_next_prints_the_explore_findings_in_the_brainstorm_action(root: Path) -> None:
    _cli(root, "dispatch", "Add a health endpoint")
    (root / ".agents" / "phases" / "0-explore.md").write_text("# explore\n- area 1: none\n")
    _cli(root, "phase", "complete", "0", "--artifact", ".agents/phases/0-explore.md")
    _cli(root, "compact")
    action = json.loads(_cli(root, "next", "--json"))
    assert action["phase"] == "1.1" and action["read"] == []
    assert action["inline"] == [
        {"path": ".agents/phases/0-explore.md", "text": "# explore\n- area 1: none\n"}
    ]
    text = _cli(root, "next").splitlines()
    at = text.index("  inline: .agents/phases/0-explore.md")
    assert text[at + 1 : at + 3] == ["    | # explore", "    | - area 1: none"]
    assert not any(line.startswith("  read:") for line in text)


def test_a_task_waves_files_stay_references(root: Path) -> None:
    """A task wave's agents carry their own briefs: the plan and the task list are not printed
    in the orchestrator's action (nor in the SessionStart context), only named."""
    import shutil

    shutil.rmtree(root / ".agents", ignore_errors=True)
    shutil.copytree(Path(__file__).parents[2] / ".agents.example", root / ".agents")
    action = json.loads(_cli(root, "next", "--json"))
    assert action["phase"] == "2.1" and action["tasks"]
    assert "inline" not in action
    assert action["read"] == [".agents/phases/1.2-plan.md", ".agents/phases/2.1-tasks.json"]
