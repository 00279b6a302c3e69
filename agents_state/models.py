"""The records (see ``record``) of the v2 state (design 004) plus what the engine needs.

Lenient on read, strict on write: files written by hand or by a model drift (a string ``failure``,
``files: []``, ``"true"`` for true, upper-case statuses, missing optional blocks), so validators
normalise them; what the engine writes is always the canonical shape.  Unknown fields are kept
(``extra="allow"``) so that a file round-trips without losing anything.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from agents_state.records.base import Before, Record, field
from agents_state.types import Count, IsoTime, OptCount, Status

__all__ = [
    "SCHEMA_VERSION",
    "BudgetState",
    "Clarification",
    "Compaction",
    "Failure",
    "FailureContext",
    "Fanout",
    "FanoutAnswer",
    "FanoutLaunch",
    "GateAnswer",
    "GateWait",
    "GitInfo",
    "HandoffLedger",
    "HandoffNote",
    "LaunchSession",
    "MergeIntent",
    "PhaseState",
    "RetryContext",
    "StageState",
    "State",
    "TaskState",
    "Wave",
]

SCHEMA_VERSION = 2


class _Model(Record):
    extra = "allow"


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


def _lower(v: Any) -> Any:
    return v.strip().lower() if isinstance(v, str) else v


StrList = Annotated[list[str], Before(_none_to_list)]


class TaskState(_Model):
    """One task of phase 2.1: its definition and its lifecycle."""

    title: str = ""
    description: str = ""
    dependencies: StrList = field(default_factory=list)
    complexity: Annotated[Literal["easy", "medium", "hard"], Before(_lower)] = "medium"
    files: StrList = field(default_factory=list)
    status: Status = "pending"
    attempts: Count = 0
    owner: str | None = None
    claimedAt: IsoTime | None = None
    heartbeatAt: IsoTime | None = None
    completedAt: IsoTime | None = None
    retryAt: IsoTime | None = None
    lastError: str | None = None
    summary: str | None = None
    result: str | None = None
    # git isolation (issue 22): the task's branch, its head when done, and its merge
    branch: str | None = None
    head: str | None = None
    merge: Literal["pending", "merged", "nochange", "conflict"] | None = None
    mergeCommit: str | None = None
    conflictFiles: list[str] | None = None
    # issue 33: the folder where ``merge --resolve`` left the conflict to fix (the next step)
    resolveIn: str | None = None


class Wave(_Model):
    tasks: StrList = field(default_factory=list)
    status: Status = "pending"


class PhaseState(_Model):
    status: Status = "pending"
    startedAt: IsoTime | None = None
    completedAt: IsoTime | None = None
    agentCount: OptCount = None
    issues: Annotated[OptCount, Before(_count)] = None
    attempts: Count = 0
    reviewRounds: Count = 0
    waves: list[Wave] | None = None
    tasks: dict[str, TaskState] | None = None
    error: str | None = None
    retryAt: IsoTime | None = None  # a failed phase is retried not before this time
    passed: bool | None = None  # 3.1: did the last test run pass
    reported: bool | None = None  # 3.1: True: ``passed`` is the model's report (no TEST commands)
    failedRuns: int = 0  # 3.1: failed test runs since the last person's decision
    skippedByUser: bool = False  # a person chose to skip this phase (ask-the-user step)


class StageState(_Model):
    status: Status = "pending"
    startedAt: IsoTime | None = None
    completedAt: IsoTime | None = None
    agentCount: OptCount = None
    phases: Annotated[dict[str, PhaseState], Before(_list_to_dict)] = field(default_factory=dict)


class FailureContext(_Model):
    completedTasks: StrList = field(default_factory=list)
    failedTask: str | None = None
    pendingTasks: StrList = field(default_factory=list)


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


def _phase_str(v: Any) -> Any:
    # "1.2" is sometimes written as the number 1.2, and phase 0 as 0
    if isinstance(v, int | float) and not isinstance(v, bool):
        return str(v)
    return v


def _stage_upper(v: Any) -> Any:
    return v.strip().upper() if isinstance(v, str) else v


def _empty_if_none(v: Any) -> Any:
    return {} if v is None else v


class Compaction(_Model):
    lastCompactedAt: str | None = None
    history: StrList = field(default_factory=list)
    pending: str | None = None  # the boundary (stage or phase) that awaits a compaction
    # boundaries passed without one: not needed by the context's size, or gone on from (issue 27)
    skipped: StrList = field(default_factory=list)


class Clarification(_Model):
    questions: StrList = field(default_factory=list)
    phase: str | None = None
    task: str | None = None
    askedAt: IsoTime | None = None
    answer: str | None = None
    answeredAt: IsoTime | None = None


class BudgetState(_Model):
    """What the user answered when a budget was spent (issue 24): a raised limit, and the one
    dispatch allowed over it (``"1.3"``, ``"2.1 wave 2"``)."""

    maxTokens: OptCount = None
    stages: dict[str, int] = field(default_factory=dict)
    allowOnce: str | None = None


class GateWait(_Model):
    """Issue 36: a gated phase was recorded; the next phase starts only after a person answers."""

    phase: Annotated[str, Before(_phase_str)]
    since: IsoTime


class GateAnswer(_Model):
    """Issue 36: a person's answer at a gate (``agents-state gate approve|reject``)."""

    phase: Annotated[str, Before(_phase_str)]
    verdict: Literal["approved", "rejected"]
    by: str
    at: IsoTime
    note: str | None = None


