"""Entry point: ``agents-state`` and ``python -m agents_state``.

``hook`` handlers run on every tool call of every sub-agent, so they skip Click (and pydantic
where they can): ``agents-state hook <event>`` goes straight to ``agents_state.hooks``.
"""

from __future__ import annotations

import sys

__all__ = ["main", "program"]

# A program's process lives some tens of milliseconds: a collection of cyclic garbage every
# 100,000 allocations instead of 700 (a long ``watch`` still collects); docs/performance.md.
_GC_THRESHOLD = 100_000


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"] and len(args) == 2 and not args[1].startswith("-"):
        from agents_state.hooks import run_hook

        return run_hook(args[1])
    from agents_state.cli import main as cli_main

    code: int = cli_main(args)
    return code


def program() -> int:
    """The ``agents-state`` program (the console script and ``python -m agents_state``): ``main``
    in a short-lived process.  The garbage collector runs rarely while it works; a command that
    returns then leaves without tearing the interpreter down (``_leave``).  Together about 9% of
    ``status`` at 1,000 tasks.  ``main`` alone, called in a test's process, leaves the collector
    and the process as they were.  (A ``gc.freeze()`` at the end was retired: no command
    collects after it, and ``_leave`` skips the teardown it served; docs/decisions.md.)"""
    import gc

    gc.set_threshold(_GC_THRESHOLD)
    return _leave(main())


def _leave(code: int) -> int:
    """Exit now with ``code`` once the output is flushed, skipping the interpreter's teardown
    (freeing every module and object: about 3% of a command).  Every write of the engine is
    durable before a command returns, and its files are closed; whatever else needs the
    teardown keeps it: registered ``atexit`` functions (coverage's, ``tempfile``'s clean-up),
    another running thread, or output that cannot be flushed (a closed pipe) return ``code``
    for the normal exit."""
    import atexit
    import os

    threading = sys.modules.get("threading")
    if atexit._ncallbacks() or (threading is not None and threading.active_count() > 1):
        return code
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: the process started without that descriptor
                stream.flush()
    except (OSError, ValueError):
        return code
    os._exit(code)


if __name__ == "__main__":
    sys.exit(program())
