"""A chain run's state and its pure transitions: ``chain_apply(chain, event, now) -> ChainOutcome``.

The machine: a chain is ``running`` (its current step's sub-agents are out), ``waiting`` (a
sub-agent said CLARIFY; the user must answer), ``blocked`` (a STOP, QA failing after the writer's
retries, or a step that timed out twice; a person decides), ``completed`` or ``aborted``.
``CHAIN_MOVES`` maps ``(status, event, guard)`` to the chain's new status, as the engine's
tables do (``engine/table.py``); ``CHAIN_ACCEPTS``, the events each status takes, is derived
from it, and anything else is refused.  Handlers decide the guard and fill in the side data.

A response moves the current step (design 001's decision flow, design 002's error handling):

- PROCEED: the step is done, its ``context_summary`` is kept for the next request, next step;
- CLARIFY: ``waiting`` with the questions; the answer re-runs the same step with it;
- STOP from a validator that follows a writer: the writer runs again with the failures as
  ``retry_context``, at most ``MAX_WRITER_RETRIES`` times, then the chain escalates (``blocked``);
- any other STOP: ``blocked`` with the reason (REQ-2.5).

A timeout re-runs the step once with a simplified handoff; a second one blocks the chain.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from agents_state.chains.catalogue import (
    CHAINS,
    MAX_WRITER_RETRIES,
    TEMPLATES,
    Step,
    plan_steps,
)
from agents_state.errors import TransitionNotAllowedError
from agents_state.records.base import Record, field
from agents_state.types import format_time

if TYPE_CHECKING:  # a response arrives validated (pydantic, at the boundary); reading a chain
    # needs none of it
    from agents_state.handoff.reduce import Handoff

__all__ = [
    "CHAIN_ACCEPTS",
    "CHAIN_MOVES",
    "MAX_TIMEOUTS",
    "MAX_WRITER_RETRIES",
    "ChainEvent",
    "ChainOutcome",
    "ChainState",
    "StepRun",
    "chain_apply",
    "step_runs",
]

MAX_TIMEOUTS = 2  # design 001: retry once with a simplified handoff, then report

ChainStatus = Literal["running", "waiting", "blocked", "completed", "aborted"]

CHAIN_MOVES: dict[tuple[str, str, str], ChainStatus] = {
    ("running", "respond", "proceed"): "running",  # the next step is dispatched
    ("running", "respond", "last_step"): "completed",
    ("running", "respond", "clarify"): "waiting",
    ("running", "respond", "writer_retry"): "running",  # a validator's STOP: the writer again
    ("running", "respond", "escalate"): "blocked",  # ... after MAX_WRITER_RETRIES
    ("running", "respond", "stop"): "blocked",
    ("running", "timeout", "simplified"): "running",  # once more with a simplified handoff
    ("running", "timeout", "timed_out"): "blocked",
    ("waiting", "answer", ""): "running",
    ("blocked", "retry", ""): "running",
    **{(s, "abort", ""): "aborted" for s in ("running", "waiting", "blocked")},
}

CHAIN_ACCEPTS: dict[str, frozenset[str]] = {
    status: frozenset(e for (s, e, _g) in CHAIN_MOVES if s == status)
    for status in ("running", "waiting", "blocked", "completed", "aborted")
}


def _move(c: ChainState, event: str, guard: str = "") -> None:
    """Set the chain's status from ``CHAIN_MOVES``; a missing entry is refused."""
    try:
        c.status = CHAIN_MOVES[(c.status, event, guard)]
    except KeyError:
        raise TransitionNotAllowedError(
            f"chain {c.id}", c.status, event, hint=f"no move for guard '{guard}'"
        ) from None


class _Model(Record):
    """The chain's records: the state's record system (issue 35), unknown fields kept."""

    extra = "allow"


class StepRun(_Model):
    id: str
    agent: str
    role: str
    mode: str | None = None
    instances: list[str] = field(default_factory=list)
    submode: str = "full"
    model: str
    status: Literal["pending", "running", "completed"] = "pending"
    runs: int = 0  # how many times its sub-agents were dispatched
    timeouts: int = 0
    decision: str | None = None
    summary: str | None = None
    files: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return max(1, len(self.instances))


