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
    in a short-lived process.  The garbage collector runs rarely while it works, and what is
    alive at the end is frozen, so that the interpreter's exit does not scan it all again (about
    4% of ``status`` at 1,000 tasks).  ``main`` alone, called in a test's process, leaves the
    collector as it was."""
    import gc

    gc.set_threshold(_GC_THRESHOLD)
    try:
        return main()
    finally:
        gc.freeze()


if __name__ == "__main__":
    sys.exit(program())
