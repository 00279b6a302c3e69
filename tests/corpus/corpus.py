"""The bad-input corpus (issue 7): each case is a file (or generated input), where it goes, the
command that reads it, and the exact exit code and first stderr line expected.

Cases live in ``cases.json``; their files in ``files/``.  ``generate`` names inputs too big or
too odd to keep in git (a 200 MB sparse file, 10,000-deep nesting, symbolic links out of the
tree), built at run time by ``materialise``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from clitools import run_cli, walk_to

HERE = Path(__file__).parent
FILES = HERE / "files"
_TEMPLATES: dict[str, Path] = {}


def cases() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((HERE / "cases.json").read_text())
    return data


def _cli(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(root, *args, stdin=stdin)


def _walk_to(root: Path, phase: str) -> None:
    walk_to(root, phase, "corpus")


def _build(setup: str, root: Path) -> None:
    if setup == "started":
        assert _cli(root, "dispatch", "corpus").returncode == 0
    elif setup == "review":
        _walk_to(root, "1.3")
    elif setup in ("wave", "tasks"):
        _walk_to(root, "2.1")
        if setup == "tasks":
            (root / "t.json").write_text(
                json.dumps(
                    {
                        "tasks": [
                            {"id": "t0", "dependencies": []},
                            {"id": "t1", "dependencies": ["t0"]},
                        ]
                    }
                )
            )
            assert _cli(root, "tasks", "load", str(root / "t.json")).returncode == 0
            (root / "t.json").unlink()


def prepare(setup: str, root: Path) -> None:
    """Copy the template folder for ``setup`` (built once per process) into ``root``."""
    if setup == "none":
        return
    if setup not in _TEMPLATES:
        base = Path(tempfile.mkdtemp(prefix=f"agents-state-corpus-{setup}-"))
        _build(setup, base)
        _TEMPLATES[setup] = base
    shutil.copytree(_TEMPLATES[setup] / ".agents", root / ".agents")


def materialise(case: dict[str, Any], root: Path, outside: Path) -> Path:
    """Put the case's input where it belongs; returns its path."""
    place = case.get("place", "input")
    target: Path = {
        "state": root / ".agents/state.json",
        "config": root / ".agents/config.json",
        "input": root / "input" / case["id"],
    }[place]
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() or target.is_symlink():
        target.unlink()
    gen = case.get("generate")
    if gen == "sparse200mb":
        with open(target, "wb") as f:
            f.write(b'{"tasks": [')
            f.truncate(200 * 1024 * 1024)
    elif gen == "deep10000":
        target.write_text('{"version": 2, "task": "x", "tasks": ' + "[" * 10000 + "]" * 10000 + "}")
    elif gen == "symlink-out":
        real = outside / "elsewhere.json"
        real.write_bytes((FILES / "state-minimal.json").read_bytes())
        target.symlink_to(real)
    elif gen == "agents-symlink-out":
        shutil.rmtree(root / ".agents", ignore_errors=True)
        (outside / "agents").mkdir(exist_ok=True)
        (root / ".agents").symlink_to(outside / "agents")
    elif "file" in case:
        target.write_bytes((FILES / case["file"]).read_bytes())
    return target


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root except the lock's owner note (rewritten by each locked command)."""
    out: dict[str, bytes] = {}
    for dirpath, _dirs, names in os.walk(root):
        for n in names:
            p = Path(dirpath) / n
            rel = str(p.relative_to(root))
            if n in ("lock-owner", "state.lock") or p.is_symlink():
                continue
            if p.stat().st_size > 1024 * 1024:
                out[rel] = f"size {p.stat().st_size}".encode()
                continue
            out[rel] = p.read_bytes()
    return out


def run_case(case: dict[str, Any], root: Path, path: Path) -> subprocess.CompletedProcess[str]:
    """Run the case's command on its materialised input ``path``."""
    args = [a.replace("{file}", str(path)) for a in case["args"]]
    args = [a.encode("utf-8").decode("unicode_escape") if case.get("escapes") else a for a in args]
    return _cli(root, *args)
