"""Issue 36 on the PostgreSQL store: an answer given at a gate by a process on another host (its
own folder, only the store's URL shared) reaches the waiting workflow's next ``next`` within a
second, and the same answer from many hosts at once is applied once."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from clitools import CLI, artifact_body, race, run_cli

from .pgrace import env_for


def _next(root: Path, url: str) -> dict[str, Any]:
    proc = run_cli(root, "--store", url, "next", "--json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def _at_gate(root: Path, url: str) -> None:
    """A workflow on the server, waiting at the gate after phase 1.1 (gated in root's config)."""
    (root / ".agents").mkdir(parents=True, exist_ok=True)
    (root / ".agents" / "config.json").write_text(json.dumps({"gates": ["1.1"]}))
    assert run_cli(root, "--store", url, "dispatch", "gated").returncode == 0
    for _ in range(10):
        action = _next(root, url)
        if action["kind"] == "compact":
            assert run_cli(root, "--store", url, "compact").returncode == 0
            continue
        if action.get("ask") == "gate":
            return
        proc = run_cli(
            root,
            "--store",
            url,
            "phase",
            "complete",
            action["phase"],
            "--artifact",
            "-",
            stdin=artifact_body(action["write"]),
        )
        assert proc.returncode == 0, proc.stderr
    raise AssertionError("the gate was not reached")


def test_an_answer_from_another_host_reaches_the_next_next(
    root: Path, pg_url: str, tmp_path: Path
) -> None:
    _at_gate(root, pg_url)
    assert _next(root, pg_url)["gate"]["phase"] == "1.1"
    host = tmp_path / "other-host"  # no .agents/ and no configuration there
    host.mkdir()
    proc = subprocess.run(
        [CLI, "gate", "approve", "1.1", "--by", "ann", "--note", "fine"],
        cwd=host,
        env=env_for(pg_url),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # the very next ``next`` sees it: no cache and no polling interval stand between them
    action = _next(root, pg_url)
    assert action["phase"] == "1.2" and action.get("ask") is None
    status = json.loads(run_cli(root, "--store", pg_url, "status", "--json").stdout)
    [answer] = status["workflow"]["gateAnswers"]
    assert (answer["phase"], answer["verdict"], answer["by"], answer["note"]) == (
        "1.1",
        "approved",
        "ann",
        "fine",
    )
    assert "gate" not in status["workflow"]


def test_the_same_answer_from_12_hosts_is_applied_once(
    root: Path, pg_url: str, tmp_path: Path
) -> None:
    _at_gate(root, pg_url)
    hosts = [tmp_path / f"host-{i}" for i in range(3)]
    for h in hosts:
        h.mkdir()
    results = race(
        [["gate", "reject", "1.1", "--by", "bob", "--note", "redo"]] * 12,
        cwds=hosts,
        env=env_for(pg_url),
    )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results if r.returncode]
    firsts = [r.stdout.splitlines()[0] for r in results]
    assert sum(f.startswith("gate 1.1 Brainstorm rejected by bob") for f in firsts) == 1
    status = json.loads(run_cli(root, "--store", pg_url, "status", "--json").stdout)
    assert len(status["workflow"]["gateAnswers"]) == 1
    action = _next(root, pg_url)
    assert (
        action["phase"] == "1.1"
        and "rejected this phase at its gate: redo." in action["instructions"]
    )
