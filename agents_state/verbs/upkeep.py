"""``doctor``: what is wrong with the workflow's store and, with ``repair``, the fix (issue 35:
the repair saga leaves ``cli/``; stray task worktrees are removed under the git lock)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents_state.types import Frozen

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.doctor.findings import Finding
    from agents_state.doctor.repair import Repair

__all__ = ["DoctorReport", "doctor"]

_put = object.__setattr__


class DoctorReport(Frozen):
    """What ``doctor`` found, what ``repair`` did and lost, and what remains."""

    __slots__ = ("found", "done", "left", "repair")  # noqa: RUF023 (the order found)
    found: list[Finding]
    done: Repair
    left: list[Finding]
    repair: bool  # a repair was asked for

    def __init__(
        self, found: list[Finding], done: Repair, left: list[Finding], repair: bool
    ) -> None:
        _put(self, "found", found)
        _put(self, "done", done)
        _put(self, "left", left)
        _put(self, "repair", repair)

    @property
    def ok(self) -> bool:
        """No error remains (the exit code: 0, else 5)."""
        return not any(f.severity == "error" for f in self.left)

    def body(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "findings": [f.to_json() for f in self.found],
            "repaired": self.done.done,
            "lost": self.done.lost,
            "remaining": [f.to_json() for f in self.left] if self.repair else None,
        }


def doctor(app: App, repair: bool = False) -> DoctorReport:
    """Check the store (the files under ``.agents/``: the state and its backup, events,
    artifacts, temp files, lock, migration, stray worktrees; or the PostgreSQL store) and, with
    ``repair``, fix what can be fixed, looking again after each round."""
    from agents_state.doctor.repair import Repair

    if app.store_url is not None:  # the PostgreSQL store: nothing on disk to repair
        from agents_state.doctor.pg import diagnose_pg

        found = diagnose_pg(app.store).findings
        return DoctorReport(found, Repair(), found, False)
    from agents_state.doctor.diagnose import diagnose
    from agents_state.doctor.repair import repair as do_repair
    from agents_state.gitwork.orphans import check_git

    d = diagnose(app.root, store=app.file_store)
    check_git(d)
    found = d.findings
    done = Repair()
    for _ in range(2):  # a restored state may reveal what the damaged one hid
        if not repair or not any(f.repairable for f in d.findings):
            break
        step = do_repair(d)
        done.done += step.done
        done.lost += step.lost
        if d.git_orphans is not None and any(f.code == "git_orphans" for f in d.findings):
            done.done += _repair_git(app)
        d = diagnose(app.root, store=app.file_store)
        check_git(d)
    return DoctorReport(found, done, d.findings, repair)


def _repair_git(app: App) -> list[str]:
    """Outside the state's lock, under the git lock (the merge queue's order): look again."""
    from agents_state.gitwork.orphans import find_orphans, remove_orphans
    from agents_state.gitwork.rooms import git_lock

    with git_lock(app):
        found = find_orphans(app.root, app.state())
        return remove_orphans(app.root, found) if found is not None else []
