"""Helpers to run the installed console script as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
CLI = str(Path(sys.executable).parent / "agents-state")


def run_cli(root: Path, *args: str, stdin: str | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed console script as a real process."""
    return subprocess.run([CLI, "--root", str(root), *args], capture_output=True, text=True,
                          input=stdin, env={**os.environ, **(env or {})}, timeout=60,
                          check=False)


def cli_json(root: Path, *args: str) -> Any:
    proc = run_cli(root, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