class ChainState(_Model):
    version: int = 1
    id: str
    name: str
    pattern: str
    feature: str
    only: str | None = None
    submode: str | None = None
    status: ChainStatus = "running"
    revision: int = 1
    sizing: dict[str, Any] = field(default_factory=dict)
    steps: list[StepRun]
    current: int = 0
    writerRetries: int = 0
    retry: dict[str, Any] | None = None  # design 002's retry_context for the writer
    simplified: bool = False  # the current step re-runs with a simplified handoff
    clarify: dict[str, Any] | None = None
    answers: list[dict[str, Any]] = field(default_factory=list)
    blockedReason: str | None = None
    escalated: bool = False
    files: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    specPath: str | None = None
    models: dict[str, str] = field(default_factory=dict)  # --model overrides
    priorSummary: str | None = None  # implement-only: the research summary of an earlier run
    workflow: dict[str, Any] | None = None  # {"phase", "task", "recorded"} inside a workflow
    history: list[dict[str, Any]] = field(default_factory=list)
    createdAt: str | None = None
    updatedAt: str | None = None

    @property
    def step(self) -> StepRun | None:
        return self.steps[self.current] if self.current < len(self.steps) else None

    def index_of(self, step_id: str) -> int | None:
        return next((i for i, s in enumerate(self.steps) if s.id == step_id), None)


@dataclass(frozen=True)
class ChainEvent:
    name: Literal["respond", "timeout", "answer", "retry", "abort"]
    handoff: Handoff | None = None
    text: str | None = None


@dataclass(frozen=True)
class ChainOutcome:
    chain: ChainState
    message: str
    changed: bool = True


def step_runs(steps: tuple[Step, ...], models: dict[str, str]) -> list[StepRun]:
    return [
        StepRun(
            id=s.id,
            agent=s.agent,
            role=s.role,
            mode=s.mode,
            instances=list(s.instances),
            submode=s.submode,
            model=models.get(s.id) or models.get(s.agent) or TEMPLATES[s.agent].model,
        )
        for s in steps
    ]


def chain_apply(chain: ChainState, event: ChainEvent, now: datetime) -> ChainOutcome:
    """The chain after ``event``; never mutates ``chain``."""
    allowed = CHAIN_ACCEPTS[chain.status]
    if event.name not in allowed:
        raise TransitionNotAllowedError(
            f"chain {chain.id}",
            chain.status,
            event.name,
            sorted(allowed),
            hint="run: agents-state chain next " + chain.id,
        )
    c = chain.model_copy(deep=True)
    ts = format_time(now)
    if event.name == "respond":
        from agents_state.handoff.reduce import digest  # a response: pydantic is loaded already

        assert event.handoff is not None
        if c.history and c.history[-1].get("digest") == digest(event.handoff):
            return ChainOutcome(
                chain, "this response is already recorded; nothing changed", changed=False
            )
        out = _respond(c, event.handoff, ts)
    else:
        out = _OTHER[event.name](c, event, ts)
    c.revision += 1
    c.updatedAt = ts
    return ChainOutcome(c, out)


def _log(c: ChainState, ts: str, event: str, **data: Any) -> None:
    step = c.step
    c.history.append(
        {
            "rev": c.revision + 1,
            "at": ts,
            "event": event,
            "step": step.id if step else None,
            **{k: v for k, v in data.items() if v not in (None, [], "")},
        }
    )


def _dispatch(c: ChainState, index: int) -> None:
    c.current = index
    if index < len(c.steps):
        s = c.steps[index]
        s.status, s.runs = "running", s.runs + 1


def _respond(c: ChainState, h: Handoff, ts: str) -> str:
    from agents_state.handoff.reduce import digest

    step = c.step
    assert step is not None
    decision = h.decision or "PROCEED"
    _log(
        c,
        ts,
        "respond",
        decision=decision,
        summary=h.summary,
        digest=digest(h),
        tokens=h.tokens_used,
    )
    c.simplified = False
    if decision == "CLARIFY":
        _move(c, "respond", "clarify")
        c.clarify = {"questions": list(h.questions), "step": step.id, "askedAt": ts}
        return f"{step.id}: CLARIFY, {len(h.questions)} question(s) for the user"
    if decision == "STOP":
        return _stop(c, step, h)
    step.status, step.decision, step.summary = "completed", "PROCEED", h.summary
    step.files = _files(h) or step.files
    if step.role == "validate":
        c.retry = None
    branch = _branch(c, h) if step.id == "triage" else ""
    _dispatch(c, c.current + 1)
    _move(c, "respond", "last_step" if c.step is None else "proceed")
    if c.step is None:
        return f"{step.id}: PROCEED; chain {c.id} completed"
    return f"{step.id}: PROCEED{branch}; next {c.step.id}"


_COMPLEXITY: dict[str, tuple[int, int, int, str]] = {
    "simple": (1, 1, 1, "small"),
    "medium": (3, 3, 1, "medium"),
    "complex": (8, 6, 2, "large"),
}


