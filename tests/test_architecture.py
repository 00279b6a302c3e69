"""Issue 18: imports flow one way (STYLE.md), checked by walking the AST of ``agents_state/``.

- only ``cli/`` imports Click;
- only ``store/`` writes to disk: a call that creates, writes, replaces or removes a file
  anywhere else is listed in ``WRITERS`` with the reason it stays where it is;
- the engine's modules import each other one way (no cycle, no lazy import of a private name);
- nothing outside ``hooks/`` imports a hook module.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "agents_state"

WRITE_CALLS = {
    "write_text",
    "write_bytes",
    "unlink",
    "rmtree",
    "mkdir",
    "makedirs",
    "fdopen",
    "symlink_to",
    "rmdir",
}
OS_WRITE_CALLS = {"replace", "rename", "remove"}  # as ``os.*`` (``str.replace`` is no write)
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}

WRITERS: dict[tuple[str, str], str] = {
    ("cli/cmd_demo.py", "write_bytes"): "demo writes the inputs a model would write, in a "
    "temporary project of its own",
    ("cli/cmd_demo.py", "write_text"): "demo: the 'fix' the analysis phase makes, in its project",
    ("cli/cmd_demo.py", "rmtree"): "demo removes its own temporary project",
    ("cli/cmd_demo.py", "mkdir"): "demo creates its own temporary project",
    ("cli/cmd_schema.py", "mkdir"): "schema --out creates the folder the user names",
    ("cli/cmd_schema.py", "write_text"): "schema --out writes JSON Schema files where the user "
    "asks, outside .agents/",
    ("hooks/seccomp.py", "makedirs"): "a contained call's first use makes .agents/ to hold the "
    "room's seccomp filter, which Claude Code lets the command read only inside the project",
    ("hooks/seccomp.py", "os.open"): "the .gitignore of an .agents/ the room's filter made: "
    "the engine's own, so the filter's file stays out of git",
    ("codexrun.py", "os.open"): "review run writes the review schema for codex --output-schema "
    "into its own temporary folder (issue 37)",
    ("codexrun.py", "fdopen"): "review run: the schema file of its own temporary folder",
    ("cli/runner.py", "fdopen"): "phase run writes the test commands' output to its temp log",
    ("cli/runner.py", "os.open"): "phase run gives the commands /dev/null as stdin",
    ("gitwork/rooms.py", "unlink"): "removes the lock files a killed git left in the engine's "
    "own worktrees, under .agents/git.lock (issue 22)",
    ("gitwork/rooms.py", "rmtree"): "deletes merged tasks' worktrees (moved aside under "
    ".agents/worktrees/ first), under .agents/git.lock (issue 22)",
}


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (str(p.relative_to(PKG)), ast.parse(p.read_text(encoding="utf-8")))
        for p in sorted(PKG.rglob("*.py"))
    ]


def _imports(tree: ast.Module) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


def _writes(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        flags = {n.attr for a in node.args for n in ast.walk(a) if isinstance(n, ast.Attribute)}
        if name in WRITE_CALLS or (
            name in OS_WRITE_CALLS
            and isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id == "os"
        ):
            found.add(name)
        elif name == "open" and isinstance(f, ast.Attribute) and flags & WRITE_FLAGS:
            found.add("os.open")
        elif (
            name == "open"
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and set(str(node.args[1].value)) & set("wax+")
        ):
            found.add("open")
    return found


def test_only_cli_imports_click() -> None:
    wrong = [
        m
        for m, tree in _modules()
        if not m.startswith("cli/")
        and any(i == "click" or i.startswith("click.") for i in _imports(tree))
    ]
    assert wrong == []


def test_only_the_store_writes_to_disk() -> None:
    found = {
        (m, call) for m, tree in _modules() if not m.startswith("store/") for call in _writes(tree)
    }
    assert sorted(found - set(WRITERS)) == [], "write through agents_state.store.files instead"
    assert sorted(set(WRITERS) - found) == [], "a listed exception is gone: remove it"


ENGINE_ORDER = [
    "ready",
    "context",
    "table",
    "retry",
    "advance",
    "gate",
    "taskload",
    "tasks",
    "flow",
    "phases",
]


def _engine_imports_against_order() -> list[str]:
    wrong = []
    for m, tree in _modules():
        if not m.startswith("engine/") or Path(m).stem not in ENGINE_ORDER:
            continue
        rank = ENGINE_ORDER.index(Path(m).stem)
        for imp in _imports(tree):
            stem = imp.removeprefix("agents_state.engine.")
            if stem in ENGINE_ORDER and ENGINE_ORDER.index(stem) >= rank:
                wrong.append(f"{m} imports {imp}")
    return wrong


def test_engine_imports_flow_one_way() -> None:
    assert _engine_imports_against_order() == []
    # the check can fail: read with the order reversed, the engine breaks it everywhere
    ENGINE_ORDER.reverse()
    try:
        assert len(_engine_imports_against_order()) >= len(ENGINE_ORDER) - 1
    finally:
        ENGINE_ORDER.reverse()


def test_nothing_outside_hooks_imports_a_hook_module() -> None:
    wrong = [
        (m, i)
        for m, tree in _modules()
        if not m.startswith("hooks/")
        for i in _imports(tree)
        if i.startswith("agents_state.hooks.")
    ]
    assert wrong == []
