"""Issue 26: packages import one way, and no module imports itself back through others.

Every import counts, at the top of a module, inside a function (lazy) or for the type checker
only: each is a dependency someone reading the code must follow.  The order (docs/decisions.md,
"Packages import one way"), lowest first; a module may import its own layer and the layers
below it, never one above:

    records -> base -> engine -> store -> usage -> handoff -> chains -> doctor -> views -> app
            -> gitwork -> verbs -> hooks -> mcpserver -> cli -> __main__

``base`` is the package's top-level modules (errors, types, models, the catalogue, config ...);
the three top-level modules that use a subpackage sit in that subpackage's layer.  Both checks
are proven able to fail: on a synthetic graph, and on a copy of the package with a wrong-way
import and a cycle planted in it.
"""

from __future__ import annotations

import ast
import graphlib
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "agents_state"

LAYERS = (
    "records",
    "base",
    "engine",
    "store",
    "usage",  # issue 24: the usage book is read and written through the store
    "handoff",
    "chains",
    "doctor",
    "views",
    "app",
    "gitwork",
    "verbs",  # issue 36: the commands' core, shared by the CLI and the MCP server
    "hooks",
    "mcpserver",  # issue 36: the MCP server (the CLI's ``mcp`` command starts it)
    "cli",
    "__main__",
)
# top-level modules outside ``base``: the layer of the subpackage they use
TOP_LEVEL = {
    "migrate": "engine",
    "contextsize": "store",
    "scaffold": "chains",
    "codexcli": "engine",  # issue 37: the Codex CLI as a process
    # issue 37: review run (it reviews the integration worktree); issue 35: a use case, it
    # completes the phase through ``verbs.completing``
    "codexrun": "verbs",
}


def module_graph(pkg: Path) -> dict[str, set[str]]:
    """Each module of ``pkg`` (dotted) -> the modules of ``pkg`` it imports, anywhere in it."""
    root = pkg.name

    def name(p: Path) -> str:
        parts = list(p.relative_to(pkg.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    files = {name(p): p for p in sorted(pkg.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name in files}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(root):
                base = node.module or ""
                subs = {f"{base}.{a.name}" for a in node.names} & files.keys()
                deps |= subs or ({base} & files.keys())
        # a package's own ``__init__`` is not a dependency of its submodules
        graph[mod] = {d for d in deps if d != mod and not mod.startswith(d + ".")}
    return graph


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "base"
    if parts[1] in LAYERS:
        return parts[1]
    return TOP_LEVEL.get(parts[1], "base")


def wrong_way(graph: Mapping[str, set[str]]) -> list[str]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    return sorted(
        f"{m} ({layer(m)}) imports {d} ({layer(d)})"
        for m, deps in graph.items()
        for d in deps
        if rank[layer(d)] > rank[layer(m)]
    )


def cycle(graph: Mapping[str, set[str]]) -> list[str]:
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        return list(e.args[1])
    return []


def test_packages_import_one_way() -> None:
    graph = module_graph(PKG)
    assert len(graph) > 100  # the whole package was read
    assert wrong_way(graph) == []


def test_no_module_cycle() -> None:
    assert cycle(module_graph(PKG)) == []


def test_every_subpackage_has_a_layer() -> None:
    subpackages = {p.name for p in PKG.iterdir() if (p / "__init__.py").exists()}
    assert subpackages <= set(LAYERS)


# -- the checks can fail ---------------------------------------------------------------------


def test_the_checks_fail_on_a_synthetic_graph() -> None:
    graph = {
        "agents_state.engine.a": {"agents_state.views.b"},
        "agents_state.views.b": {"agents_state.engine.c", "agents_state.errors"},
        "agents_state.engine.c": {"agents_state.engine.a"},
        "agents_state.errors": set(),
    }
    assert wrong_way(graph) == [
        "agents_state.engine.a (engine) imports agents_state.views.b (views)"
    ]
    assert sorted(set(cycle(graph))) == [
        "agents_state.engine.a",
        "agents_state.engine.c",
        "agents_state.views.b",
    ]


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A copy of the package's sources to plant imports in."""
    copy = tmp_path / "agents_state"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return copy


def test_a_planted_wrong_way_import_is_found(planted: Path) -> None:
    phases = planted / "engine" / "phases.py"
    lazy = "\n\ndef _planted() -> None:\n    from agents_state.views.render import MARKS  # noqa\n"
    phases.write_text(phases.read_text(encoding="utf-8") + lazy, encoding="utf-8")
    assert wrong_way(module_graph(planted)) == [
        "agents_state.engine.phases (engine) imports agents_state.views.render (views)"
    ]


def test_a_planted_cycle_is_found(planted: Path) -> None:
    lock = planted / "store" / "lock.py"
    lock.write_text(
        lock.read_text(encoding="utf-8") + "\nfrom agents_state.store import files  # noqa\n",
        encoding="utf-8",
    )
    found = cycle(module_graph(planted))
    assert sorted(set(found)) == ["agents_state.store.files", "agents_state.store.lock"]
    assert wrong_way(module_graph(planted)) == []  # same package: only the cycle check sees it
