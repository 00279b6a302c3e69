"""The PostgreSQL store against the file store (issue 17): per-update cost and concurrent
throughput, on the same workflow (phase 2.1, ``--tasks`` tasks).

In process: one ``commit`` (lock, re-read, decode, apply, encode, write, event, commit), with the
connection kept (as a long-lived caller would) and with a new connection per update (as each CLI
process does).  Real processes: sequential ``agents-state task done`` commands, then ``--procs``
of them at once (throughput in updates per second).  The server is a throwaway cluster on
127.0.0.1 (``tests/pg/pgserver.py``; fsync and synchronous_commit on), or ``--url``.

    .venv/bin/python benchmarks/bench_pg.py [--runs 30] [--tasks 100] [--procs 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from common import CLI, chained_tasks, compile_package, fmt_ms, workflow_at_tasks

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "pg"))


def _touch(state: Any) -> Any:
    from agents_state.engine.phases import Outcome

    state.revision += 1
    return Outcome(state, "bench", True, {"event": "bench", "rev": state.revision})


def _timed(fn: Any, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def _cli_sequential(cwd: Path, env: dict[str, str], ids: list[str]) -> list[float]:
    out = []
    for t in ids:
        start = time.perf_counter()
        subprocess.run(
            [CLI, "task", "done", t, "--summary", "ok"],
            cwd=cwd,
            env=env,
            check=True,
            capture_output=True,
        )
        out.append(time.perf_counter() - start)
    return out


def _cli_concurrent(cwd: Path, env: dict[str, str], ids: list[str]) -> float:
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [CLI, "task", "done", t, "--summary", "ok"],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for t in ids
    ]
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err
    return len(ids) / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--tasks", type=int, default=100)
    ap.add_argument("--procs", type=int, default=20)
    ap.add_argument("--url", help="an existing server: postgresql://USER:PW@HOST:PORT/DB")
    args = ap.parse_args()
    compile_package()
    from agents_state.store.copy import copy_workflow
    from agents_state.store.files import Store
    from agents_state.store.pg import PgStore

    server = None
    if args.url:
        base = args.url.split("?")[0]
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "pg"))
        from pgserver import (  # type: ignore[import-not-found]  # tests/pg, put on the path
            PgServer,
            pg_bindir,
        )

        bindir = pg_bindir()
        if bindir is None:
            sys.exit("bench_pg: PostgreSQL binaries not found (apt-get install postgresql)")
        server = PgServer(bindir)
        server.start()
        base = server.url("x").split("?")[0]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            workflow_at_tasks(root, chained_tasks(args.tasks, width=args.tasks), args.tasks)
            url = f"{base}?workflow=bench-{uuid.uuid4().hex[:8]}"
            copy_workflow(str(root), url, replace=False)
            files, pg = Store(root), PgStore(url, root)
            size = len(files.read_bytes() or b"")
            print(f"workflow: {args.tasks} tasks, state {size} bytes; {args.runs} runs each")
            print(
                f"in process, one commit   files:                  "
                f"{fmt_ms(_timed(lambda: files.commit(_touch), args.runs))}"
            )
            print(
                f"in process, one commit   postgresql (connected): "
                f"{fmt_ms(_timed(lambda: pg.commit(_touch), args.runs))}"
            )

            def fresh() -> None:
                p = PgStore(url, root)
                p.commit(_touch)
                p.close()

            print(
                f"in process, one commit   postgresql (+connect):  "
                f"{fmt_ms(_timed(fresh, args.runs))}"
            )
            # real processes: fresh task ids for each store
            host = root / "host"
            host.mkdir()
            half = args.runs
            ids = [f"t{i}" for i in range(args.tasks)]
            seq, conc = ids[:half], ids[half : half + args.procs]
            file_env = {
                **os.environ,
                "AGENTS_STATE_ROOT": str(root),
                "AGENTS_STATE_LOCK_TIMEOUT": "600",
            }
            file_env.pop("AGENTS_STATE_STORE", None)
            pg_env = {**os.environ, "AGENTS_STATE_STORE": url, "AGENTS_STATE_LOCK_TIMEOUT": "600"}
            # the file store's workflow and the database's are the same copy: same ids
            print(
                f"CLI task done, sequential files:      "
                f"{fmt_ms(_cli_sequential(host, file_env, seq))}"
            )
            print(
                f"CLI task done, sequential postgresql: "
                f"{fmt_ms(_cli_sequential(host, pg_env, seq))}"
            )
            print(
                f"CLI {len(conc)} concurrent task done  files:      "
                f"{_cli_concurrent(host, file_env, conc):.1f} updates/s"
            )
            print(
                f"CLI {len(conc)} concurrent task done  postgresql: "
                f"{_cli_concurrent(host, pg_env, conc):.1f} updates/s"
            )
    finally:
        if server is not None:
            server.close()


if __name__ == "__main__":
    main()
