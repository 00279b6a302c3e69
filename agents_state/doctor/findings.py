"""What ``doctor`` found (``Finding``) and everything it looked at (``Diagnosis``), which
``--repair`` acts on."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agents_state.models import State
from agents_state.store.files import Store
from agents_state.store.paths import AGENTS_DIR

__all__ = ["V1_FILE", "V2_TMP_STATE", "Diagnosis", "Finding", "Severity"]

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
