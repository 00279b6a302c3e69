"""Issue 34, item 2: after a fan-out, ``phase complete ... --from-answers`` stores an artifact
drafted from the recorded answers when the model wrote none, so the main conversation need not
read them back; it is refused while an agent has not answered, and a written artifact wins."""

from __future__ import annotations

import json
from pathlib import Path

from test_fanout_hooks import call_of, on_host, stop, transcript
from test_subagent_hook import cli, explore_handoff, state

ARTIFACT = ".agents/phases/0-explore.md"


def _answer_all_but(root: Path, tmp_path: Path, left: int) -> list[str]:
    agents = call_of(root)["args"]["agents"]
    for n, agent in enumerate(agents[: len(agents) - left], 1):
        answer = {**explore_handoff(n), "task_id": agent["key"]}
        stop(
            root,
            "subagents:explore-agent",
            transcript(tmp_path, f"a{n}", agent["prompt"], answer),
            f"a{n}",
        )
    return [a["key"] for a in agents]


def test_the_command_drafts_the_artifact_from_every_answer(root: Path, tmp_path: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    command = json.loads(on_host(root, "next", "--json").stdout)["command"]
    assert command == f"agents-state phase complete 0 --artifact {ARTIFACT} --from-answers"
    keys = _answer_all_but(root, tmp_path, 0)
    done = on_host(root, *command.split()[1:])
    assert done.returncode == 0, done.stderr
    assert "NEXT: " in done.stdout  # the next action comes with it: no separate next
    text = (root / ARTIFACT).read_text()
    assert text.startswith("# 0 Parallel Explore\n\nTask: Add OAuth login\n")
    for n, key in enumerate(keys, 1):
        assert f"## {key}\n\nArea {n} mapped: src/a{n}.py holds it." in text
        assert f'"area": "area {n}"' in text
    assert state(root)["stages"]["EXPLORE"]["phases"]["0"]["status"] == "completed"


def test_it_is_refused_while_an_agent_has_not_answered(root: Path, tmp_path: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    keys = _answer_all_but(root, tmp_path, 1)
    out = on_host(root, "phase", "complete", "0", "--artifact", ARTIFACT, "--from-answers")
    assert out.returncode == 4 and out.stdout == ""
    assert out.stderr.strip() == (
        f"agents-state: error: phase 0 is waiting for the answers of its agents ({keys[-1]}): "
        "cannot be completed from its answers (run agents-state next: its Workflow call runs "
        "the agents that have not answered)"
    )
    assert not (root / ARTIFACT).exists()
    assert state(root)["stages"]["EXPLORE"]["phases"]["0"]["status"] != "completed"


def test_an_artifact_the_model_wrote_is_the_one_stored(root: Path, tmp_path: Path) -> None:
    assert cli(root, "dispatch", "Add OAuth login").returncode == 0
    _answer_all_but(root, tmp_path, 0)
    (root / ARTIFACT).write_text("# merged by hand\n")
    out = on_host(root, "phase", "complete", "0", "--artifact", ARTIFACT, "--from-answers")
    assert out.returncode == 0, out.stderr
    assert (root / ARTIFACT).read_text() == "# merged by hand\n"
