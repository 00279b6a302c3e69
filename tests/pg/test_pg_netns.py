"""Issue 17: writers in two Linux network namespaces, each joined to the server's side by a veth
pair whose addresses the test assigns, share one workflow: nothing depends on a shared file
system or working directory (each writer runs in its own empty folder, in its own namespace,
and reaches the server only through its veth link)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from clitools import wave_of

from agents_state.store.pg import PgStore

from . import pgrace
from .pgserver import PgServer, pg_bindir

NETS = [("10.217.71.1", "10.217.71.2"), ("10.217.72.1", "10.217.72.2")]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


@pytest.fixture
def namespaces() -> Iterator[list[tuple[str, str]]]:
    """Two namespaces ``(name, server address as seen from it)``, removed afterwards."""
    if os.geteuid() != 0 or not _has_ip():
        if os.environ.get("CI"):
            pytest.fail("CI: network namespaces need root and iproute2 (.ci/run installs it)")
        pytest.skip("network namespaces need root and iproute2")
    tag = uuid.uuid4().hex[:6]
    made: list[tuple[str, str]] = []
    try:
        for i, (host_ip, ns_ip) in enumerate(NETS):
            ns, outer, inner = f"as17-{tag}-{i}", f"as17{tag}h{i}", f"as17{tag}n{i}"
            _ip("netns", "add", ns)
            made.append((ns, outer))
            _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", ns)
            _ip("addr", "add", f"{host_ip}/30", "dev", outer)
            _ip("link", "set", outer, "up")
            _ip("-n", ns, "addr", "add", f"{ns_ip}/30", "dev", inner)
            _ip("-n", ns, "link", "set", inner, "up")
        yield [(ns, NETS[i][0]) for i, (ns, _) in enumerate(made)]
    finally:
        for ns, outer in made:
            subprocess.run(["ip", "link", "del", outer], capture_output=True, check=False)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def _has_ip() -> bool:
    import shutil

    return shutil.which("ip") is not None


@pytest.mark.slow
def test_writers_in_two_network_namespaces_share_one_workflow(
    root: Path, tmp_path: Path, namespaces: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    bindir = pg_bindir()
    assert bindir is not None
    server = PgServer(bindir)
    server.listen = ",".join(["127.0.0.1", *(addr for _, addr in namespaces)])
    try:
        server.start()
        monkeypatch.setenv("AGENTS_STATE_STORE", server.url("netns"))
        ids = wave_of(root, 10, "two hosts")
        monkeypatch.delenv("AGENTS_STATE_STORE")
        # the namespaces reach nothing but their veth peer: not even the server's 127.0.0.1
        ns0 = namespaces[0][0]
        probe = subprocess.run(
            ["ip", "netns", "exec", ns0, pgrace.CLI, "status"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=pgrace.env_for(server.url("netns"), AGENTS_STATE_CONNECT_TIMEOUT="2"),
        )
        assert probe.returncode == 7 and "connect failed" in probe.stderr
        procs = []
        for i in range(10):
            ns, addr = namespaces[i % 2]
            host = tmp_path / f"{ns}-{i}"  # a fresh empty folder per writer
            host.mkdir()
            argv = [
                "ip",
                "netns",
                "exec",
                ns,
                pgrace.CLI,
                "task",
                "claim",
                "--agent",
                f"{ns}-{i}",
                "--json",
            ]
            procs.append(
                subprocess.Popen(
                    argv,
                    cwd=host,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=pgrace.env_for(server.url("netns", host=addr)),
                )
            )
        outs = [p.communicate(timeout=300) for p in procs]
        assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
        won = sorted(json.loads(o)["task"] for o, _ in outs)
        assert won == sorted(ids)
        state = PgStore(server.url("netns"), root).load()
        assert state is not None
        owners = {t.owner for t in pgrace.tasks_of(state).values() if t.owner}
        assert {o.rsplit("-", 1)[0] for o in owners} == {ns for ns, _ in namespaces}
        assert not list(tmp_path.glob("*/.agents"))
    finally:
        server.close()
