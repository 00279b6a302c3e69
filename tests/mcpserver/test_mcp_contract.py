"""Issue 36: the CLI stays the contract. The MCP tools reach the engine only through the core
functions the commands call (``agents_state.verbs``), and the status tool's brief form and task
pages are the command's (``status --json --brief --verbose --offset --limit``)."""

from __future__ import annotations

import ast
from pathlib import Path

from clitools import cli_json, run_cli, wave_of

PKG = Path(__file__).resolve().parents[2] / "agents_state"


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_the_tools_call_the_commands_core_functions_only() -> None:
    mods = {m for m in _imports(PKG / "mcpserver/tools.py") if m.startswith("agents_state")}
    assert mods == {
        "agents_state.app",
        "agents_state.errors",
        "agents_state.verbs",
        "agents_state.verbs.flow",
        "agents_state.verbs.results",  # issue 35: what the core functions return
        "agents_state.verbs.steps",
    }


def test_the_commands_call_the_same_core_functions() -> None:
    """Each command a tool stands for imports its core function from ``verbs``."""
    wanted = {
        "cmd_status.py": "agents_state.verbs.flow",
        "cmd_workflow.py": "agents_state.verbs.flow",
        "cmd_compact.py": "agents_state.verbs.flow",
        "cmd_phase.py": "agents_state.verbs.steps",
        "cmd_handoff.py": "agents_state.verbs.steps",
        "cmd_tasks.py": "agents_state.verbs.tasks",
    }
    for name, module in wanted.items():
        assert module in _imports(PKG / "cli" / name), name


def test_brief_status_keeps_the_current_stage_and_pages_the_tasks(root: Path) -> None:
    wave_of(root, 3)
    full = cli_json(root, "status")["workflow"]
    brief = cli_json(root, "status", "--brief")["workflow"]
    assert brief["currentStage"] == "IMPLEMENT"
    assert brief["stages"]["IMPLEMENT"] == full["stages"]["IMPLEMENT"]
    assert brief["stages"]["PLAN"] == {
        "status": "completed",
        "phases": {"1.1": "completed", "1.2": "completed", "1.3": "completed"},
    }
    page = cli_json(root, "status", "--verbose", "--offset", "1", "--limit", "2")["workflow"]
    detail = page["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert list(detail["tasks"]) == ["t1", "t2"]
    assert detail["taskPage"] == {"offset": 1, "limit": 2, "total": 4, "next": 3}
    last = cli_json(root, "status", "--verbose", "--offset", "3", "--limit", "2")["workflow"]
    assert last["stages"]["IMPLEMENT"]["phases"]["2.1"]["taskPage"]["next"] is None
    everything = cli_json(root, "status", "--verbose")["workflow"]  # no limit: as before
    assert "taskPage" not in everything["stages"]["IMPLEMENT"]["phases"]["2.1"]
    assert len(everything["stages"]["IMPLEMENT"]["phases"]["2.1"]["tasks"]) == 4


def test_paging_and_brief_are_for_json(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    proc = run_cli(root, "status", "--limit", "2")
    assert proc.returncode == 2
    assert proc.stderr == (
        "agents-state: error: --offset and --limit page the tasks of status --json --verbose\n"
    )
    proc = run_cli(root, "status", "--brief")
    assert proc.returncode == 2
    assert proc.stderr == (
        "agents-state: error: --brief shortens status --json (the text is short already)\n"
    )
