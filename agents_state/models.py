"""pydantic v2 models of the v2 state (design 004) plus what the engine needs.

Lenient on read, strict on write: files written by hand or by a model drift (a string ``failure``,
``files: []``, ``"true"`` for true, upper-case statuses, missing optional blocks), so validators
normalise them; what the engine writes is always the canonical shape.  Unknown fields are kept
(``extra="allow"``) so that a file round-trips without losing anything.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from agents_state.types import IsoTime, Status

__all__ = [
    "SCHEMA_VERSION",
    "Clarification",
    "Compaction",
    "Failure",
    "FailureContext",
    "PhaseState",
    "StageState",
    "State",
    "TaskState",
    "Wave",
]

SCHEMA_VERSION = 2


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_default=False)


def _none_to_list(v: Any) -> Any:
    return [] if v is None else v


def _list_to_dict(v: Any) -> Any:
    # models write `files: []` or `phases: []` when they mean "none yet"
    if v is None or (isinstance(v, list) and not v):
        return {}
    return v


def _count(v: Any) -> Any:
    # `issues` is a count in design 004; a model may write the list of issues itself
    if isinstance(v, list):
        return len(v)
    return v


StrList = Annotated[list[str], BeforeValidator(_none_to_list)]


class TaskState(_Model):
    """One task of phase 2.1: its definition and its lifecycle."""

    title: str = ""
    description: str = ""
    dependencies: StrList = Field(default_factory=list)
    complexity: Literal["easy", "medium", "hard"] = "medium"
    files: StrList = Field(default_factory=list)
    status: Status = "pending"
    attempts: int = 0
    owner: str | None = None
    claimedAt: IsoTime | None = None
    heartbeatAt: IsoTime | None = None
    completedAt: IsoTime | None = None
    retryAt: IsoTime | None = None
    lastError: str | None = None
    summary: str | None = None
    result: str | None = None

    @field_validator("complexity", mode="before")
    @classmethod
    def _lower(cls, v: Any) -> Any:
        return v.strip().lower() if isinstance(v, str) else v


class Wave(_Model):
    tasks: StrList = Field(default_factory=list)
    status: Status = "pending"


class PhaseState(_Model):
    status: Status = "pending"
    startedAt: IsoTime | None = None
    completedAt: IsoTime | None = None
    agentCount: int | None = None
    issues: Annotated[int | None, BeforeValidator(_count)] = None
    attempts: int = 0
    reviewRounds: int = 0
    waves: list[Wave] | None = None
    tasks: dict[str, TaskState] | None = None
    error: str | None = None


class StageState(_Model):
    status: Status = "pending"
    startedAt: IsoTime | None = None
    completedAt: IsoTime | None = None
    agentCount: int | None = None
    phases: Annotated[dict[str, PhaseState], BeforeValidator(_list_to_dict)] = Field(
        default_factory=dict
    )


class FailureContext(_Model):
    completedTasks: StrList = Field(default_factory=list)
    failedTask: str | None = None
    pendingTasks: StrList = Field(default_factory=list)


class Failure(_Model):
    phase: str | None = None
    error: str = ""
    failedAt: IsoTime | None = None
    context: FailureContext | None = None


def _failure(v: Any) -> Any:
    # older files and models write the failure as a plain message
    if isinstance(v, str):
        return {"error": v} if v.strip() else None
    return v


class Compaction(_Model):
    lastCompactedAt: str | None = None
    history: StrList = Field(default_factory=list)
    pending: str | None = None  # the boundary (stage or phase) that awaits a compaction


class Clarification(_Model):
    questions: StrList = Field(default_factory=list)
    phase: str | None = None
    task: str | None = None
    askedAt: IsoTime | None = None
    answer: str | None = None
    answeredAt: IsoTime | None = None


class State(_Model):
    version: int = SCHEMA_VERSION
    revision: int = 0
    task: str
    status: Status = "pending"
    currentStage: str | None = None
    currentPhase: str | None = None
    stages: dict[str, StageState] = Field(default_factory=dict)
    files: Annotated[dict[str, str], BeforeValidator(_list_to_dict)] = Field(default_factory=dict)
    compaction: Annotated[Compaction, BeforeValidator(lambda v: {} if v is None else v)] = Field(
        default_factory=Compaction
    )
    failure: Annotated[Failure | None, BeforeValidator(_failure)] = None
    blockedReason: str | None = None
    stopRequested: bool = False
    abortedAt: IsoTime | None = None
    clarify: Clarification | None = None
    clarifications: list[Clarification] = Field(default_factory=list)
    startedAt: IsoTime | None = None
    updatedAt: IsoTime | None = None

    @field_validator("currentPhase", mode="before")
    @classmethod
    def _phase_str(cls, v: Any) -> Any:
        # "1.2" is sometimes written as the number 1.2, and phase 0 as 0
        if isinstance(v, int | float) and not isinstance(v, bool):
            return str(v)
        return v

    @field_validator("currentStage", mode="before")
    @classmethod
    def _stage_upper(cls, v: Any) -> Any:
        return v.strip().upper() if isinstance(v, str) else v

    def phase(self, phase_id: str) -> PhaseState:
        from agents_state.workflow import get_phase

        return self.stages[get_phase(phase_id).stage].phases[phase_id]

    @property
    def active(self) -> bool:
        """An unfinished workflow: it can still move on, or be resumed."""
        return self.status != "completed" and self.abortedAt is None

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
