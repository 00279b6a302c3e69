"""``agents-state doctor``: find what is wrong with a ``.agents/`` folder and explain it.

Each check looks at one thing a crash, a full disk, a hand edit or an interrupted migration can
leave behind: a state that does not decode (or is missing while its backup is not), a backup
that is behind, events.jsonl lines that do not parse or are missing, artifacts the state points
at but that are gone, leftover temp files, a lock owner that has died, migration leftovers, and
a network file system.  Each finding says what it is, why it matters and what ``--repair`` does
about it (``doctor_repair``).  Nothing here writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from agents_state.doctor.findings import Diagnosis, Finding
from agents_state.doctor.leftovers import (
    check_archived_leftovers,
    check_fs,
    check_lock,
    check_migration,
    check_temp_files,
)
from agents_state.errors import AgentsStateError
from agents_state.models import State
from agents_state.store import fsops
from agents_state.store.backup import read_backup
from agents_state.store.files import BACKUP_FILE, STATE_FILE, Store
from agents_state.store.paths import AGENTS_DIR

__all__ = ["Diagnosis", "Finding", "describe_events", "diagnose"]


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
        bak = read_backup(store)  # the base with its journal replayed (issue 35)
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
        check_archived_leftovers,
        check_temp_files,
        check_lock,
        check_migration,
        check_fs,
        _check_lifts,
    ):
        check(d)
    return d


def _check_lifts(d: Diagnosis) -> None:
    """A project's config that would loosen a plugin agent's profile is ignored (issue 32)."""
    from agents_state.configload import load_config
    from agents_state.errors import AgentsStateError
    from agents_state.profiles import ignored_lifts

    try:
        layers = load_config(d.store.root_dir).layers
    except AgentsStateError:
        return  # a layer that does not load: config validate names it
    for line in ignored_lifts(layers):
        d.add(
            "ignored_profile_lift",
            "note",
            line,
            "by hand: to loosen it, set it in ~/.claude/subagents-config.json",
            False,
        )
