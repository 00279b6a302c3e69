"""Apply a sub-agent's decision to the workflow (pure: state in, ``Outcome`` out).

The response lands on a target: a task of phase 2.1 (``--task``, or the response's ``task_id``
when it names one), else the phase named (``--phase``), else the current phase.  A hook recording
one sub-agent's answer passes ``own_task_only``: then a response that names no task of phase 2.1
only lands in the ledger, and the phase completes when the orchestrator records the merged
artifact (issue 14: four explore agents' answers used to complete phases 0, 1.1, 1.2 and 1.3).
Otherwise, through ``engine.apply``:

- PROCEED completes the target (``TaskDone`` / ``PhaseComplete``).
- CLARIFY records the questions (``Clarify``); the next action asks the user, and
  ``resume --answer`` records the answer for the re-run (REQ-2.6).
- STOP from a validator or checker (design 002's QA failure) re-runs the writer with the failures
  as retry context, at most ``MAX_WRITER_RETRIES`` times, then escalates: on a review phase the
  engine sends the work back to the reviewed phase (``PhaseComplete`` with blocking issues); on a
  task the engine schedules the task again (``TaskFail``).
- Any other STOP halts the workflow as ``blocked`` with the reason kept (``Block``, REQ-2.5).

Every recorded response also lands in the handoff ledger (``state.handoffs``: the decision, the
``context_summary`` for the next request, ``tokens_used`` summed per phase, the retry context).
Recording the same response twice changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from agents_state.engine import events as ev
from agents_state.engine.gate import TEST_RUN
from agents_state.engine.ledger import LEDGER, ledger, phase_records, tokens_by_phase
from agents_state.engine.phases import Outcome, apply
from agents_state.errors import NotFoundError, TransitionNotAllowedError
from agents_state.handoff.constants import CHECK_MODES, MAX_WRITER_RETRIES
from agents_state.handoff.reduce import Handoff, digest
from agents_state.models import HandoffLedger, HandoffNote, RetryContext, State
from agents_state.policy import Policy
from agents_state.types import format_time
from agents_state.workflow import TASK_PHASE, PhaseKind, artifact_path, get_phase

__all__ = [
    "LEDGER",
    "MAX_WRITER_RETRIES",
    "Target",
    "digest",
    "ledger",
    "ledger_note",
    "record_handoff",
    "resolve_target",
    "tokens_by_phase",
]

_QA_ROLES = frozenset({"validate", *CHECK_MODES})


@dataclass(frozen=True)
class Target:
    phase: str
    task: str | None = None
    ledger_only: bool = False  # noted for the orchestrator; no transition

    def __str__(self) -> str:
        if self.ledger_only:
            return f"the ledger of phase {self.phase}"
        return f"task {self.task}" if self.task else f"phase {self.phase}"


def _recent_digests(records: list[HandoffNote]) -> set[tuple[str, str]]:
    """(digest, target) recorded since the last STOP: a re-run after a STOP may repeat its
    answer; the same answer noted in the ledger only (from an agent not sent for its task)
    does not stop it from completing the task when its own agent sends it."""
    recent: set[tuple[str, str]] = set()
    for rec in reversed(records):
        if rec.decision == "STOP":
            break
        recent.add((rec.digest, rec.target))
    return recent


def resolve_target(
    state: State,
    h: Handoff,
    task: str | None = None,
    phase: str | None = None,
    *,
    own_task_only: bool = False,
    sender_prompt: str = "",
    sender: str | None = None,
) -> Target:
    tasks = state.phase(TASK_PHASE).tasks or {} if TASK_PHASE in _phase_ids(state) else {}
    if task:
        if task not in tasks:
            raise NotFoundError(
                f"no task '{task}' in phase {TASK_PHASE}"
                + (f"; tasks are {', '.join(tasks)}" if tasks else "")
            )
        return Target(TASK_PHASE, task)
    if phase:
        return Target(phase)
    from agents_state.taskref import names_task

    own = not own_task_only or names_task(sender_prompt, h.task_id or "")
    if own_task_only and sender is not None:  # issue 32: the engine's record, not the prompt
        from agents_state.taskref import owner_of

        held = tasks.get(h.task_id or "")
        own = held is not None and held.owner == owner_of(sender)
    if h.task_id and h.task_id in tasks and own:
        return Target(TASK_PHASE, h.task_id)
    if state.currentPhase is None:
        raise NotFoundError("the workflow has no current phase to record the handoff on")
    return Target(state.currentPhase, ledger_only=own_task_only)


def _phase_ids(state: State) -> set[str]:
    return {pid for stage in state.stages.values() for pid in stage.phases}


def _events(state: State, h: Handoff, t: Target, who: str | None = None) -> list[ev.Event]:
    """``who``: the owner the sender holds its task as (the engine checks it again)."""
    if t.ledger_only:
        return []
    if h.decision == "PROCEED":
        if t.task:
            return [ev.TaskDone(t.task, summary=h.summary, agent=who)]
        if t.phase == TEST_RUN:  # the TEST gate: 3.1 passes on its results, not on a word
            raise TransitionNotAllowedError(
                f"phase {TEST_RUN}",
                state.phase(TEST_RUN).status,
                "complete from a handoff",
                hint=f"phase {TEST_RUN} is recorded with its test results: agents-state phase run "
                f"{TEST_RUN}, or agents-state phase complete {TEST_RUN} --artifact RESULTS.json",
            )
        return [ev.PhaseComplete(t.phase, issues=len(h.issues) or None)]
    if h.decision == "CLARIFY":
        return [ev.Clarify(tuple(h.questions), phase=t.phase, task=t.task)]
    failures = list(h.failures or h.issues) or [h.stop_reason]
    if _is_qa(h):
        if t.task:
            return [ev.TaskFail(t.task, error="QA failed: " + "; ".join(failures), agent=who)]
        if get_phase(t.phase).kind is PhaseKind.REVIEW:
            return [ev.PhaseComplete(t.phase, issues=len(failures), blocking_issues=len(failures))]
    return [ev.Block(h.stop_reason, phase=t.phase, task=t.task)]


def _is_qa(h: Handoff) -> bool:
    return h.kind in ("validator", "checker") or (h.phase in _QA_ROLES)


def record_handoff(
    state: State | None,
    h: Handoff,
    now: datetime,
    *,
    task: str | None = None,
    phase: str | None = None,
    agent: str | None = None,
    policy: Policy | None = None,
    own_task_only: bool = False,
    sender_prompt: str = "",
) -> Outcome:
    """Apply ``h`` to ``state`` and log it in the ledger; for ``Store.commit``.

    ``own_task_only`` (the SubagentStop hook): a response that names no task of phase 2.1, or a
    task its sender does not hold, is only noted in the ledger; it completes, fails or blocks
    nothing (issue 23: one agent's answer completed another's task).  The sender holds a task
    when the engine records it as the task's owner (``agent-<agent>``, issue 32: the record,
    never a prompt's text); without ``agent``, the task its dispatch prompt
    (``sender_prompt``) names."""
    if state is None:
        raise NotFoundError('no workflow: start one with: agents-state dispatch "<task>"')
    if h.decision is None:
        raise NotFoundError(
            "a handoff request has no decision to record; record the sub-agent's response"
        )
    led = ledger(state)
    key = digest(h)
    sender = agent if own_task_only and agent else None  # the host's agent_id (a hook's call)
    t = resolve_target(
        state,
        h,
        task,
        phase,
        own_task_only=own_task_only,
        sender_prompt=sender_prompt,
        sender=sender,
    )
    if (key, str(t)) in _recent_digests(led.records):
        return Outcome(
            state,
            f"this {h.decision} response was already recorded; nothing changed",
            changed=False,
        )
    pol = (policy or Policy())._replace(
        max_per_task=MAX_WRITER_RETRIES,
        review_max_retries={**(policy or Policy()).review_max_retries, t.phase: MAX_WRITER_RETRIES},
    )
    out = Outcome(state, "", changed=False)
    from agents_state.taskref import owner_of

    for event in _events(state, h, t, owner_of(sender) if sender else None):
        out = apply(out.state, event, now, pol)
    new = out.state
    _update_ledger(new, led, h, t, key, agent, now)
    record = {
        **out.record,
        "handoff": {
            "decision": h.decision,
            "digest": key,
            "target": str(t),
            "tokens": h.tokens_used,
        },
    }
    return Outcome(new, _message(new, h, t, out.message), True, record, dict(out.data))


def _update_ledger(
    state: State,
    led: HandoffLedger,
    h: Handoff,
    t: Target,
    key: str,
    agent: str | None,
    now: datetime,
) -> None:
    """Note ``h`` in ``led`` (a fresh copy, ``ledger``) and set it on ``state``."""
    led.records.append(
        HandoffNote(
            at=format_time(now),
            target=str(t),
            phase=t.phase,
            decision=h.decision or "",
            kind=h.kind,
            digest=key,
            task=t.task,
            taskId=h.task_id,
            role=h.phase,
            summary=h.summary,
            tokens=h.tokens_used,
            agent=agent,
        )
    )
    if h.tokens_used:
        led.tokens[t.phase] = led.tokens.get(t.phase, 0) + h.tokens_used
    retry = _retry_context(state, h, t)
    if retry is not None:
        led.retry = retry
    elif _is_qa(h) and not t.ledger_only:  # passed, or retries ran out and the workflow escalated
        led.retry = None
    state.handoffs = led


def _retry_context(state: State, h: Handoff, t: Target) -> RetryContext | None:
    if h.decision != "STOP" or not _is_qa(h) or state.status != "in_progress" or t.ledger_only:
        return None
    failures = list(h.failures or h.issues) or [h.stop_reason]
    if t.task:
        task = (state.phase(TASK_PHASE).tasks or {}).get(t.task)
        if task is None or task.status != "pending":
            return None
        return RetryContext(task=t.task, failures=failures, attempt=task.attempts + 1)
    spec = get_phase(t.phase)
    if spec.kind is not PhaseKind.REVIEW or spec.reviews is None:
        return None
    rounds = state.phase(t.phase).reviewRounds
    return RetryContext(phase=spec.reviews, failures=failures, attempt=rounds + 1)


def _message(state: State, h: Handoff, t: Target, engine_msg: str) -> str:
    head = f"{h.decision} recorded on {t}"
    if h.tokens_used:
        head += f" ({h.tokens_used} tokens used)"
    if t.ledger_only:
        return f"{head}: {ledger_note(state, t.phase)}"
    retry = state.handoffs.retry if state.handoffs else None
    if h.decision == "STOP" and _is_qa(h) and retry is not None and state.status == "in_progress":
        where = f"task {retry.task}" if retry.task else f"phase {retry.phase}"
        return (
            f"{head}: {engine_msg}; re-run the writer for {where} (retry "
            f"{retry.attempt - 1} of {MAX_WRITER_RETRIES}); its request, with the "
            f"failures as retry_context: agents-state handoff new"
        )
    return f"{head}: {engine_msg}" if engine_msg else head


def ledger_note(state: State, phase_id: str) -> str:
    """What an orchestrator needs about the answers gathered for ``phase_id`` so far."""
    n = len(phase_records(state, phase_id))
    return (
        f"{n} handoff(s) noted for phase {phase_id}; the phase completes only when the "
        f"orchestrator records its merged artifact: agents-state phase complete {phase_id} "
        f"--artifact {artifact_path(phase_id)}"
    )
