"""The one error handler: maps errors to documented exit codes; never a traceback for bad input."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from agents_state.errors import AgentsStateError, ExitCode

if TYPE_CHECKING:
    from agents_state.store.commits import CommitLog

__all__ = ["run"]


def _emit_error(json_mode: bool, code: str, message: str, exit_code: int) -> int:
    try:
        if json_mode:
            import orjson

            err = {"error": {"code": code, "message": message, "exit": exit_code}}
            sys.stderr.write(orjson.dumps(err).decode() + "\n")
        else:
            sys.stderr.write(f"agents-state: error: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr is gone: the exit code still tells
    return exit_code


def _redact(text: str) -> str:
    """No password or token in what a crash leaves behind (issue 23): the store URL of the
    environment, URLs in the text, ``password=`` pairs and the known credential shapes."""
    try:
        from agents_state.handoff.secrets import SECRET_PATTERNS
        from agents_state.store.redact import redact

        store = (os.environ.get("AGENTS_STATE_STORE", ""),)
        return redact(text, store, (p for _kind, p in SECRET_PATTERNS))
    except Exception as e:  # the report must be made whatever happens, never with a secret
        return f"(text withheld: redacting it failed with {type(e).__name__}) "


def _log_crash() -> str:
    """Write the traceback to a temp file; never raises (a crash report must not crash)."""
    try:
        import tempfile
        import traceback

        text = " ".join(sys.argv) + "\n" + traceback.format_exc()
        fd, path = tempfile.mkstemp(prefix="agents-state-crash-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(_redact(text))
        return f"traceback written to {path}"
    except Exception as e:  # the report must be made whatever happens
        return f"the traceback could not be written ({type(e).__name__})"


def _undecodable(argv: list[str]) -> str | None:
    """The first argument that is not valid UTF-8 (Python keeps such bytes as surrogates)."""
    for i, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as e:
            raw = (
                arg.encode("utf-8", "surrogateescape")
                if _escaped(arg)
                else arg.encode("utf-8", "backslashreplace")
            )
            shown = raw.decode("ascii", "backslashreplace")[:60]
            return (
                f"argument {i} ('{shown}'): is not valid UTF-8 (character {e.start}); "
                "pass UTF-8 text, or a file with --task-file"
            )
    for name, value in os.environ.items():
        if name.startswith("AGENTS_STATE_") and not _utf8(value):
            return f"environment {name}: is not valid UTF-8; set it to UTF-8 text"
    return None


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(arg: str) -> bool:
    try:
        arg.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


def _settle(stream: Any, fd: int) -> None:
    """Flush what a failed command left in a stream's buffer, or drop it.  With a buffered
    stream (any shell without ``PYTHONUNBUFFERED``) a write that failed inside the command
    keeps its text there, and the interpreter's own flush at exit would fail again and turn the
    exit code into 120 (issue 33).  After a failure the descriptor points at /dev/null, so the
    kept text goes nowhere and the exit's flush cannot fail."""
    if stream is None:  # the process started without that descriptor
        return
    try:
        stream.flush()
        return
    except (OSError, ValueError):
        pass
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
        stream.flush()
    except (OSError, ValueError):
        pass


def _not_reported(json_mode: bool, what: str, err: BaseException) -> int:
    """The update is durable; only telling it failed: a warning and exit 8, never "untouched"."""
    reason = (
        err.message
        if isinstance(err, AgentsStateError)
        else (getattr(err, "strerror", None) or f"{type(err).__name__}: {err}")
    )
    reason = str(reason).removesuffix(": check with agents-state status")
    message = (
        f"the update was saved ({what}), but reporting it failed: {reason}; do not "
        "repeat it: check with agents-state status"
    )
    try:
        if json_mode:
            import orjson

            body = {
                "warning": {
                    "code": "not_reported",
                    "message": message,
                    "exit": int(ExitCode.NOT_REPORTED),
                }
            }
            sys.stderr.write(orjson.dumps(body).decode() + "\n")
        else:
            sys.stderr.write(f"agents-state: warning: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return int(ExitCode.NOT_REPORTED)


def run(cli: click.Group, argv: list[str]) -> int:
    try:
        return _handled(cli, argv)
    finally:
        _settle(sys.stderr, 2)


def _handled(cli: click.Group, argv: list[str]) -> int:
    from agents_state.store.commits import CommitLog

    json_mode = "--json" in argv
    commits = CommitLog()  # one run, one account (several runs share a process in tests)
    bad = _undecodable(argv)
    if bad is not None:
        return _emit_error(json_mode, "invalid", bad, int(ExitCode.INVALID))
    stage = "run"
    try:
        code = _run(cli, argv, json_mode, commits)
        stage = "flush"
        sys.stdout.flush()
    except BaseException as e:
        if isinstance(e, SystemExit):
            raise
        _settle(sys.stdout, 1)
        what = commits.last
        if what is not None:
            return _not_reported(json_mode, what, e)
        if isinstance(e, BrokenPipeError):
            return 0
        if isinstance(e, OSError):
            where = "standard output" if stage == "flush" or e.filename is None else str(e.filename)
            return _emit_error(
                json_mode,
                "io",
                f"{where}: write failed: {e.strerror or e}; the previous state is unchanged",
                int(ExitCode.IO),
            )
        if isinstance(e, KeyboardInterrupt):
            return _emit_error(json_mode, "interrupted", "interrupted", 130)
        return _emit_error(
            json_mode,
            "internal",
            _redact(f"internal error ({type(e).__name__}: {e}); ") + _log_crash(),
            int(ExitCode.INTERNAL),
        )
    return code


def _run(cli: click.Group, argv: list[str], json_mode: bool, commits: CommitLog) -> int:
    """Run the command; errors raised on purpose become their exit codes.  A failure after the
    update was saved (``commits``, filled by the stores the command opens) propagates to
    ``run``, which says so instead of "unchanged"."""
    try:
        rv: Any = cli.main(
            args=argv, prog_name="agents-state", standalone_mode=False, obj={"commits": commits}
        )
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
        if commits.last is not None:
            raise
        return _emit_error(json_mode, e.code, e.message, int(e.exit_code))
    return rv if isinstance(rv, int) else 0
