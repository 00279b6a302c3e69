"""The one error handler: maps errors to documented exit codes; never a traceback for bad input."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from agents_state.errors import AgentsStateError, ExitCode

__all__ = ["run"]


def _emit_error(json_mode: bool, code: str, message: str, exit_code: int) -> int:
    if json_mode:
        import orjson

        err = {"error": {"code": code, "message": message, "exit": exit_code}}
        sys.stderr.write(orjson.dumps(err).decode() + "\n")
    else:
        sys.stderr.write(f"agents-state: error: {message}\n")
    return exit_code


def _log_crash() -> str:
    import tempfile
    import traceback

    fd, path = tempfile.mkstemp(prefix="agents-state-crash-", suffix=".log")
    with os.fdopen(fd, "w") as f:
        f.write(" ".join(sys.argv) + "\n")
        traceback.print_exc(file=f)
    return path


def run(cli: click.Group, argv: list[str]) -> int:
    json_mode = "--json" in argv
    try:
        rv: Any = cli.main(args=argv, prog_name="agents-state", standalone_mode=False)
    except click.exceptions.Exit as e:
        return int(e.exit_code)
    except click.exceptions.Abort:
        return _emit_error(json_mode, "aborted", "aborted", 130)
    except click.ClickException as e:
        msg = e.format_message()
        if isinstance(e, click.UsageError) and e.ctx is not None:
            msg += f" (see: {e.ctx.command_path} --help)"
        return _emit_error(json_mode, "usage", msg, int(ExitCode.USAGE))
    except AgentsStateError as e:
        return _emit_error(json_mode, e.code, e.message, int(e.exit_code))
    except KeyboardInterrupt:
        return _emit_error(json_mode, "interrupted", "interrupted", 130)
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug: keep the traceback for the report, not on the screen
        path = _log_crash()
        return _emit_error(json_mode, "internal", f"internal error ({type(e).__name__}: {e}); "
                           f"traceback written to {path}", int(ExitCode.INTERNAL))
    return rv if isinstance(rv, int) else 0
