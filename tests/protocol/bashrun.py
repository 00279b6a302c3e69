"""Run a command line under bash without running any program: what bash would pass.

Every builtin but ``printf`` is disabled, PATH names no folder, and ``command_not_found_handle``
writes each simple command's argv (NUL-separated) to a file of its own instead of running it.
Globbing and brace expansion are off (``set -f +B``) and ``HOME`` is ``~``, so the words are
bash's own splitting and quote removal.  It runs under bubblewrap with only its own folder
writable; fd 9, held by every process it starts, tells when the last one (``a &``) has ended.
Used by ``test_shellwords_bash.py`` (the splitter against bash) and ``test_hook_bash.py`` (what
an allowed line really passes).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

DEPTH = 24  # folders above the run folder: `../` in a line never leaves the test's own


@functools.cache
def _prologue(expand: bool) -> str:
    """Bash's lines before the tested one: the handler, then every builtin but printf and
    return disabled (``cd``, ``exec``, ``eval``, ``set``... would act), ``enable`` last."""
    listed = subprocess.run(
        ["bash", "-c", "enable -a"], capture_output=True, text=True, check=True
    ).stdout
    names = [line.split()[-1] for line in listed.splitlines()]
    off = [n for n in names if n not in ("printf", "return", "enable")]
    assert "cd" in off and "exec" in off and "eval" in off, names
    return (
        # one file per command: records of a pipeline's parts written at once never mix
        'command_not_found_handle() { printf \'%s\\0\' "$#" "$@" >"$REC/$BASHPID.$((++N))"; '
        'return "$STATUS"; }\n'
        f"set {'+f -B' if expand else '-f +B'} +H\n"
        "PATH=/nonexistent\n"
        f"enable -n {' '.join(off)}\n"
        "enable -n enable\n"
    )


def _contained(top: Path) -> list[str]:
    """bubblewrap with every folder read-only but ``top``: whatever a generated line names, bash
    writes nowhere else (as root it could write anywhere)."""
    bwrap = shutil.which("bwrap")
    assert bwrap, "bubblewrap (.ci/run installs it)"
    top.mkdir(parents=True, exist_ok=True)
    ro = ["--ro-bind", "/", "/", "--bind", str(top), str(top)]
    return [bwrap, *ro, "--dev", "/dev", "--proc", "/proc", "--die-with-parent"]


class Run:
    """What bash ran: each simple command's argv (counted), the files it made (relative to the
    run folder), and its error text wherever the line sent it."""

    def __init__(self, argvs: Counter[tuple[str, ...]], files: set[str], stderr: str) -> None:
        self.argvs, self.files, self.stderr = argvs, files, stderr


def run_bash(
    line: str, status: int, top: Path, inputs: Iterable[str] = (), expand: bool = False
) -> Run:
    """Run ``line`` in a fresh folder deep under ``top`` (``inputs``: files made there first,
    for ``<``), every command answering ``status``; ``expand``: with globbing and brace
    expansion on."""
    work = top.joinpath(*["d"] * DEPTH)
    work.mkdir(parents=True)
    for name in inputs:
        with contextlib.suppress(OSError):  # '.', 'a/..': a folder bash will refuse to read
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text("")
    rec = top / "rec"
    rec.mkdir()
    before = {p for p in top.rglob("*") if not p.is_dir()}
    read, write = os.pipe()
    if write == 9:  # 'exec 9>&9 9>&-' would close it
        write = os.dup(9)
        os.close(9)
    try:
        proc = subprocess.Popen(
            [
                *_contained(top),
                "bash",
                "-c",
                f"exec 9>&{write} {write}>&-\n" + _prologue(expand) + line,
            ],
            cwd=work,
            env={"HOME": "~", "STATUS": str(status), "LC_ALL": "C", "REC": str(rec)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(write,),
        )
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as pipe:
        pipe.read()  # until every process that holds fd 9 (backgrounded ones too) ends
    err, _ = proc.communicate(timeout=30)
    argvs: Counter[tuple[str, ...]] = Counter()
    for record in rec.iterdir():
        n, *fields = record.read_bytes().split(b"\0")[:-1]
        assert len(fields) == int(n), (record, fields)
        argvs[tuple(f.decode() for f in fields)] += 1
    made = [
        p for p in top.rglob("*") if not p.is_dir() and p not in before and rec not in p.parents
    ]
    # bash's errors go where the line sent fd 2: stdout, stderr or a file it made
    errors = b"".join([err, *(p.read_bytes() for p in made)]).decode("utf-8", "replace")
    return Run(argvs, {os.path.relpath(p, work) for p in made}, errors)


RUNTIME = (
    "Is a directory",
    "No such file or directory",
    "Not a directory",
    "ambiguous redirect",
    "Bad file descriptor",
    "Read-only file system",  # a file outside the run's folder
)
