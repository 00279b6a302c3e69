"""``agents-state doctor``: find what is wrong with a ``.agents/`` folder and explain it.

Each check looks at one thing a crash, a full disk, a hand edit or an interrupted migration can
leave behind: a state that does not decode (or is missing while its backup is not), a backup
that is behind, events.jsonl lines that do not parse or are missing, artifacts the state points
at but that are gone, leftover temp files, a lock owner that has died, migration leftovers, and
a network file system.  Each finding says what it is, why it matters and what ``--repair`` does
about it (``doctor_repair``).  Nothing here writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from agents_state.errors import AgentsStateError
from agents_state.models import State
from agents_state.store import fsops, netfs
from agents_state.store.files import BACKUP_FILE, MAX_STATE_BYTES, STATE_FILE, Store
from agents_state.store.paths import AGENTS_DIR

__all__ = ["Diagnosis", "Finding", "describe_events", "diagnose"]

Severity = Literal["error", "warning", "note"]
V1_FILE = f"{AGENTS_DIR}/subagents-state.json"
V2_TMP_STATE = f"{AGENTS_DIR}/tmp/state.json"


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    message: str
    repair: str  # what --repair does, or how to fix it by hand when it cannot
    repairable: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "repair": self.repair,
            "repairable": self.repairable,
        }


@dataclass
class Diagnosis:
    store: Store
    findings: list[Finding] = field(default_factory=list)
    state: State | None = None  # state.json, when it decodes
    state_bytes: bytes | None = None
    backup: State | None = None  # state.json.bak, when it decodes
    events: list[dict[str, Any]] = field(default_factory=list)
    bad_event_lines: list[int] = field(default_factory=list)
    temp_files: list[Path] = field(default_factory=list)
    missing_artifacts: dict[str, str] = field(default_factory=dict)  # phase id -> path
    dead_owner: int | None = None
    leftovers: list[str] = field(default_factory=list)  # migration sources still in place
    under_lock: bool = False  # diagnosed by ``--repair`` while it holds the lock
    archived_leftovers: list[Path] = field(default_factory=list)  # in phases/, copied in archive/
    git_orphans: Any = None  # gitwork.orphans.Orphans: worktrees and branches no longer named

    def add(
        self, code: str, severity: Severity, message: str, repair: str, repairable: bool = True
    ) -> None:
        self.findings.append(Finding(code, severity, message, repair, repairable))

    @property
    def lost_after_backup(self) -> list[dict[str, Any]]:
        """Logged transitions newer than the backup: what restoring the backup loses."""
        rev = self.backup.revision if self.backup is not None else 0
        return [e for e in self.events if isinstance(e.get("rev"), int) and e["rev"] > rev]


def _decode(data: bytes | None, shown: str) -> tuple[State | None, str]:
    from agents_state.store.codec import decode_state

    if data is None:
        return None, ""
    try:
        return decode_state(data, shown), ""
    except AgentsStateError as e:
        return None, e.message


def describe_events(events: list[dict[str, Any]], limit: int = 5) -> str:
    """``revision 42 (task_done t5), revision 43 (phase_complete 2.2)``."""
    parts = []
    for e in events[:limit]:
        what = " ".join(
            str(e[k])
            for k in ("event", "phase", "task_id", "task")
            if k in e and not (k == "task" and "task_id" in e)
        )
        parts.append(f"revision {e.get('rev')} ({what})")
    more = len(events) - limit
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def _restore_text(d: Diagnosis) -> str:
    assert d.backup is not None
    lost = d.lost_after_backup
    tail = (
        f"lost: {describe_events(lost)}, which events.jsonl records after it"
        if lost
        else "nothing is lost: events.jsonl records nothing after it"
    )
    return f"restore revision {d.backup.revision} from {BACKUP_FILE}; {tail}"


def _check_folder(d: Diagnosis) -> bool:
    """False when .agents/ itself cannot be trusted (then nothing else is looked at)."""
    root, agents = d.store.root, d.store.dir
    if agents.is_symlink() and not agents.resolve().is_relative_to(root.resolve()):
        d.add(
            "symlink",
            "error",
            f"{AGENTS_DIR} is a symbolic link out of the project (to "
            f"{agents.resolve()}); agents-state refuses to write there",
            f"by hand: replace the link with a real folder ({AGENTS_DIR}/)",
            False,
        )
        return False
    return agents.is_dir()


def _check_state(d: Diagnosis) -> None:
    store = d.store
    try:
        d.state_bytes = store.read_bytes()
        d.state, problem = _decode(d.state_bytes, STATE_FILE)
    except AgentsStateError as e:
        d.state_bytes, d.state, problem = None, None, e.message
    try:
        bak = fsops.read_regular(store.backup_path, BACKUP_FILE, MAX_STATE_BYTES)
    except (OSError, AgentsStateError):
        bak = None
    d.backup, bak_problem = _decode(bak, BACKUP_FILE)
    if problem:
        problem = problem.split("; run: agents-state doctor")[0]
        if d.backup is not None:
            d.add("corrupt_state", "error", problem, _restore_text(d))
        else:
            d.add(
                "corrupt_state",
                "error",
                problem,
                "by hand: no good copy to restore from ("
                f"{BACKUP_FILE} {'is damaged' if bak else 'is missing'}); fix the field "
                "named, or move the file away to start a new workflow",
                False,
            )
    elif d.state is None and d.backup is not None:
        d.add(
            "missing_state",
            "error",
            f"{STATE_FILE} is missing, but {BACKUP_FILE} holds "
            f"revision {d.backup.revision} of the workflow {d.backup.task!r}",
            _restore_text(d),
        )
    elif d.state is not None:
        _check_backup(d, bak, bak_problem)


def _check_backup(d: Diagnosis, bak: bytes | None, bak_problem: str) -> None:
    assert d.state is not None
    rev = d.state.revision
    if bak is None:
        d.add(
            "no_backup",
            "warning",
            f"{BACKUP_FILE} is missing: a damaged state could not be restored",
            f"write {BACKUP_FILE} from {STATE_FILE} (revision {rev})",
        )
    elif d.backup is None:
        d.add(
            "bad_backup",
            "warning",
            bak_problem.split("; run:")[0],
            f"write {BACKUP_FILE} again from {STATE_FILE} (revision {rev})",
        )
    elif d.backup.revision < rev:
        d.add(
            "old_backup",
            "warning",
            f"{BACKUP_FILE} holds revision {d.backup.revision}, "
            f"{STATE_FILE} revision {rev} (the last backup write failed or was interrupted)",
            f"write {BACKUP_FILE} again from {STATE_FILE} (revision {rev})",
        )


def _check_events(d: Diagnosis) -> None:
    try:
        lines = fsops.read_regular(d.store.events_path, f"{AGENTS_DIR}/events.jsonl").splitlines()
    except OSError:
        return
    except AgentsStateError as err:
        d.add(
            "events_file",
            "error",
            err.message,
            f"by hand: move {AGENTS_DIR}/events.jsonl away",
            False,
        )
        return
    for i, line in enumerate(lines, 1):
        try:
            e = orjson.loads(line)
            if not isinstance(e, dict):
                raise ValueError
            d.events.append(e)
        except (orjson.JSONDecodeError, ValueError):
            d.bad_event_lines.append(i)
    if d.bad_event_lines:
        shown = ", ".join(map(str, d.bad_event_lines[:10]))
        d.add(
            "bad_events",
            "warning",
            f"{AGENTS_DIR}/events.jsonl: line(s) {shown} are not "
            "valid JSON (a write was cut short)",
            f"drop those lines; the original is kept as {AGENTS_DIR}/events.jsonl.damaged",
        )
    if d.state is None:
        return
    logged = {e["rev"] for e in d.events if isinstance(e.get("rev"), int)}
    first = min(logged, default=d.state.revision + 1)
    missing = [r for r in range(first, d.state.revision + 1) if r not in logged]
    if missing:
        shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
        d.add(
            "log_gap",
            "note",
            f"{AGENTS_DIR}/events.jsonl lacks {len(missing)} "
            f"transition(s) (revisions {shown}): a process was stopped between saving the "
            "state and logging it; the state has them, nothing is lost",
            "nothing to do",
            False,
        )


def _check_artifacts(d: Diagnosis) -> None:
    from agents_state.workflow import PHASES

    if d.state is None:
        return
    by_key = {p.file_key: p.id for p in PHASES}
    for key, path in d.state.files.items():
        if not path.startswith(f"{AGENTS_DIR}/phases/") or key not in by_key:
            continue
        if not (d.store.root / path).is_file():
            pid = by_key[key]
            d.missing_artifacts[pid] = path
            d.add(
                "missing_artifact",
                "error",
                f"phase {pid}'s artifact {path} is missing (state.files.{key} points at it)",
                f"reopen phase {pid} so that it runs "
                "again (its work is lost; later phases keep theirs)",
            )


def _check_archived_leftovers(d: Diagnosis) -> None:
    """Artifacts of a replaced workflow still in ``phases/``: ``dispatch --replace`` was stopped
    after the new state was saved and before it emptied ``phases/`` (their copy is archived)."""
    if d.state is None or not d.store.phases_dir.is_dir():
        return
    used = {os.path.basename(p) for p in d.state.files.values()}
    for stage in d.state.stages.values():
        for phase in stage.phases.values():
            used.update(
                os.path.basename(t.result) for t in (phase.tasks or {}).values() if t.result
            )
    archive = d.store.dir / "archive"
    try:
        names = [
            n for n in os.listdir(d.store.phases_dir) if not n.startswith(".tmp-") and n not in used
        ]
        copies = [archive / a / "phases" for a in os.listdir(archive)] if names else []
    except OSError:
        return
    for n in sorted(names):
        try:
            data = fsops.read_regular(d.store.phases_dir / n, n)
        except (OSError, AgentsStateError):
            continue
        if any(_same(c / n, data) for c in copies):
            d.archived_leftovers.append(d.store.phases_dir / n)
    if d.archived_leftovers:
        shown = ", ".join(p.name for p in d.archived_leftovers[:5])
        d.add(
            "archived_leftovers",
            "warning",
            f"{len(d.archived_leftovers)} artifact(s) of a "
            f"replaced workflow are still in {AGENTS_DIR}/phases/ ({shown}); a phase completed "
            "without --artifact would take them for its own",
            f"delete them (each has an identical copy in {AGENTS_DIR}/archive/)",
        )


def _same(path: Path, data: bytes) -> bool:
    try:
        return fsops.read_regular(path, str(path)) == data
    except (OSError, AgentsStateError):
        return False


def _check_temp_files(d: Diagnosis) -> None:
    for folder in (d.store.dir, d.store.phases_dir):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        d.temp_files += [folder / n for n in names if n.startswith(".tmp-")]
    if d.temp_files:
        shown = ", ".join(str(p.relative_to(d.store.root)) for p in d.temp_files[:5])
        d.add(
            "temp_files",
            "warning",
            f"{len(d.temp_files)} leftover temp file(s) from an "
            f"interrupted write: {shown}; the state never depends on them",
            "delete them (the next update would, too)",
        )
    if os.path.lexists(d.store.dir / ".copy-switch"):  # ``store/switch.py``
        d.add(
            "copy_switch",
            "error",
            f"{AGENTS_DIR}/.copy-switch/ is left by a store copy --replace that was stopped: "
            "the workflow may be half switched",
            "finish the copy, or take it back if its state was not in place yet (the next "
            "update would, too)",
        )


def _check_lock(d: Diagnosis) -> None:
    owner = d.store.owner_path
    try:
        text = fsops.read_regular(owner, f"{AGENTS_DIR}/lock-owner", 200).decode()
        pid: int | None = int(text.split()[0])
    except AgentsStateError as e:
        d.add(
            "lock",
            "error",
            e.message,
            f"by hand: remove {AGENTS_DIR}/lock-owner (agents-state writes it again)",
            False,
        )
        return
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        pid = None
    if d.under_lock:
        return  # this process holds it
    from agents_state.store.lockfile import is_held

    if is_held(d.store.dir):
        who = (
            f"pid {pid} ({'running' if pid and _alive(pid) else 'no longer running'})"
            if pid
            else "an unknown process"
        )
        d.add(
            "lock_held",
            "note",
            f"the lock on {AGENTS_DIR}/ is held right now by {who}",
            "nothing to do: a kernel lock ends with its process; if it stays held, that "
            "process is hung (or the lock lives on a network file system)",
            False,
        )
    elif pid is not None and not _alive(pid) and d.temp_files:
        # the last holder died in the middle of a write: its temp files are the evidence
        d.dead_owner = pid
        d.add(
            "dead_owner",
            "note",
            f"the last holder of the lock, pid {pid}, died during a "
            "write; the kernel released the lock, so nothing blocks the next update",
            f"clear {AGENTS_DIR}/lock-owner",
        )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    except PermissionError:
        return True
    return True


def _check_migration(d: Diagnosis) -> None:
    for source in (V1_FILE, V2_TMP_STATE):
        if not (d.store.root / source).is_file():
            continue
        if d.state is not None:
            d.leftovers.append(source)
            d.add(
                "half_migrated",
                "warning",
                f"{source} is still in place next to "
                f"{STATE_FILE}: a migration was interrupted after writing the state",
                f"rename {source} to {source}.migrated, as migrate would have",
            )
        elif d.backup is None:
            d.add(
                "not_migrated",
                "note",
                f"{source} holds a workflow in an older layout",
                "run: agents-state migrate",
                False,
            )


def _check_fs(d: Diagnosis) -> None:
    message = netfs.warning(d.store.dir, netfs.fs_type(d.store.dir))
    if message:
        d.add(
            "network_fs",
            "warning",
            message,
            "by hand: keep .agents/ on a local disk, or run every writer on one machine",
            False,
        )


def diagnose(root: Path, locked: Store | None = None, store: Store | None = None) -> Diagnosis:
    """Look at everything; ``locked``: the store whose lock the caller holds (``--repair``
    diagnoses again under it, so that it acts on what is there now, not on a stale look);
    ``store``: the one to look through otherwise (the command's, which notes its commits)."""
    d = Diagnosis(locked or store or Store(root), under_lock=locked is not None)
    if not _check_folder(d):
        return d
    for check in (
        _check_state,
        _check_events,
        _check_artifacts,
        _check_archived_leftovers,
        _check_temp_files,
        _check_lock,
        _check_migration,
        _check_fs,
    ):
        check(d)
    return d
