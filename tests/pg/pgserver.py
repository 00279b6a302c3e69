"""A throwaway PostgreSQL cluster for the tests (issue 17).

``initdb`` into a temp folder (as the ``postgres`` user when running as root: the server refuses
root), password authentication over TCP, listening on 127.0.0.1 (and any extra address a test
asks for) on a free port; ``stop``/``start`` for the server-down test; removed at the end.
Under ``CI=1`` missing PostgreSQL binaries fail the tests instead of skipping them.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PASSWORD = "s3cret-pw-17"
USER = "postgres"


def pg_bindir() -> Path | None:
    for cand in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(cand, "initdb")):
            return Path(cand)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="agents-state-pg-"))
        self.data = self.base / "data"
        self.port = free_port()
        self.listen = "127.0.0.1"
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.base, USER, USER)
        pwfile = self.base / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.as_root:
            shutil.chown(pwfile, USER, USER)
        self._run(
            [
                "initdb",
                "-D",
                str(self.data),
                "-U",
                USER,
                "--auth-host=scram-sha-256",
                "--auth-local=trust",
                f"--pwfile={pwfile}",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )
        with open(self.data / "pg_hba.conf", "a") as f:
            f.write("host all all 0.0.0.0/0 scram-sha-256\n")

    def _run(self, args: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", USER, "--", *cmd]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, cwd=self.base)

    def start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.base} -c listen_addresses='{self.listen}' "
            "-c max_connections=200 -c fsync=on -c synchronous_commit=on"
        )
        self._run(
            [
                "pg_ctl",
                "-D",
                str(self.data),
                "-l",
                str(self.base / "log"),
                "-w",
                "-t",
                "60",
                "-o",
                opts,
                "start",
            ]
        )

    def stop(self, mode: str = "fast") -> None:
        self._run(["pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop"], check=False)

    def url(self, workflow: str, host: str = "127.0.0.1", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@{host}:{self.port}/postgres?workflow={workflow}"

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)


def wait_port(host: str, port: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection((host, port), 0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"{host}:{port} did not open")
