"""``agents-state doctor --repair``: act on a diagnosis, under the lock, and say what was lost.

Repairs, in order: restore the state from its last-good backup (keeping the damaged file as
``state.json.corrupt`` and logging a ``doctor_restore`` event whose revision is past every logged
one, so that the log stays in order), reopen phases whose artifact is missing, write the backup
again, drop torn events.jsonl lines, delete temp files, clear a dead lock owner and rename
migration leftovers.  Every write goes through the store (``store.upkeep``: under the lock,
durable, never through a link); the file store only (``doctor/pg.py`` repairs nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from agents_state.doctor.diagnose import Diagnosis, describe_events, diagnose
from agents_state.models import State
from agents_state.store import fsops, upkeep
from agents_state.store.backup import rebase
from agents_state.store.files import BACKUP_FILE, STATE_FILE, Store
from agents_state.store.paths import AGENTS_DIR
from agents_state.workflow import PHASE_IDS, PhaseKind, get_phase

__all__ = ["Repair", "repair"]


@dataclass
class Repair:
    done: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def _restore(d: Diagnosis, r: Repair) -> State:
    store, bak = d.store, d.backup
    assert bak is not None
    lost = d.lost_after_backup
    state = bak.model_copy(deep=True)
    top = max([bak.revision, *(e["rev"] for e in lost)])
    state.revision = top + 1
    moved = upkeep.move_aside(store, "state.json", ".corrupt")
    kept = f"; the damaged file is kept as {STATE_FILE}.corrupt" if moved else ""
    upkeep.write_state(
        store,
        state,
        {
            "rev": state.revision,
            "at": _now(),
            "event": "doctor_restore",
            "from": bak.revision,
            "lost": [e["rev"] for e in lost],
        },
    )
    r.done.append(
        f"restored {STATE_FILE} from {BACKUP_FILE} (revision {bak.revision}, now "
        f"revision {state.revision}){kept}"
    )
    if lost:
        r.lost.append(
            f"{describe_events(lost, 20)}: recorded in events.jsonl after the backup; do them again"
        )
    return state


def _reopen(state: State, missing: dict[str, str], r: Repair) -> None:
    """Send the workflow back to the earliest phase whose artifact is gone; completing it
    again moves on to the first phase not yet done, so later work is kept."""
    target = min(missing, key=PHASE_IDS.index)
    for pid in missing:
        spec = get_phase(pid)
        state.files.pop(spec.file_key, None)
        phase = state.phase(pid)
        phase.status, phase.completedAt = "pending", None
        if spec.kind is PhaseKind.TASKS:
            phase.tasks, phase.waves = None, None
    running = [p for p in PHASE_IDS if state.phase(p).status == "in_progress"]
    for pid in running:
        state.phase(pid).status = "pending"  # it runs again after the reopened phase
    state.currentPhase, state.currentStage = target, get_phase(target).stage
    state.compaction.pending = None
    if state.abortedAt is None:
        state.status, state.failure, state.blockedReason = "in_progress", None, None
    from agents_state.engine.phases import _derive_stages

    _derive_stages(state, _now())
    shown = ", ".join(f"{p} ({missing[p]})" for p in sorted(missing, key=PHASE_IDS.index))
    r.done.append(
        f"reopened phase(s) {shown}: the workflow continues at phase {target}"
        + (f"; phase(s) {', '.join(running)} will start again after it" if running else "")
    )
    r.lost.append(
        f"the work of phase(s) {', '.join(sorted(missing, key=PHASE_IDS.index))} "
        "(artifact missing): they run again"
    )


def _fix_events(d: Diagnosis, r: Repair) -> None:
    path = d.store.events_path
    lines = fsops.read_regular(path, f"{AGENTS_DIR}/events.jsonl").splitlines(keepends=True)
    keep = b"".join(
        x if x.endswith(b"\n") else x + b"\n"
        for i, x in enumerate(lines, 1)
        if i not in d.bad_event_lines
    )
    upkeep.replace_events(d.store, keep)
    r.done.append(
        f"dropped {len(d.bad_event_lines)} torn line(s) from {AGENTS_DIR}/events.jsonl "
        f"(the original is kept as {AGENTS_DIR}/events.jsonl.damaged)"
    )
    r.lost.append(
        f"{len(d.bad_event_lines)} events.jsonl line(s) that could not be read "
        "(the log only; the state is not affected)"
    )


def _under(store: Store, path: Path) -> str:
    return path.relative_to(store.dir).as_posix()


def repair(seen: Diagnosis) -> Repair:
    """Act on every repairable finding.  The caller holds nothing: this takes the lock and looks
    again under it, so that it acts on the folder as it is now, never on ``seen`` (a look taken
    without the lock, which a writer may have moved past since)."""
    r = Repair()
    store = seen.store
    with store.locked():
        if any(f.code == "copy_switch" for f in seen.findings):
            from agents_state.store.switch_recover import recover

            recover(store)  # first: what the rest looks at is the switched (or old) workflow
            r.done.append(f"finished or took back the stopped copy in {AGENTS_DIR}/.copy-switch/")
        d = diagnose(store.root, locked=store)
        codes = {f.code for f in d.findings if f.repairable}
        state = d.state
        if codes & {"corrupt_state", "missing_state"}:
            state = _restore(d, r)
        if "missing_artifact" in codes and state is not None:
            state = state.model_copy(deep=True)
            _reopen(state, d.missing_artifacts, r)
            state.revision += 1
            record = {
                "rev": state.revision,
                "at": _now(),
                "event": "doctor_reopen",
                "phases": sorted(d.missing_artifacts, key=PHASE_IDS.index),
            }
            upkeep.write_state(store, state, record, store.read_bytes())
        elif codes & {"no_backup", "bad_backup", "old_backup"} and d.state_bytes is not None:
            rebase(store, d.state_bytes, d.state.revision if d.state else -1)
            r.done.append(
                f"wrote {BACKUP_FILE} from {STATE_FILE} (revision "
                f"{d.state.revision if d.state else '?'})"
            )
        if "bad_events" in codes:
            _fix_events(d, r)
        if "archived_leftovers" in codes:
            upkeep.remove(store, [_under(store, p) for p in d.archived_leftovers])
            r.done.append(
                f"deleted {len(d.archived_leftovers)} artifact(s) of the replaced "
                f"workflow from {AGENTS_DIR}/phases/ (copies are in the archive)"
            )
        if "temp_files" in codes:
            upkeep.remove(store, [_under(store, p) for p in d.temp_files])
            r.done.append(f"deleted {len(d.temp_files)} leftover temp file(s)")
        if seen.dead_owner is not None:  # our own pid is in lock-owner now: the dead one is gone
            r.done.append(f"cleared {AGENTS_DIR}/lock-owner (pid {seen.dead_owner} is gone)")
        for source in d.leftovers:
            upkeep.move_aside(store, _under(store, store.root / source), ".migrated")
            r.done.append(f"renamed {source} to {source}.migrated (the migration is complete)")
    return r