def _branch(c: ChainState, h: Handoff) -> str:
    """Design 001's conditional branch: the analyzer's numbers (or complexity) size the rest."""
    from agents_state.engine.scoring import size_chain

    a = h.findings
    complexity = str(a.get("complexity", "medium")).lower()
    base = _COMPLEXITY.get(complexity, _COMPLEXITY["medium"])
    keys = ("files", "tasks", "modules", "effort")

    def num(key: str, default: int) -> int:
        v = a.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else default

    f, t, m = num("files", base[0]), num("tasks", base[1]), max(1, num("modules", base[2]))
    eff = a.get("effort") if a.get("effort") in ("small", "medium", "large") else base[3]
    sizing = size_chain(f, t, m, str(eff))
    if complexity == "simple":
        sizing = sizing.__class__(1, "simple", ["the analyzer said simple", *sizing.reasons])
    steps, shape = plan_steps(CHAINS[c.name], sizing, m, c.only, c.submode)
    c.steps[c.current + 1 :] = step_runs(steps, c.models)
    c.sizing.update(
        designed=sizing.count,
        level=sizing.level,
        shape=shape,
        reasons=[f"analyzer: {complexity}", *sizing.reasons],
        inputs=dict(zip(keys, (f, t, m, eff), strict=True)),
        count=sum(s.count for s in c.steps),
    )
    return f" ({complexity}: {shape})"


def _files(h: Handoff) -> list[str]:
    changed = h.findings.get("files_changed") or h.data.get("files_changed") or []
    out = []
    for f in changed if isinstance(changed, list) else []:
        path = f.get("path") if isinstance(f, dict) else f
        if isinstance(path, str):
            out.append(path)
    return out


def _stop(c: ChainState, step: StepRun, h: Handoff) -> str:
    writer = c.index_of("write")
    step.decision = "STOP"
    if step.role == "validate" and writer is not None and writer < c.current:
        failures = list(h.failures or h.issues) or [h.stop_reason]
        if c.writerRetries >= MAX_WRITER_RETRIES:
            _move(c, "respond", "escalate")
            c.escalated = True
            c.blockedReason = (
                f"{step.id} failed after {MAX_WRITER_RETRIES} writer retries: "
                + "; ".join(failures)
            )
            return f"{step.id}: STOP; escalated to the user ({c.blockedReason})"
        c.writerRetries += 1
        c.retry = {"failures": failures, "attempt": c.writerRetries + 1}
        for s in c.steps[writer : c.current + 1]:
            s.status = "pending"
        _dispatch(c, writer)
        _move(c, "respond", "writer_retry")
        return (
            f"{step.id}: STOP; the writer runs again with the failures (retry "
            f"{c.writerRetries} of {MAX_WRITER_RETRIES})"
        )
    _move(c, "respond", "stop")
    c.blockedReason = h.stop_reason
    return f"{step.id}: STOP; chain blocked: {h.stop_reason}"


def _timeout(c: ChainState, e: ChainEvent, ts: str) -> str:
    step = c.step
    assert step is not None
    step.timeouts += 1
    _log(c, ts, "timeout", timeouts=step.timeouts)
    if step.timeouts < MAX_TIMEOUTS:
        _move(c, "timeout", "simplified")
        c.simplified = True
        step.runs += 1
        return f"{step.id}: timed out; it runs once more with a simplified handoff"
    _move(c, "timeout", "timed_out")
    done = [f"{s.id}: {s.summary}" for s in c.steps if s.status == "completed" and s.summary]
    c.blockedReason = (
        f"{step.id} timed out twice (the retry had a simplified handoff); "
        "partial results: " + (" | ".join(done) if done else "none")
    )
    return f"{step.id}: timed out again; chain blocked"


def _answer(c: ChainState, e: ChainEvent, ts: str) -> str:
    assert c.clarify is not None and e.text is not None
    c.answers.append({**c.clarify, "answer": e.text, "answeredAt": ts})
    _log(c, ts, "answer")
    _move(c, "answer")
    c.clarify = None
    _dispatch(c, c.current)
    return "answer recorded; the step runs again with it"


def _retry(c: ChainState, e: ChainEvent, ts: str) -> str:
    _log(c, ts, "retry")
    _move(c, "retry")
    c.blockedReason, c.escalated = None, False
    c.writerRetries, c.simplified = 0, False
    for s in c.steps[c.current :]:
        s.timeouts = 0
    _dispatch(c, c.current)
    step = c.step
    return f"{step.id if step else 'chain'}: runs again"


def _abort(c: ChainState, e: ChainEvent, ts: str) -> str:
    _log(c, ts, "abort")
    _move(c, "abort")
    return f"chain {c.id} aborted; its files are kept"


_OTHER = {"timeout": _timeout, "answer": _answer, "retry": _retry, "abort": _abort}
