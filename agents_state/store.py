"""The durable store: the only module that writes workflow state to disk.

Layout under the root: ``.agents/state.json`` (the workflow), ``.agents/events.jsonl`` (one line per
accepted transition), ``.agents/phases/`` (artifacts), ``.agents/state.lock`` (a kernel lock on a
file that is never deleted) and ``.agents/lock-owner`` (who holds it, for error messages).

Every update: lock -> clean leftover temp files -> re-read -> validate -> apply -> validate the
result -> write a unique temp file in the same directory -> fsync -> ``os.replace`` -> fsync the
directory -> append the event -> unlock -> only then report success.  Readers need no lock: they
only ever see a whole old file or a whole new one.

The interface is small (``load`` and ``commit``) so that a server-backed store can follow.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from agents_state import fsops
from agents_state.errors import (
    InvalidInputError,
    LockTimeoutError,
    StateFileError,
    StorageIOError,
)
from agents_state.paths import AGENTS_DIR, check_inside, safe_name

if TYPE_CHECKING:
    from agents_state.engine import Outcome
    from agents_state.models import State

__all__ = ["STATE_FILE", "Store", "find_root"]

STATE_FILE = f"{AGENTS_DIR}/state.json"
MAX_STATE_BYTES = 64 * 1024 * 1024
DEFAULT_LOCK_TIMEOUT = 30.0


def find_root(explicit: str | None, cwd: Path | None = None) -> Path:
    """``--root`` / ``AGENTS_STATE_ROOT``, else the nearest ancestor with ``.agents/``, else cwd."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    here = (cwd or Path.cwd()).absolute()
    for d in (here, *here.parents):
        if (d / AGENTS_DIR).is_dir():
            return d
    return here


