"""The durable store: the only module that writes workflow state to disk.

Layout under the root: ``.agents/state.json`` (the workflow), ``.agents/events.jsonl`` (one line per
accepted transition), ``.agents/phases/`` (artifacts), ``.agents/lock-owner`` (who holds the lock,
a kernel lock on the ``.agents/`` directory itself, for error messages) and
``.agents/state.json.bak`` (a copy of the last state written, for ``agents-state doctor --repair``).

Every update: lock -> clean leftover temp files -> re-read -> validate -> apply -> validate the
result -> write a unique temp file in the same directory -> fsync -> ``os.replace`` -> fsync the
directory -> refresh the backup -> append the event -> unlock -> only then report success.
Readers need no lock: they only ever see a whole old file or a whole new one.  Nothing inside
``.agents/`` is opened through a symbolic link or blocks on a FIFO (``fsops.open_regular``).

The interface is small (``load`` and ``commit``) so that a server-backed store can follow.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

import orjson

from agents_state.errors import (
    InvalidInputError,
    StateFileError,
    StorageIOError,
)
from agents_state.store import fsops, netfs
from agents_state.store.lock import env_lock_timeout
from agents_state.store.paths import (
    AGENTS_DIR,
    BACKUP_FILE,
    MAX_STATE_BYTES,
    check_inside,
    safe_name,
)

if TYPE_CHECKING:
    from pathlib import Path

    from agents_state.engine.phases import Outcome
    from agents_state.models import State
    from agents_state.store.commits import CommitLog
    from agents_state.store.lock import StoreLock

__all__ = [
    "BACKUP_FILE",
    "MAX_STATE_BYTES",
    "STATE_FILE",
    "Store",
    "UncertainWriteError",
]

STATE_FILE = f"{AGENTS_DIR}/state.json"


class Store:
    """``root`` and the paths under it are ``pathlib`` paths, made on first use; the reading
    and writing below use the same paths as plain strings (``*_file``, ``agents``): ``status``,
    ``next`` and ``task done`` never load ``pathlib`` (docs/performance.md)."""

    def __init__(
        self, root: Path | str, lock_timeout: float | None = None, commits: CommitLog | None = None
    ) -> None:
        self.root_dir = os.fspath(root)
        self.commits = commits  # where this command's commits are noted (``store.commits``)
        self.agents = os.path.join(self.root_dir, AGENTS_DIR)
        self.state_file = os.path.join(self.agents, "state.json")
        self.backup_file = os.path.join(self.agents, "state.json.bak")
        self.events_file = os.path.join(self.agents, "events.jsonl")
        self.phases_folder = os.path.join(self.agents, "phases")
        self._staged: list[tuple[Path | str, bytes | None]] | None = None
        self.holding = False  # this process holds the lock (``locked``), for ``upkeep``
        self.lock_timeout = lock_timeout if lock_timeout is not None else env_lock_timeout()

    @cached_property
    def root(self) -> Path:
        from pathlib import Path

        return Path(self.root_dir)

    @cached_property
    def dir(self) -> Path:
        return self.root / AGENTS_DIR

    @cached_property
    def state_path(self) -> Path:
        return self.dir / "state.json"

    @cached_property
    def owner_path(self) -> Path:
        return self.dir / "lock-owner"

    @cached_property
    def events_path(self) -> Path:
        return self.dir / "events.jsonl"

    @cached_property
    def backup_path(self) -> Path:
        return self.dir / "state.json.bak"

    @cached_property
    def phases_dir(self) -> Path:
        return self.dir / "phases"

    def note_commit(self, what: str) -> None:
        """This update is durable: from here on a failure is "saved, not reported" (exit 8)."""
        if self.commits is not None:
            self.commits.note(what)

    # -- reading (lock-free) ------------------------------------------------------------------

    def read_bytes(self) -> bytes | None:
        """The raw state file, or None when there is none."""
        check_inside(self.root_dir, self.agents, STATE_FILE)
        try:
            data = fsops.read_regular(self.state_file, STATE_FILE, MAX_STATE_BYTES)
        except FileNotFoundError:
            return None
        except InvalidInputError as e:
            raise StateFileError(STATE_FILE, "", e.problem) from None
        except OSError as e:
            raise StorageIOError(STATE_FILE, "read", e.strerror or str(e)) from None
        if len(data) > MAX_STATE_BYTES:
            raise StateFileError(STATE_FILE, "", f"is over {MAX_STATE_BYTES} bytes, the limit")
        return data

    def present(self) -> bool:
        """Whether ``.agents/`` exists (commands that must fail never create it)."""
        return os.path.isdir(self.agents)

    def read_artifact(self, name: str) -> bytes | None:
        """``.agents/phases/<name>``, or None when there is none."""
        shown = f"{AGENTS_DIR}/phases/{safe_name(name, 'artifact')}"
        try:
            return fsops.read_regular(os.path.join(self.phases_folder, name), shown)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise StorageIOError(shown, "read", e.strerror or str(e)) from None

    def load(self) -> State | None:
        from agents_state.store.codec import decode_state

        data = self.read_bytes()
        if data is None:
            self._check_not_lost()
            return None
        return decode_state(data, STATE_FILE, trusted=self._marked(data))

    def _marked(self, data: bytes) -> bool:
        """Whether ``data`` is the state this engine validated and wrote (``store.stamp``)."""
        from agents_state.store.stamp import is_marked

        return is_marked(self.state_file, data)

    def _check_not_lost(self) -> None:
        # a deleted state with its backup left is a damaged workflow, not "no workflow"
        if os.path.lexists(self.backup_file):
            raise StateFileError(
                STATE_FILE,
                "",
                f"is missing, but {BACKUP_FILE} (a copy of the "
                "last state written) is there; run: agents-state doctor "
                f"--repair to restore it, or delete {BACKUP_FILE} to start anew",
            )

    # -- writing ------------------------------------------------------------------------------

    def commit(self, mutate: Callable[[State | None], Outcome]) -> Outcome:
        """Run ``mutate`` on the freshly re-read state under the lock and persist its result.

        Artifacts ``mutate`` writes (``write_artifact``) are taken back when the state write
        fails, so that a failed command leaves the folder as it was."""
        from agents_state.store.codec import decode_state, encode_state

        self.ensure_dirs()
        with self.locked():
            self._clean_temp_files()
            # a killed ``store copy --replace``
            if os.path.lexists(os.path.join(self.agents, ".copy-switch")):
                from agents_state.store.switch_recover import recover

                recover(self)
            # the log is appended after the commit, when a refusal would come too late
            fsops.check_file(self.events_file, f"{AGENTS_DIR}/events.jsonl")
            old = self.read_bytes()
            if old is None:
                self._check_not_lost()
            self._staged = []
            try:
                current = (
                    None
                    if old is None
                    else decode_state(old, STATE_FILE, for_update=True, trusted=self._marked(old))
                )
                read = None if old is None or current is None else (current.revision, old)
                outcome = mutate(current)
                if not outcome.changed:
                    return outcome
                data = encode_state(outcome.state, STATE_FILE)
                _check_size(data)
                self._write_state(data, old, outcome.state, read)
            except UncertainWriteError:
                # the new state is in place (its durability unknown): keep what it points at,
                # log it, and let the runner say it was saved (exit 8), never "unchanged"
                self._staged = None
                self.note_commit(f"revision {outcome.state.revision}")
                if outcome.record:
                    self._append_event(outcome.record)
                raise
            except BaseException:
                self._unstage()
                raise
            finally:
                self._staged = None
            self.note_commit(f"revision {outcome.state.revision}")
            if outcome.record:
                self._append_event(outcome.record)
            self.ensure_ignored()
        netfs.warn_once(self.agents)  # after the first update only: a refused one writes nothing
        return outcome

    def _unstage(self) -> None:
        """Put back the artifacts this commit wrote (their old bytes, or no file)."""
        for path, before in reversed(self._staged or []):
            with contextlib.suppress(OSError):
                if before is None:
                    os.unlink(path)
                else:
                    self.write_file(path, before, str(path), "undo_")

    def _write_state(
        self,
        data: bytes,
        old: bytes | None,
        state: State,
        read: tuple[int, bytes] | None = None,
    ) -> None:
        """Replace the state durably; undo the replace when the directory fsync fails, so that
        a failed command leaves the old state; then refresh the last-good backup (its journal,
        ``store.backup``).  ``state``: the state ``data`` holds, for the hooks' view
        (``store.hookview``) and the journal; ``read``: the revision and bytes the commit read."""
        from agents_state.store import backup
        from agents_state.store.codec import take_written

        tree = take_written()  # what ``data`` holds, as the JSON tree ``encode_state`` made
        try:
            self.write_file(
                self.state_file,
                data,
                STATE_FILE,
                marked=True,
                view=tree if tree is not None else state.to_json_dict(),
            )
        except StorageIOError as e:
            if e.operation == "fsync directory" and not self._undo(old):
                raise UncertainWriteError(STATE_FILE, e.operation, e.reason) from None
            raise
        try:
            was = None if read is None else backup.summed(*read)
            backup.refresh(self, data, state.revision, was)
        except StorageIOError as e:  # the state is saved: say so, do not fail the command
            _warn(
                f"{e.path}: {e.operation} failed: {e.reason}; the state was saved, but its "
                "last-good copy is older (agents-state doctor will say by how much)"
            )

    def _undo(self, old: bytes | None) -> bool:
        """Put the previous state back with plain calls (no fault injection); True on success."""
        try:
            if old is None:
                os.unlink(self.state_file)
            else:
                tmp = os.path.join(self.agents, f".tmp-undo.{os.getpid()}.{time.monotonic_ns()}")
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                try:
                    os.write(fd, old)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(tmp, self.state_file)
        except OSError:
            return False
        return True

    def write_artifact(self, name: str, data: bytes) -> str:
        """Write ``.agents/phases/<name>`` durably; returns its root-relative path.  Inside a
        ``commit`` the artifact is published with the state: taken back if the state write
        fails."""
        shown = f"{AGENTS_DIR}/phases/{safe_name(name, 'artifact')}"
        self.ensure_dirs()
        path = os.path.join(self.phases_folder, name)
        if self._staged is not None:
            try:
                before: bytes | None = fsops.read_regular(path, shown)
            except FileNotFoundError:
                before = None
            except OSError as e:
                raise StorageIOError(shown, "read", e.strerror or str(e)) from None
            self._staged.append((path, before))
        self.write_file(path, data, shown)
        return shown

    def ensure_dirs(self) -> None:
        """Create ``.agents/phases/``, refusing a ``.agents`` that resolves out of the tree and a
        ``phases`` that is a link or not a directory."""
        check_inside(self.root_dir, self.agents, AGENTS_DIR)
        try:
            os.makedirs(self.agents, exist_ok=True)
            fsops.make_dir(self.phases_folder, f"{AGENTS_DIR}/phases")
        except OSError as e:
            raise StorageIOError(AGENTS_DIR, "mkdir", e.strerror or str(e)) from None
        check_inside(self.root_dir, self.phases_folder, f"{AGENTS_DIR}/phases")

    def locked(self) -> StoreLock:
        """The store's lock, for writers of other files under ``.agents/`` (chains, doctor)."""
        from agents_state.store.lock import StoreLock

        return StoreLock(self)

    def ensure_ignored(self) -> None:
        """``.agents/`` stays out of git: a ``.gitignore`` inside it ignores everything.

        Written after the first successful write, never by a command that fails."""
        ignore = os.path.join(self.agents, ".gitignore")
        if not os.path.lexists(ignore):
            with contextlib.suppress(OSError):  # O_EXCL: never through a link planted there
                fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                try:
                    os.write(fd, b"# agents-state: workflow state is local, never committed\n*\n")
                finally:
                    os.close(fd)

    def _clean_temp_files(self) -> None:
        # a temp file exists only while its writer holds the lock: any found now is debris
        for d in (self.agents, self.phases_folder):
            try:
                names = os.listdir(d)
            except OSError:
                continue
            for n in names:
                if n.startswith(".tmp-"):
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(d, n))

    def write_file(
        self,
        path: Path | str,
        data: bytes,
        shown: str,
        op: str = "",
        marked: bool = False,
        view: dict[str, Any] | None = None,
    ) -> None:
        """Temp file, fsync, replace, fsync the directory (skipped for the backup, whose rename
        the next commit's directory fsync makes durable; until then the older copy stands).
        ``marked``: ``data`` is a state validated for this write (``store.stamp``); ``view``:
        the state it holds (its JSON tree), whose hooks' view is replaced before the directory
        fsync, which then makes both durable (``store.hookview``)."""
        folder, name = os.path.split(os.fspath(path))
        tmp = os.path.join(folder, f".tmp-{name}.{os.getpid()}.{time.monotonic_ns()}")
        step = "create temp file"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                step = "write"
                fsops.write_all(fd, data, op + "write")
                if marked:
                    from agents_state.store.stamp import mark

                    mark(fd, data)
                step = "fsync"
                fsops.fsync(fd, op + "fsync")
            finally:
                os.close(fd)
            step = "replace"
            fsops.replace(tmp, path, op + "replace")
        except OSError as e:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise StorageIOError(shown, step, e.strerror or str(e)) from None
        if op:
            return
        if view is not None:
            from agents_state.store.hookview import refresh_view

            refresh_view(self.agents, self.state_file, view)
        try:
            fsops.fsync_dir(folder)
        except OSError as e:
            raise StorageIOError(shown, "fsync directory", e.strerror or str(e)) from None

    def _append_event(self, record: dict[str, Any]) -> None:
        # the state is already durable: a failed append costs one log line, not the update
        try:
            fsops.append_line(self.events_file, orjson.dumps(record), f"{AGENTS_DIR}/events.jsonl")
        except (OSError, InvalidInputError) as e:
            reason = e.strerror if isinstance(e, OSError) else e.message
            _warn(
                f"{AGENTS_DIR}/events.jsonl: append failed: {reason or e}; the state was "
                f"saved (revision {record.get('rev', '?')}) but this event is missing from "
                "the log"
            )

    def events(self) -> list[dict[str, Any]]:
        shown = f"{AGENTS_DIR}/events.jsonl"
        try:
            lines = fsops.read_regular(self.events_file, shown).splitlines()
        except FileNotFoundError:
            return []
        out = []
        for i, line in enumerate(lines, 1):
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                raise InvalidInputError(shown, f"line {i}", "not valid JSON") from None
        return out


def _check_size(data: bytes) -> None:
    if len(data) > MAX_STATE_BYTES:
        raise InvalidInputError(
            STATE_FILE,
            "",
            f"the new state would be {len(data)} bytes, over "
            f"the {MAX_STATE_BYTES}-byte limit every later command reads; "
            "nothing was written (split the work into smaller task files)",
        )


class UncertainWriteError(StorageIOError):
    """The new state was renamed into place, its directory fsync failed and the undo failed."""

    def __init__(self, path: str, operation: str, reason: str) -> None:
        super().__init__(path, operation, reason)
        self.message = (
            f"{path}: {operation} failed: {reason}; the new state is in place but "
            "may not survive a crash: check with agents-state status"
        )
        self.args = (self.message,)


def _warn(message: str) -> None:
    import sys

    sys.stderr.write(f"agents-state: warning: {message}\n")
