"""``dispatch --replace``: keep the old workflow in ``.agents/archive/<stamp>-r<rev>/``.

The archive is a copy made under the lock before the new state is written: ``state.json`` and
every artifact, written durably into a temp folder that is renamed into place as one step.  Only
after the new state is durable are the old artifacts removed from ``phases/``.  So a failure or a
kill at any step leaves the old workflow whole: before the commit, ``state.json`` and ``phases/``
were never touched (a half-made copy is a ``.tmp-`` folder the next ``--replace`` deletes); after
it, the copy is complete.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from agents_state.errors import StorageIOError
from agents_state.store import fsops
from agents_state.store.paths import AGENTS_DIR

if TYPE_CHECKING:
    from agents_state.models import State
    from agents_state.store.files import Store

__all__ = ["Archive"]


class Archive:
    def __init__(self, store: Store, dest: Path, names: list[str]) -> None:
        self.store, self.dest, self.names = store, dest, names

    @property
    def shown(self) -> str:
        return str(self.dest.relative_to(self.store.root))

    @classmethod
    def copy(cls, store: Store, state: State) -> Archive:
        """Copy the state and the artifacts of ``phases/`` into a new archive folder."""
        top = store.dir / "archive"
        try:
            fsops.make_dir(top, f"{AGENTS_DIR}/archive")
            names = os.listdir(top)
        except OSError as e:
            raise StorageIOError(f"{AGENTS_DIR}/archive", "mkdir", e.strerror or str(e)) from None
        for n in names:  # half-made copies of an interrupted --replace
            if n.startswith(".tmp-"):
                shutil.rmtree(top / n, ignore_errors=True)
        stamp = (state.startedAt or "unknown").replace(":", "").replace("-", "")
        base = f"{stamp}-r{state.revision}"
        name, i = base, 1
        while os.path.lexists(top / name):
            i += 1
            name = f"{base}-{i}"
        dest = top / name
        tmp = top / f".tmp-{name}.{os.getpid()}"
        shown = f"{AGENTS_DIR}/archive/{name}"
        try:
            os.mkdir(tmp)
            store.write_file(tmp / "state.json", store.read_bytes() or b"", f"{shown}/state.json")
            names = sorted(os.listdir(store.phases_dir))
            names = [n for n in names if not n.startswith(".tmp-")]
            if names:
                os.mkdir(tmp / "phases")
            for n in names:
                where = f"{AGENTS_DIR}/phases/{n}"
                data = fsops.read_regular(store.phases_dir / n, where)
                store.write_file(tmp / "phases" / n, data, f"{shown}/phases/{n}")
            fsops.replace(tmp, dest, "archive_replace")
            fsops.fsync_dir(top)
        except BaseException as e:
            for d in (tmp, dest):  # the old workflow stays current: no copy of it is left
                shutil.rmtree(d, ignore_errors=True)
            if isinstance(e, OSError):
                raise StorageIOError(shown, "archive", e.strerror or str(e)) from None
            raise
        return cls(store, dest, names)

    def discard(self) -> None:
        """The new state was not written: the old workflow is still current, drop the copy."""
        shutil.rmtree(self.dest, ignore_errors=True)

    def clear_phases(self) -> None:
        """The new state is durable: the old artifacts (safe in the archive) leave ``phases/``."""
        failed = []
        for n in self.names:
            try:
                os.unlink(self.store.phases_dir / n)
            except FileNotFoundError:
                pass
            except OSError as e:
                failed.append(f"{n} ({e.strerror})")
        with contextlib.suppress(OSError):
            fsops.fsync_dir(self.store.phases_dir)
        if failed:
            from agents_state.store.files import _warn

            _warn(
                f"the new workflow is started, but old artifact(s) could not be removed from "
                f"{AGENTS_DIR}/phases/: {', '.join(failed)}; their copy is in {self.shown}"
            )
