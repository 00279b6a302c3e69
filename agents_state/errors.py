"""One exception tree, split by who must act, each mapped to a documented exit code.

- The caller: ``UsageError`` (bad argument), ``NotFoundError`` (no such workflow, phase or task),
  ``TransitionNotAllowedError`` (a refused move of the state machine).
- The input or the file on disk: ``InvalidInputError`` / ``StateFileError`` (corrupt, mistyped),
  ``LockTimeoutError``, ``StorageIOError``.
- The definition: ``ConfigError`` (bad configuration) is invalid input too.

Messages are built in ``__init__`` from attributes so that they stay one line and exact.
"""

from __future__ import annotations

__all__ = [
    "EXIT_CODES",
    "AgentsStateError",
    "CodexError",
    "ConfigError",
    "ConflictLeftError",
    "ExitCode",
    "InvalidInputError",
    "LockTimeoutError",
    "NotFoundError",
    "StateFileError",
    "StorageIOError",
    "TransitionNotAllowedError",
    "UsageError",
]

import enum


class ExitCode(enum.IntEnum):
    OK = 0
    INTERNAL = 1
    USAGE = 2
    NOT_FOUND = 3
    REFUSED = 4
    INVALID = 5
    LOCK_TIMEOUT = 6
    IO = 7
    NOT_REPORTED = 8
    CONFLICT = 9
    REVIEWER = 10


EXIT_CODES: dict[ExitCode, str] = {
    ExitCode.OK: "success (also: no active workflow for status / next)",
    ExitCode.INTERNAL: "internal error (a bug; the traceback is logged, the state is untouched)",
    ExitCode.USAGE: "usage error (unknown option, missing or malformed argument)",
    ExitCode.NOT_FOUND: "not found (no workflow, unknown phase, task or file)",
    ExitCode.REFUSED: "refused transition (not allowed from the current state)",
    ExitCode.INVALID: "invalid or corrupt input (state, config, artifact, task or handoff file)",
    ExitCode.LOCK_TIMEOUT: "lock timeout (another agents-state process holds the lock)",
    ExitCode.IO: "I/O failure (disk full, permission denied, write or fsync failed)",
    ExitCode.NOT_REPORTED: "the update WAS saved, but reporting it failed afterwards (writing "
    "the output, unlocking, a log); do not repeat it: check with agents-state status",
    ExitCode.CONFLICT: "merge conflict not resolved yet (conflict markers left in a task's "
    "worktree); nothing was merged: fix the files it names, then run agents-state merge",
    ExitCode.REVIEWER: "the Codex review did not run or gave no valid review (Codex missing, not "
    "logged in, its API unreachable or refusing, an answer off the schema, a timeout); nothing "
    "was recorded",
}


class AgentsStateError(Exception):
    """Root of every error agents-state raises on purpose."""

    code: str = "error"
    exit_code: ExitCode = ExitCode.INTERNAL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_json(self) -> dict[str, object]:
        return {"error": {"code": self.code, "message": self.message, "exit": int(self.exit_code)}}


class UsageError(AgentsStateError):
    code = "usage"
    exit_code = ExitCode.USAGE


class NotFoundError(AgentsStateError):
    code = "not_found"
    exit_code = ExitCode.NOT_FOUND


class TransitionNotAllowedError(AgentsStateError):
    """A move the transition table does not allow; says what is allowed from here."""

    code = "refused"
    exit_code = ExitCode.REFUSED

    def __init__(
        self,
        subject: str,
        current: str,
        event: str,
        allowed: list[str] | None = None,
        hint: str = "",
    ) -> None:
        self.subject, self.current, self.event = subject, current, event
        self.allowed = allowed or []
        msg = f"{subject} is {current}: cannot {event}"
        if self.allowed:
            msg += f"; allowed from here: {', '.join(self.allowed)}"
        if hint:
            msg += f" ({hint})"
        super().__init__(msg)


class CodexError(AgentsStateError):
    """``review run`` (issue 37): Codex could not give the review; ``kind`` says why (missing,
    login, unreachable, refused, schema, timeout).  Nothing is recorded."""

    code = "codex"
    exit_code = ExitCode.REVIEWER

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        out["error"]["kind"] = self.kind  # type: ignore[index]
        return out


class InvalidInputError(AgentsStateError):
    """Bad input: names the file and the field, and how to fix it."""

    code = "invalid"
    exit_code = ExitCode.INVALID

    def __init__(self, file: str, field: str, problem: str) -> None:
        self.file, self.field, self.problem = file, field, problem
        where = f"{file}: {field}: " if field else f"{file}: "
        super().__init__(where + problem)


class StateFileError(InvalidInputError):
    code = "corrupt_state"


class ConfigError(InvalidInputError):
    code = "invalid_config"


class LockTimeoutError(AgentsStateError):
    code = "lock_timeout"
    exit_code = ExitCode.LOCK_TIMEOUT

    def __init__(self, lock_path: str, timeout: float, holder: str) -> None:
        self.lock_path, self.timeout, self.holder = lock_path, timeout, holder
        super().__init__(
            f"{lock_path}: lock still held after {timeout:g}s by {holder}; "
            "retry, or run 'agents-state doctor' if that process is gone"
        )


class ConflictLeftError(AgentsStateError):
    """A resolve step not finished: conflict markers are still in the task's worktree (issue 33:
    its own exit code, not the I/O one; nothing was merged or committed)."""

    code = "conflict"
    exit_code = ExitCode.CONFLICT

    def __init__(self, worktree: str, files: list[str]) -> None:
        self.worktree, self.files = worktree, files
        super().__init__(
            f"{worktree}: conflict markers are still in {', '.join(files)}; edit them there so "
            "that both changes survive (no <<<<<<<, ======= or >>>>>>> line left), then run: "
            "agents-state merge"
        )


class StorageIOError(AgentsStateError):
    code = "io"
    exit_code = ExitCode.IO

    def __init__(self, path: str, operation: str, reason: str) -> None:
        self.path, self.operation, self.reason = path, operation, reason
        super().__init__(f"{path}: {operation} failed: {reason}; the previous state is unchanged")
