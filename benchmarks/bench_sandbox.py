"""What containment adds to a Bash call (issue 23; issue 32: the call at most 15 ms over the bare
command, with the sealed room: private home, read-only .git/.agents/.claude, seccomp filter).

Two parts, for projects of several sizes (source files in 50 folders, a ``.env``, a git
repository whose remote URL holds a token):

- the hook's extra time: ``sandbox.contain`` in process (find bubblewrap, the remembered probe,
  the scan for credential files, the room's arguments), i.e. what the PreToolUse hook does after
  the command-line check lets a validator's call through: the first call scans the project, the
  later ones check the remembered scan's folder times (``hooks/secretscan.py``);
- bubblewrap's start-up: the hook's rewritten ``true`` run by bash, against bash running ``true``
  plainly (both whole processes, as the Bash tool runs them).

With ``--vendor N`` the project also holds a ``node_modules`` of N folders (four files each) and
a ``.venv``: the folders the project's scan leaves out, whose credential files the room masks
too (``hooks/vendorscan.py``, issue 32 item 3); one more line then times a call after a file was
added deep in a package (every folder's time checked, that one folder listed again).

Prints median / min / max in milliseconds, the contained call's overhead over the bare one
against ``CALL_MS`` and the hook's part, for the validator (credential scan) and the writer
(task agents: no scan).

    .venv/bin/python benchmarks/bench_sandbox.py [--files 200,2000,10000] [--runs 30]
        [--profiles validator,writer] [--vendor 20000]
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
from pathlib import Path

from common import compile_package

TARGET_MS = 20.0  # the hook's part plus bubblewrap's start-up (issue 23)
CALL_MS = 15.0  # the contained call over the bare command (issue 32)


def _vendor(root: Path, folders: int) -> None:
    """A ``node_modules`` of ``folders`` folders and a ``.venv``, with a ``.env`` in each."""
    for i in range(folders):
        folder = root / "node_modules" / f"p{i // 100}" / "lib" / f"d{i % 100}"
        folder.mkdir(parents=True, exist_ok=True)
        for j in range(4):
            (folder / f"f{j}.js").write_text("x\n")
    (root / "node_modules" / "p0" / "lib" / "d0" / ".env").write_text("KEY=2\n")
    (root / ".venv" / "lib" / "site-packages").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".venv" / ".env").write_text("KEY=3\n")


def _project(root: Path, files: int) -> None:
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text(json.dumps({"status": "in_progress"}))
    (root / ".env").write_text("KEY=1\n")
    for i in range(files):
        folder = root / "src" / f"m{i % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.py").write_text("x = 1\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(
        ["git", "-C", str(root), "remote", "add", "o", "https://u:tok@example.com/r.git"],
        check=True,
    )


def _line(name: str, xs: list[float]) -> str:
    return (
        f"  {name:<46} median {statistics.median(xs):7.2f} ms   min {min(xs):7.2f}   "
        f"max {max(xs):7.2f}"
    )


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _bash_ms(line: str, cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(["bash", "-c", line], cwd=cwd, env=env, check=True, capture_output=True)
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="200,2000,10000")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profiles", default="validator,writer")
    parser.add_argument("--vendor", type=int, default=0, help="node_modules folders")
    args = parser.parse_args()
    compile_package()
    from agents_state.hooks import sandbox
    from agents_state.profiles import get_profile

    bwrap = sandbox.find_bwrap()
    if bwrap is None:
        raise SystemExit("bubblewrap is not installed (apt-get install bubblewrap)")
    print(f"bubblewrap: {bwrap}; {args.runs} runs each; Bash 'true'")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    for name, files in [
        (n, int(f)) for n in args.profiles.split(",") for f in args.files.split(",")
    ]:
        profile = get_profile(name)
        assert profile is not None, name
        with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
            root = Path(tmp).resolve() / "proj"
            _project(root, files)
            if args.vendor:
                _vendor(root, args.vendor)
            extra = f", node_modules of {args.vendor:,} folders" if args.vendor else ""
            print(f"{name}, {files:,} source files{extra}:")
            old = time.time() - 60  # settled folders, as a project's are between calls
            for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
                os.utime(folder, (old, old))
            start = time.perf_counter()
            first = sandbox.contain(profile, str(root), str(root), {"command": "true"})
            assert isinstance(first, sandbox.Rewrite), first
            print(f"  hook: contain(), first call (scans)        {_ms(start):7.2f} ms")
            for folder in (root, root / ".agents"):  # the filter's file, written once, settled
                os.utime(folder, (old, old))
            hook: list[float] = []
            line = ""
            for _ in range(args.runs):
                start = time.perf_counter()
                answer = sandbox.contain(profile, str(root), str(root), {"command": "true"})
                hook.append((time.perf_counter() - start) * 1000)
                assert isinstance(answer, sandbox.Rewrite), answer
                line = answer.command
            if args.vendor and profile.protect_secrets:
                changed = []  # a file added deep in a package before each call
                for i in range(5):
                    deep = root / "node_modules" / "p7" / "lib" / "d3"
                    (deep / f"new{i}.js").write_text("x\n")
                    os.utime(deep, (old + i + 1, old + i + 1))  # settled, but changed
                    start = time.perf_counter()
                    sandbox.contain(profile, str(root), str(root), {"command": "true"})
                    changed.append(_ms(start))
                print(_line("hook: contain(), one deep folder changed", changed))
            plain = [_bash_ms("true", root, env) for _ in range(args.runs)]
            boxed = [_bash_ms(line, root, env) for _ in range(args.runs)]
            start_up = [b - p for b, p in zip(sorted(boxed), sorted(plain), strict=True)]
            print(_line("hook: contain(), later calls", hook))
            print(_line("bash -c true, plainly", plain))
            print(_line("bash -c <rewritten true>, in bubblewrap", boxed))
            added = statistics.median(hook) + statistics.median(boxed) - statistics.median(plain)
            verdict = "within" if added < TARGET_MS else "OVER"
            call = statistics.median(start_up)
            print(
                f"  the contained call adds {call:.1f} ms over the bare command; "
                f"{'within' if call < CALL_MS else 'OVER'} the {CALL_MS:g} ms target"
            )
            print(
                f"  containment adds {added:.1f} ms to the call (hook "
                f"{statistics.median(hook):.1f} + bubblewrap start-up "
                f"{statistics.median(start_up):.1f}); {verdict} the {TARGET_MS:g} ms target"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
