"""Issue 35 item 2: the commands parse, call one use case (``agents_state.verbs``) and render.

Checked on the AST of ``cli/`` and ``verbs/``: no command records a transition itself (an
``App.run``, a store's ``commit``, an engine event, the git steps of a task or the merge
queue), no ``object``-typed parameter and no ``assert isinstance`` on a result; and every use
case's typed result renders to exactly its command's ``--json`` body.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from clitools import cli_json, run_cli

PKG = Path(__file__).resolve().parent.parent / "agents_state"

# what only a use case calls: a transition, a store's commit, the git sagas of the tasks
FLOW_CALLS = {
    "run",  # App.run (as ``app.run``)
    "commit",
    "record_on_workflow",
    "run_record",
    "run_queue",
    "prepare_resolve",
    "before_done",
    "after_claim",
    "settle_integration",
    "complete_phase",
    "start_workflow",
    "git_lock",  # a git saga (doctor --repair's stray worktrees, a task's commit)
}
FLOW_MODULES = {"agents_state.engine.events", "agents_state.gitwork.steps"}
# the commands that still run a flow of their own, and why
LEFT: dict[tuple[str, str], str] = {
    ("cli/cmd_graph.py", "commit"): "graph --write renders under the store's lock and changes "
    "no state (a view written to disk)",
}


def _called(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Attribute):
        if f.attr == "run":  # only App.run: subprocess.run and the like are not flows
            return "run" if isinstance(f.value, ast.Name) and f.value.id == "app" else None
        return f.attr
    if isinstance(f, ast.Name) and f.id != "run":  # ``cli.runner.run``: the CLI's own main
        return f.id
    return None


def _modules(folder: str) -> list[tuple[str, ast.Module]]:
    return [
        (f"{folder}/{p.name}", ast.parse(p.read_text(encoding="utf-8")))
        for p in sorted((PKG / folder).glob("*.py"))
    ]


def test_no_command_runs_a_flow_of_its_own() -> None:
    found: set[tuple[str, str]] = set()
    for name, tree in _modules("cli"):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called(node) in FLOW_CALLS:
                found.add((name, str(_called(node))))
            elif isinstance(node, ast.ImportFrom) and node.module in FLOW_MODULES:
                found.add((name, node.module))
            elif (
                isinstance(node, ast.ImportFrom)
                and node.module == "agents_state.engine"
                and any(a.name == "events" for a in node.names)
            ):
                found.add((name, "agents_state.engine.events"))
    assert found == set(LEFT), sorted(found - set(LEFT))


def test_no_object_typed_parameter_or_isinstance_assert() -> None:
    found: list[str] = []
    for folder in ("cli", "verbs"):
        for name, tree in _modules(folder):
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.arg)
                    and isinstance(node.annotation, ast.Name)
                    and node.annotation.id == "object"
                ):
                    found.append(f"{name}:{node.lineno} {node.arg}: object")
                if isinstance(node, ast.Assert) and isinstance(node.test, ast.Call):
                    f = node.test.func
                    if isinstance(f, ast.Name) and f.id == "isinstance":
                        found.append(f"{name}:{node.lineno} assert isinstance")
    assert found == []


@pytest.fixture
def failed(root: Path) -> Path:
    assert run_cli(root, "dispatch", "typed").returncode == 0
    assert run_cli(root, "phase", "fail", "0", "--error", "boom").returncode == 0
    assert run_cli(root, "phase", "fail", "0", "--error", "boom").returncode == 0
    assert run_cli(root, "phase", "fail", "0", "--error", "boom").returncode == 0
    return root


def test_the_results_render_to_the_commands_json(failed: Path) -> None:
    """``resume`` (explained) and ``budget`` as the typed results render them, from the same
    state as the commands read."""
    from agents_state.verbs import control
    from agents_state.verbs.common import open_app

    app = open_app(str(failed))
    assert control.resume(app).body() == cli_json(failed, "resume")
    report = control.budget_report(app).body()
    shown = cli_json(failed, "budget")
    assert {**report, "at": None} == {**shown, "at": None}


def test_stop_and_resume_without_a_workflow_say_so(root: Path) -> None:
    from agents_state.verbs import control
    from agents_state.verbs.common import open_app

    app = open_app(str(root))
    for cmd, result in (("stop", control.stop(app)), ("resume", control.resume(app))):
        proc = run_cli(root, cmd, "--json")
        assert proc.returncode == 0
        body = json.loads(proc.stdout)
        assert body == result.body()
        assert body["message"] == "no active workflow" and body["next"]["kind"] == "start"