class Store:
    def __init__(self, root: Path, lock_timeout: float | None = None) -> None:
        self.root = root
        self.dir = root / AGENTS_DIR
        self.state_path = self.dir / "state.json"
        self.lock_path = self.dir / "state.lock"
        self.owner_path = self.dir / "lock-owner"
        self.events_path = self.dir / "events.jsonl"
        self.phases_dir = self.dir / "phases"
        env_timeout = os.environ.get("AGENTS_STATE_LOCK_TIMEOUT")
        self.lock_timeout = lock_timeout if lock_timeout is not None else (
            float(env_timeout) if env_timeout else DEFAULT_LOCK_TIMEOUT)

    # -- reading (lock-free) ------------------------------------------------------------------

    def read_bytes(self) -> bytes | None:
        """The raw state file, or None when there is none."""
        check_inside(self.root, self.dir, STATE_FILE)
        try:
            st = os.lstat(self.state_path)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise StorageIOError(STATE_FILE, "stat", e.strerror or str(e)) from None
        import stat as stat_mod

        if stat_mod.S_ISLNK(st.st_mode):
            raise StateFileError(STATE_FILE, "", "is a symbolic link; agents-state does not "
                                 "follow links for its state (replace it with a regular file)")
        if st.st_size > MAX_STATE_BYTES:
            raise StateFileError(STATE_FILE, "", f"is {st.st_size} bytes; the limit is "
                                 f"{MAX_STATE_BYTES} bytes")
        try:
            with open(self.state_path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise StorageIOError(STATE_FILE, "read", e.strerror or str(e)) from None

    def load(self) -> State | None:
        from agents_state.codec import decode_state

        data = self.read_bytes()
        return None if data is None else decode_state(data, STATE_FILE)

    # -- writing ------------------------------------------------------------------------------

    def commit(self, mutate: Callable[[State | None], Outcome]) -> Outcome:
        """Run ``mutate`` on the freshly re-read state under the lock and persist its result."""
        from agents_state.codec import encode_state

        self._ensure_dirs()
        with self._locked():
            self._clean_temp_files()
            outcome = mutate(self.load())
            if not outcome.changed:
                return outcome
            data = encode_state(outcome.state, STATE_FILE)
            self._atomic_write(self.state_path, data, STATE_FILE)
            if outcome.record:
                self._append_event(outcome.record)
        return outcome

    def write_artifact(self, name: str, data: bytes) -> str:
        """Write ``.agents/phases/<name>`` durably; returns its root-relative path."""
        shown = f"{AGENTS_DIR}/phases/{safe_name(name, 'artifact')}"
        self._ensure_dirs()
        self._atomic_write(self.phases_dir / name, data, shown)
        return shown

    def _ensure_dirs(self) -> None:
        check_inside(self.root, self.dir, AGENTS_DIR)
        try:
            self.phases_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StorageIOError(AGENTS_DIR, "mkdir", e.strerror or str(e)) from None
        check_inside(self.root, self.phases_dir, f"{AGENTS_DIR}/phases")

    def _locked(self) -> Any:
        return _Lock(self)

    def _clean_temp_files(self) -> None:
        # a temp file exists only while its writer holds the lock: any found now is debris
        for d in (self.dir, self.phases_dir):
            try:
                names = os.listdir(d)
            except OSError:
                continue
            for n in names:
                if n.startswith(".tmp-"):
                    with contextlib.suppress(OSError):
                        os.unlink(d / n)

    def _atomic_write(self, path: Path, data: bytes, shown: str) -> None:
        tmp = path.parent / f".tmp-{path.name}.{os.getpid()}.{time.monotonic_ns()}"
        step = "create temp file"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                step = "write"
                fsops.write_all(fd, data)
                step = "fsync"
                fsops.fsync(fd)
            finally:
                os.close(fd)
            step = "replace"
            fsops.replace(tmp, path)
        except OSError as e:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise StorageIOError(shown, step, e.strerror or str(e)) from None
        try:
            fsops.fsync_dir(path.parent)
        except OSError as e:
            raise StorageIOError(shown, "fsync directory", e.strerror or str(e)) from None

    def _append_event(self, record: dict[str, Any]) -> None:
        line = orjson.dumps(record) + b"\n"
        try:
            fd = os.open(self.events_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                fsops.write_all(fd, line)
                fsops.fsync(fd)
            finally:
                os.close(fd)
        except OSError as e:
            raise StorageIOError(f"{AGENTS_DIR}/events.jsonl", "append", e.strerror or str(e)
                                 ) from None

    def events(self) -> list[dict[str, Any]]:
        try:
            lines = self.events_path.read_bytes().splitlines()
        except FileNotFoundError:
            return []
        out = []
        for i, line in enumerate(lines, 1):
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                raise InvalidInputError(f"{AGENTS_DIR}/events.jsonl", f"line {i}",
                                        "not valid JSON") from None
        return out


class _Lock:
    """The kernel lock (filelock, never deleted) with a bounded wait naming the holder."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.lock: Any = None

    def __enter__(self) -> None:
        if os.environ.get("AGENTS_STATE_TEST_NO_LOCK") == "1":  # control runs of the torture test
            return
        from filelock import FileLock, Timeout

        self.lock = FileLock(str(self.store.lock_path), timeout=self.store.lock_timeout)
        try:
            self.lock.acquire(poll_interval=0.005)
        except Timeout:
            holder = _holder(self.store.owner_path)
            raise LockTimeoutError(f"{AGENTS_DIR}/state.lock", self.store.lock_timeout,
                                   holder) from None
        except OSError as e:
            raise StorageIOError(f"{AGENTS_DIR}/state.lock", "lock", e.strerror or str(e)
                                 ) from None
        try:
            self.store.owner_path.write_text(f"{os.getpid()} {time.time():.0f}\n")
        except OSError:
            pass  # only used to name the holder in a timeout message

    def __exit__(self, *exc: object) -> None:
        if self.lock is not None:
            self.lock.release()


def _holder(owner_path: Path) -> str:
    try:
        pid_s, since = owner_path.read_text().split()[:2]
        pid = int(pid_s)
    except (OSError, ValueError):
        return "an unknown process"
    try:
        os.kill(pid, 0)
        alive = "running"
    except ProcessLookupError:
        alive = "no longer running"
    except PermissionError:
        alive = "running"
    age = time.time() - float(since)
    return f"pid {pid} ({alive}, took it {age:.0f}s ago)"
