"""Issue 34, item 1: a fan-out's Workflow call carries keys and a reference to each agent's brief,
not the prompts; the engine writes the briefs; the handoff schema is named once."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from test_waves import T0

from agents_state.config import Config
from agents_state.engine import events as ev
from agents_state.engine.briefs import by_reference
from agents_state.engine.fanout import HANDOFF_SCHEMA, marker_of
from agents_state.engine.phases import new_state
from agents_state.views.nextaction import next_action

REPO = Path(__file__).resolve().parent.parent
_EXE = Path(sys.executable).with_name("agents-state")
CMD = [str(_EXE)] if _EXE.exists() else [sys.executable, "-m", "agents_state"]
HOST = {"AI_AGENT": "claude-code_2-1-330_agent"}


def _action() -> dict[str, Any]:
    state = new_state(ev.Start(task="add a login page", agent_counts={"0": 3}), T0)
    return next_action(state, Config(), T0, native=True)


def test_each_prompt_becomes_a_reference_and_its_brief_a_file(tmp_path: Path) -> None:
    action = _action()
    printed = action["workflow"]["args"]["agents"]
    out, files = by_reference(action, str(tmp_path))
    args = out["workflow"]["args"]
    assert args["schema"] == "handoff" and set(out) == set(action)
    real = os.path.realpath(tmp_path)
    for before, after in zip(printed, args["agents"], strict=True):
        path = f"{real}/.agents/briefs/0/{before['key']}.md"
        assert after["prompt"] == (
            f"[agents-state fanout 0 agent {before['key']}]\nYour brief is {path}: read it "
            "first (the Read tool), then do what it says."
        )
        assert marker_of(after["prompt"]) == ("0", before["key"])  # the hook still knows whose
        assert "schema" not in after and before["schema"] == HANDOFF_SCHEMA
        assert files[path] == before["prompt"].split("\n", 1)[1] + "\n"
    assert len(json.dumps(out)) < len(json.dumps(action)) / 2


def test_a_key_that_is_no_plain_file_name_keeps_its_prompt(tmp_path: Path) -> None:
    action = _action()
    agents = action["workflow"]["args"]["agents"]
    agents[0] = {**agents[0], "key": "../x"}
    out, files = by_reference(action, str(tmp_path))
    kept = out["workflow"]["args"]["agents"][0]
    assert kept == agents[0] and len(files) == len(agents) - 1
    assert all("/.agents/briefs/0/" in p and ".." not in p for p in files)
    assert by_reference({"kind": "done"}, str(tmp_path)) == ({"kind": "done"}, {})


def test_the_script_holds_the_engines_handoff_schema() -> None:
    script = (REPO / "workflows" / "fanout.js").read_text()
    found = re.search(r"^const HANDOFF = (\{.*\})$", script, re.M)
    assert found and json.loads(found.group(1)) == HANDOFF_SCHEMA


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CMD, "--root", str(root), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **HOST},
        timeout=60,
        check=False,
    )


def test_next_writes_the_briefs_and_a_changed_brief_is_written_again(root: Path) -> None:
    assert _cli(root, "dispatch", "Add OAuth login").returncode == 0
    action = json.loads(_cli(root, "next", "--json").stdout)
    agents = action["workflow"]["args"]["agents"]
    briefs = sorted((root / ".agents" / "briefs" / "0").iterdir())
    assert [p.stem for p in briefs] == [a["key"] for a in agents]
    assert all(str(p.resolve()) in a["prompt"] for p, a in zip(briefs, agents, strict=True))
    first = briefs[0].read_text()
    assert first.startswith("Task: Add OAuth login\n") and 'task_id "E1"' in first
    briefs[0].write_text("Push to main.\n")  # whatever wrote it, the engine's text wins
    again = json.loads(_cli(root, "next", "--json").stdout)
    assert again == action and briefs[0].read_text() == first


def _tree(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_status_and_context_write_no_brief_and_next_does(root: Path) -> None:
    """Issue 35: a read command writes nothing; it prints the same references ``next`` prints,
    and only ``next`` (or a recording command, or the approval of the call) writes the briefs."""
    assert _cli(root, "dispatch", "Add OAuth login").returncode == 0
    shutil.rmtree(root / ".agents" / "briefs")  # the recording command wrote them
    before = _tree(root)
    shown = json.loads(_cli(root, "status", "--json").stdout)["next"]
    for args in (("status",), ("context",), ("context", "--json")):
        assert _cli(root, *args).returncode == 0, args
    assert _tree(root) == before
    assert not (root / ".agents" / "briefs").exists()
    action = json.loads(_cli(root, "next", "--json").stdout)
    assert shown["workflow"] == action["workflow"]
    assert sorted(p.stem for p in (root / ".agents" / "briefs" / "0").iterdir()) == [
        a["key"] for a in action["workflow"]["args"]["agents"]
    ]


def test_the_agent_path_prints_each_task_by_reference(tmp_path: Path) -> None:
    """Workflow off: the Agent calls' prompts (tasks[].prompt) name the task and its brief; the
    brief holds what the prompt held (task start first, the handoff last)."""
    from test_waves import _at_tasks

    from agents_state.engine.briefs import tasks_by_reference
    from agents_state.taskref import names_task

    action = next_action(_at_tasks({"a": [], "b": []}), Config(), T0, native=False)
    out, files = tasks_by_reference(action, str(tmp_path))
    folder = Path(os.path.realpath(tmp_path)) / ".agents" / "briefs" / "2.1"
    for was, now in zip(action["tasks"], out["tasks"], strict=True):
        path = folder / f"{was['id']}.md"
        assert now["prompt"] == (
            f"Your task: {was['id']}\nYour brief is {path}: read it first (the Read tool), "
            "then do what it says."
        )
        assert names_task(now["prompt"], was["id"]) and not names_task(now["prompt"], "t")
        assert files[str(path)] == was["prompt"] + "\n"
        assert f"agents-state task start {was['id']}" in files[str(path)]
        assert {k: v for k, v in now.items() if k != "prompt"} == {
            k: v for k, v in was.items() if k != "prompt"
        }
    assert tasks_by_reference(_action(), str(tmp_path)) == (_action(), {})  # a Workflow call
