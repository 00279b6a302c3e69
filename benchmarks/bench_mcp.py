"""Start-up of the MCP server (issue 36): wall time from starting ``agents-state mcp`` to its
answer to ``initialize`` (target: within 1.5 s), paired with ``python -c pass`` and with
``python -c "import mcp.server.lowlevel"`` (the SDK's own import, the floor) in the same loop;
and the size of ``tools/list`` (target: at most 10 KB).

    .venv/bin/python benchmarks/bench_mcp.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
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
LIST = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
# a user's shell: bytecode is written and read
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}


def _line(obj: object) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def initialize_s(cwd: str) -> tuple[float, bytes]:
    """Seconds from the server's start to its whole ``initialize`` answer; and the
    ``tools/list`` answer asked after it."""
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
    proc.stdin.write(b"".join(_line(m) for m in LIST))
    proc.stdin.flush()
    listed = proc.stdout.readline()
    proc.stdin.close()
    proc.wait(timeout=30)
    return took, listed


def process_s(argv: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    compile_package()
    times: dict[str, list[float]] = {"mcp initialize": [], "python -c pass": [], "import": []}
    listed = b""
    with tempfile.TemporaryDirectory() as cwd:
        initialize_s(cwd)  # warm the page cache
        for _ in range(runs):
            took, listed = initialize_s(cwd)
            times["mcp initialize"].append(took)
            times["python -c pass"].append(process_s([sys.executable, "-c", "pass"], cwd))
            floor = [sys.executable, "-c", "import mcp.server.lowlevel"]
            times["import"].append(process_s(floor, cwd))
    print(f"{runs} runs; wall time in ms (median, min, max); load average {os.getloadavg()[0]:.2f}")
    for name, values in times.items():
        label = "python -c 'import mcp.server.lowlevel'" if name == "import" else name
        print(f"  {label:<40} {fmt_ms(values)}")
    median = statistics.median(times["mcp initialize"])
    print(f"initialize within 1.5 s: {'yes' if median <= 1.5 else 'NO'} (median {median:.2f} s)")
    result = json.loads(listed)["result"]
    size = len(json.dumps(result, separators=(",", ":")).encode())
    print(f"tools/list: {len(result['tools'])} tools, {size} bytes of JSON (target 10,240)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
