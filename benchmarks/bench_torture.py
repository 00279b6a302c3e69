"""Kill -9 torture figures for docs/reliability.md (issue 7).

Usage: .venv/bin/python benchmarks/bench_torture.py [--kills 300] [--tasks 600] [--writers 3]

Prints kills, commands, acknowledged updates, lost updates, torn reads and missing log lines;
then the same harness without the lock (the test seam that takes no lock), which loses updates.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "reliability"))

import torture


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=300)
    ap.add_argument("--tasks", type=int, default=600)
    ap.add_argument("--writers", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        ids = torture.prepare(Path(d), args.tasks)
        r = torture.run(Path(d), ids, writers=args.writers, min_kills=args.kills)
        print(r.summary())
        print(
            f"  unexpected exits {len(r.unexpected)}, revision went backwards {r.backwards}, "
            f"phantom updates {len(r.phantom)}"
        )
    with tempfile.TemporaryDirectory() as d:
        ids = torture.prepare(Path(d), 200)
        r = torture.run(Path(d), ids, writers=4, kill_share=0.0, max_commands=60, lock=False)
        print(
            f"control without the lock: {r.commands} commands, {len(r.acked)} acknowledged, "
            f"lost {len(r.lost)}, events.jsonl out of order {r.log_disorder}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
