"""Start-up of the MCP server (issue 36): wall time from starting ``agents-state mcp`` to its
answer to ``initialize`` (target: within 1.5 s), and its processor time, paired with ``python -c
pass`` and with importing the SDK's server (the floor) in the same loop; and the size of
``tools/list`` (target: at most 10 KB).  Processor time holds still on a machine other work
shares; wall time does not.

    .venv/bin/python benchmarks/bench_mcp.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from common import CLI, compile_package, fmt_ms

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
LIST: list[dict[str, object]] = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
FLOOR = "import mcp.server.lowlevel, mcp.server.stdio"  # the SDK's own import
# a user's shell: bytecode is written and read
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}


def _line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def initialize_s(
    cwd: str, then: list[dict[str, object]] | None = None
) -> tuple[float, float, bytes]:
    """Seconds from the server's start to its whole ``initialize`` answer, and the processor
    time the server used in all (it exits when its stdin closes); with ``then``, the answer to
    the last of those messages sent after it."""
    before = _cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [CLI, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd, env=ENV
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_line(INIT))
    proc.stdin.flush()
    answer = proc.stdout.readline()
    took = time.perf_counter() - start
    assert b'"serverInfo"' in answer, answer
    last = b""
    if then:
        proc.stdin.write(b"".join(_line(m) for m in then))
        proc.stdin.flush()
        last = proc.stdout.readline()
    proc.stdin.close()
    proc.wait(timeout=30)
    return took, _cpu() - before, last


def process_s(argv: list[str], cwd: str) -> tuple[float, float]:
    before = _cpu()
    start = time.perf_counter()
    subprocess.run(argv, check=True, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, _cpu() - before


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    compile_package()
    names = ("mcp initialize", "python -c pass", "python -c 'import mcp.server.lowlevel'")
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as cwd:
        listed = initialize_s(cwd, LIST)[2]  # and warms the page cache
        argvs = ([sys.executable, "-c", "pass"], [sys.executable, "-c", FLOOR])
        for _ in range(runs):
            took, used, _ = initialize_s(cwd)
            wall[names[0]].append(took)
            cpu[names[0]].append(used)
            for name, argv in zip(names[1:], argvs, strict=True):
                took, used = process_s(argv, cwd)
                wall[name].append(took)
                cpu[name].append(used)
    print(f"{runs} runs (median, min, max); load average {os.getloadavg()[0]:.2f}")
    for name in names:
        print(f"  {name:<40} wall  {fmt_ms(wall[name])}")
        print(f"  {'':<40} cpu   {fmt_ms(cpu[name])}")
    median = statistics.median(wall[names[0]])
    print(f"initialize within 1.5 s: {'yes' if median <= 1.5 else 'NO'} (median {median:.2f} s)")
    result = json.loads(listed)["result"]
    size = len(json.dumps(result, separators=(",", ":")).encode())
    print(f"tools/list: {len(result['tools'])} tools, {size} bytes of JSON (target 10,240)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
