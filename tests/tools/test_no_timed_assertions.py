"""No test in the suite waits by the clock or asserts a duration (issue 35; docs/performance.md).

A timed assertion fails on a busy machine and proves nothing on an idle one; a sleep that stands
for "long enough" is the same bet.  A test waits for the condition itself (a line printed, a
file written, a count reached); a bound that only turns a hang into a failure (a poll's deadline,
``communicate(timeout=...)``) is a timeout and stays.  This scan holds the suite to it:

- an ``assert`` that reads a clock difference (``time.monotonic() - start < 1``), directly or
  through a name assigned one (``took = time.monotonic() - t; assert took < 1``);
- a ``time.sleep`` outside a loop (a poll sleeps inside its loop; a bare sleep waits by the
  clock for something to have happened);
- the old ``_generous(...)`` scaling of a bound.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
CLOCKS = {"monotonic", "time", "perf_counter", "monotonic_ns", "time_ns", "perf_counter_ns"}


def _is_clock(node: ast.AST) -> bool:
    """``time.monotonic()`` and friends (or a bare ``monotonic()`` imported from time)."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr in CLOCKS and isinstance(f.value, ast.Name) and f.value.id == "time"
    return isinstance(f, ast.Name) and f.id in CLOCKS - {"time"}


def _is_elapsed(node: ast.AST, names: set[str]) -> bool:
    """Anything in ``node`` that is a clock difference, or a name holding one."""
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.BinOp)
            and isinstance(sub.op, ast.Sub)
            and (_is_clock(sub.left) or _is_clock(sub.right))
        ):
            return True
        if isinstance(sub, ast.Name) and sub.id in names:
            return True
    return False


def _is_sleep(node: ast.Call) -> bool:
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr == "sleep" and isinstance(f.value, ast.Name) and f.value.id == "time"
    return isinstance(f, ast.Name) and f.id == "sleep"


class _Scan(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[int, str]] = []
        self.loops = 0
        self.elapsed: set[str] = set()  # names assigned a clock difference

    def _loop(self, node: ast.For | ast.While | ast.AsyncFor) -> None:
        self.loops += 1
        self.generic_visit(node)
        self.loops -= 1

    visit_For = visit_While = visit_AsyncFor = _loop

    def visit_Assign(self, node: ast.Assign) -> None:
        if _is_elapsed(node.value, set()):
            self.elapsed |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        if _is_elapsed(node.test, self.elapsed):
            self.found.append((node.lineno, "an assertion on a duration"))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if _is_sleep(node) and not self.loops:
            self.found.append((node.lineno, "a sleep outside a poll's loop"))
        if isinstance(node.func, ast.Name) and node.func.id == "_generous":
            self.found.append((node.lineno, "a bound scaled by _generous"))
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer, self.elapsed = self.elapsed, set()
        loops, self.loops = self.loops, 0  # a function defined in a loop is not in it
        self.generic_visit(node)
        self.elapsed, self.loops = outer, loops

    visit_AsyncFunctionDef = visit_FunctionDef


def timed(source: str) -> list[tuple[int, str]]:
    """(line, what) for every timed assertion or clock wait in ``source``."""
    scan = _Scan()
    scan.visit(ast.parse(source))
    return scan.found


def test_the_suite_has_no_timed_assertions_and_no_clock_waits() -> None:
    found = [
        f"{path.relative_to(TESTS.parent)}:{line}: {what}"
        for path in sorted(TESTS.rglob("*.py"))
        if "__pycache__" not in path.parts
        for line, what in timed(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "wait for the condition itself, not by the clock:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source",
    [
        "import time\ndef t():\n    s = time.monotonic()\n    f()\n"
        "    assert time.monotonic() - s < 45\n",
        "import time\ndef t():\n    a = time.monotonic()\n    f()\n"
        "    took = time.monotonic() - a\n    assert took < 1.0, took\n",
        "import time\ndef t():\n    start()\n    time.sleep(2.0)  # its first frame\n    check()\n",
        "from time import sleep\ndef t():\n    sleep(1)\n",
        "def t():\n    assert run() < _generous(2.0)\n",
    ],
)
def test_the_scan_finds_each_kind(source: str) -> None:
    assert timed(source), source


@pytest.mark.parametrize(
    "source",
    [
        # a poll: the bound turns a hang into a failure, the sleep is inside the loop
        "import time\ndef t():\n    end = time.monotonic() + 60\n    while not done():\n"
        "        assert time.monotonic() < end, 'never happened'\n        time.sleep(0.05)\n",
        # a child process's script that sleeps is text, not a wait
        'def t():\n    run("import time; time.sleep(30)")\n',
        # a duration printed, not asserted
        "import time\ndef t():\n    s = time.monotonic()\n    print(time.monotonic() - s)\n",
    ],
)
def test_the_scan_leaves_polls_and_timeouts(source: str) -> None:
    assert timed(source) == []
