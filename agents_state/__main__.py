"""Entry point: ``agents-state`` and ``python -m agents_state``.

``hook`` handlers run on every tool call of every sub-agent, so they skip Click (and pydantic
where they can): ``agents-state hook <event>`` goes straight to ``agents_state.hooks``.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"] and len(args) == 2 and not args[1].startswith("-"):
        from agents_state.hooks import run_hook

        return run_hook(args[1])
    from agents_state.cli import main as cli_main

    code: int = cli_main(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