class MergeIntent(_Model):
    """A merge run about to start: the tasks in merge order and the integration head before it."""

    tasks: StrList = field(default_factory=list)
    head: str = ""
    at: IsoTime | None = None


class GitInfo(_Model):
    """Worktree isolation of phase 2.1 (issue 22): the integration branch and where it began."""

    branch: str
    base: str
    worktrees: str = ".agents/worktrees"
    fromChanges: bool = False  # the base is a commit of the user's uncommitted changes
    deleteMerged: bool = False  # task branches are deleted once merged
    intent: MergeIntent | None = None


# -- what the hooks note as sub-agents answer (issue 35: declared fields, not untyped extras) ----


def _dict_or_none(v: Any) -> Any:
    # files written before these were fields kept them as free-form extras: a value that is
    # not an object was never read (the readers ignored it), so it reads as none
    return v if isinstance(v, dict) else None


def _objects(v: Any) -> Any:
    # entries that are not objects were skipped by the readers of the extras: drop them
    if not isinstance(v, dict):
        return {}
    return {k: x for k, x in v.items() if isinstance(x, dict | Record)}


def _objects_or_none(v: Any) -> Any:
    return _objects(v) if isinstance(v, dict) else None


def _object_list(v: Any) -> Any:
    return [x for x in v if isinstance(x, dict | Record)] if isinstance(v, list) else []


def _ints_only(v: Any) -> Any:
    if not isinstance(v, dict):
        return {}
    return {str(k): x for k, x in v.items() if isinstance(x, int) and not isinstance(x, bool)}


class FanoutAnswer(_Model):
    """One agent's answer to a fan-out, as its SubagentStop hook recorded it."""

    at: str = ""
    answer: Any = None  # the agent's structured answer (its handoff response), kept as written


class LaunchSession(_Model):
    """The keys of a fan-out one session launched (issue 32: a printed fan-out runs once)."""

    at: str = ""
    keys: StrList = field(default_factory=list)


class FanoutLaunch(_Model):
    """The launches of one run of a fan-out's phase (``run``: its start, attempts, rounds)."""

    run: str = ""
    sessions: Annotated[dict[str, LaunchSession], Before(_objects)] = field(default_factory=dict)


class Fanout(_Model):
    """The answers of one fan-out (issue 25) for the run of its phase that began at ``since``."""

    phase: str = ""
    since: str | None = None
    answers: Annotated[dict[str, FanoutAnswer], Before(_objects)] = field(default_factory=dict)
    launched: Annotated[FanoutLaunch | None, Before(_dict_or_none)] = None


class HandoffNote(_Model):
    """One recorded sub-agent response in the handoff ledger."""

    at: str = ""
    target: str = ""  # "task 2.1-a", "phase 1.3", "the ledger of phase 0"
    phase: str = ""
    decision: str = ""
    kind: str = ""
    digest: str = ""
    task: str | None = None
    taskId: str | None = None
    role: str | None = None
    summary: str | None = None
    tokens: int | None = None
    agent: str | None = None


class RetryContext(_Model):
    """A QA failure the writer re-runs with: its task, or the phase a review sends back to."""

    task: str | None = None
    phase: str | None = None
    failures: StrList = field(default_factory=list)
    attempt: int = 2


class HandoffLedger(_Model):
    """Every recorded sub-agent response, ``tokens_used`` summed per phase, the retry context."""

    records: Annotated[list[HandoffNote], Before(_object_list)] = field(default_factory=list)
    tokens: Annotated[dict[str, int], Before(_ints_only)] = field(default_factory=dict)
    retry: Annotated[RetryContext | None, Before(_dict_or_none)] = None


class State(_Model):
    version: int = SCHEMA_VERSION
    revision: Count = 0
    task: str
    status: Status = "pending"
    currentStage: Annotated[str | None, Before(_stage_upper)] = None
    currentPhase: Annotated[str | None, Before(_phase_str)] = None
    stages: dict[str, StageState] = field(default_factory=dict)
    files: Annotated[dict[str, str], Before(_list_to_dict)] = field(default_factory=dict)
    compaction: Annotated[Compaction, Before(_empty_if_none)] = field(default_factory=Compaction)
    failure: Annotated[Failure | None, Before(_failure)] = None
    blockedReason: str | None = None
    stopRequested: bool = False
    abortedAt: IsoTime | None = None
    clarify: Clarification | None = None
    clarifications: list[Clarification] = field(default_factory=list)
    git: GitInfo | None = None
    budget: BudgetState | None = None
    gate: GateWait | None = None  # issue 36: the gate waiting for a person, if any
    gateAnswers: list[GateAnswer] = field(default_factory=list)  # every answer, oldest first
    startedAt: IsoTime | None = None
    updatedAt: IsoTime | None = None
    # issue 35: answers by fan-out id and agent key, and the handoff ledger; none until noted
    fanouts: Annotated[dict[str, Fanout] | None, Before(_objects_or_none)] = None
    handoffs: Annotated[HandoffLedger | None, Before(_dict_or_none)] = None

    def phase(self, phase_id: str) -> PhaseState:
        from agents_state.workflow import get_phase

        return self.stages[get_phase(phase_id).stage].phases[phase_id]

    @property
    def active(self) -> bool:
        """An unfinished workflow: it can still move on, or be resumed."""
        return self.status != "completed" and self.abortedAt is None

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
