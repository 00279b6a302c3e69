"""Issue 9: ``graph`` — tasks and waves as Mermaid, checked by the official parser when it is
installed (``npm ci`` in tests/views/mermaid/) and always by a documented structural check."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from clitools import cli_json, run_cli

from agents_state.models import State
from agents_state.store.codec import decode_state
from agents_state.views.graph import escape_label, mermaid
from views.mermaid_check import check_flowchart
from views.states import completed, failed, fresh, mid_wave

HERE = Path(__file__).parent
EXAMPLE = HERE.parent.parent / ".agents.example"
PARSER = HERE / "mermaid"


def _example() -> State:
    return decode_state((EXAMPLE / "state.json").read_bytes(), "state.json")


def _nasty() -> State:
    state = mid_wave()
    tasks = state.phase("2.1").tasks
    assert tasks is not None
    tasks["task-1"].title = 'He said "end" <b>#1</b> `x` & [y] {z}\nsecond line'
    tasks["task-2"].title = "x" * 200
    return state


def _official_parser() -> Path | None:
    if shutil.which("node") and (PARSER / "node_modules" / "mermaid").is_dir():
        return PARSER / "parse.mjs"
    return None


def _diagrams() -> dict[str, str]:
    return {
        "example": mermaid(_example()),
        "example-pipeline": mermaid(_example(), pipeline=True),
        "example-wave-2": mermaid(_example(), wave=2),
        "fresh": mermaid(fresh()),
        "fresh-pipeline": mermaid(fresh(), pipeline=True),
        "failed-pipeline": mermaid(failed(), pipeline=True),
        "completed": mermaid(completed(), pipeline=True),
        "nasty": mermaid(_nasty(), pipeline=True),
    }


@pytest.mark.parametrize("name", list(_diagrams()))
def test_structural_check(name: str) -> None:
    assert check_flowchart(_diagrams()[name]) == []


def test_official_mermaid_parser(tmp_path: Path) -> None:
    script = _official_parser()
    if script is None:
        pytest.skip("official Mermaid parser not installed (cd tests/views/mermaid && npm ci)")
    files = []
    for name, text in _diagrams().items():
        (tmp_path / f"{name}.mmd").write_text(text, encoding="utf-8")
        files.append(str(tmp_path / f"{name}.mmd"))
    (tmp_path / "broken.mmd").write_text('flowchart TD\n  subgraph w1["x"\n  t0 -->\n')
    proc = subprocess.run(
        ["node", str(script), *files], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("flowchart-v2") == len(files)
    bad = subprocess.run(
        ["node", str(script), str(tmp_path / "broken.mmd")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 1 and "parse error" in bad.stderr  # the check can fail


def test_structural_check_catches_mistakes() -> None:
    good = mermaid(_example())
    assert check_flowchart(good.replace("  end\n", "", 1)) == ["1 subgraph(s) without 'end'"]
    assert check_flowchart(good.replace("t0 --> t3", "t0 --> t99"))[0].endswith(
        "undefined id 't99'"
    )
    assert "unescaped" in check_flowchart(good.replace("task-1: OAuth", "task-1: #OAuth"))[0]
    assert (
        check_flowchart(good.replace("  classDef completed", "  classDef done"))[-1]
        == "class 'completed' used but not defined"
    )


def test_example_diagram_shape() -> None:
    text = mermaid(_example())
    assert text.startswith("flowchart TD\n")
    assert [line for line in text.splitlines() if "subgraph" in line] == [
        '  subgraph w1["✓ wave 1 (completed)"]',
        '  subgraph w2["▶ wave 2 (in_progress)"]',
        '  subgraph w3["· wave 3 (pending)"]',
    ]
    assert '    t3["▶ task-4: Callback routes · task-agent-4"]:::in_progress' in text
    assert "  t0 --> t3\n" in text and "  w1 -.-> w2\n" in text


def test_labels_are_escaped() -> None:
    assert escape_label('a "b" <c> #1 `d`') == "a #quot;b#quot; #lt;c#gt; #35;1 #96;d#96;"
    assert escape_label("x" * 100) == "x" * 59 + "…"
    text = mermaid(_nasty())
    assert '"' not in text.split("task-1: ")[1].split('"]')[0]


def test_graph_command_stdout_file_and_errors(root: Path) -> None:
    assert run_cli(root, "graph").returncode == 3  # no workflow
    shutil.copytree(EXAMPLE, root / ".agents")
    proc = run_cli(root, "graph", "--pipeline")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == mermaid(_example(), pipeline=True)
    proc = run_cli(root, "graph", "--write")
    assert proc.stdout == "wrote .agents/phases/2.1-graph.md (revision 15)\n"
    md = (root / ".agents/phases/2.1-graph.md").read_text(encoding="utf-8")
    assert md.startswith("# Task graph: Add OAuth authentication with Google and GitHub\n")
    fence = md.split("```mermaid\n")[1].split("```")[0]
    assert fence == mermaid(_example())
    assert cli_json(root, "status")["workflow"]["revision"] == 15  # the state is not changed
    data = cli_json(root, "graph", "--wave", "2")
    assert data["diagram"] == mermaid(_example(), wave=2) and data["revision"] == 15
    proc = run_cli(root, "graph", "--wave", "4")
    assert proc.returncode == 3
    assert proc.stderr == "agents-state: error: no wave 4: phase 2.1 has 3 wave(s)\n"
