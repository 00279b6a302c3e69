"""What later phases, ``context`` and the final status must know, in words (issue 35: the
engine names the files due, ``engine.outcomes``; this makes their bytes).

Answers to questions, skipped tasks, task summaries and results, failing tests accepted by a
person, and each stage's outcome: the task summary when phase 2.1 finishes, and
``.agents/phases/{stage}-output.md`` at each stage boundary (design 004, compaction step 1).
"""

from __future__ import annotations

from agents_state.engine.outcomes import TASK_SUMMARY, due_files, output_key, task_counts
from agents_state.models import State
from agents_state.safetext import escape
from agents_state.workflow import STAGES, TASK_PHASE, TEST_RUN, get_phase, phases_of

__all__ = [
    "TASK_SUMMARY",
    "derived_files",
    "final_summary",
    "output_key",
    "stage_output",
    "task_counts",
    "task_summary",
]


def _tests(state: State) -> str:
    run = state.phase(TEST_RUN)
    if run.passed is True:  # without TEST commands the model's report says so (issue 33)
        return "passed (the model's report, no TEST commands)" if run.reported else "passed"
    if run.passed is False:
        return "FAILING, accepted by the user" if run.skippedByUser else "FAILING"
    if run.status in ("completed", "skipped"):
        return run.status
    return "not run"


def final_summary(state: State) -> str:
    counts = task_counts(state)
    total = sum(counts.values())
    parts = []
    if total:
        bits = [
            f"{counts.get(s, 0)} {s}" for s in ("completed", "skipped", "failed") if counts.get(s)
        ]
        skipped = [
            t for t, s in (state.phase(TASK_PHASE).tasks or {}).items() if s.status == "skipped"
        ]
        parts.append(
            f"Tasks: {', '.join(bits)} of {total}"
            + (f" (skipped: {', '.join(skipped[:10])})" if skipped else "")
            + "."
        )
    parts.append(f"Tests: {_tests(state)}.")
    by_user = [p.id for st in STAGES for p in phases_of(st) if state.phase(p.id).skippedByUser]
    if by_user:
        parts.append(f"Skipped by the user: phase {', '.join(by_user)}.")
    answers = [c for c in state.clarifications if c.answer]
    if answers:
        parts.append(f"{len(answers)} answer(s) from the user.")
    return " ".join(parts)


def task_summary(state: State) -> str:
    lines = ["# Phase 2.1: task results", ""]
    for tid, t in (state.phase(TASK_PHASE).tasks or {}).items():
        line = f"- {escape(tid)} [{t.status}] {escape(t.title)}"
        if t.summary:
            line += f": {escape(t.summary)}"
        if t.result:
            line += f" (result: {escape(t.result)})"
        if t.status in ("skipped", "failed") and t.lastError:
            line += f" (last error: {escape(t.lastError)})"
        lines.append(line)
    return "\n".join(lines) + "\n"


def stage_output(state: State, stage: str) -> str:
    lines = [f"# Stage {stage}: output", "", f"Task: {escape(state.task)}", ""]
    for p in phases_of(stage):
        ph = state.phase(p.id)
        extra = f", {ph.issues} issue(s)" if ph.issues is not None else ""
        if ph.skippedByUser:
            extra += ", skipped by the user"
        art = state.files.get(p.file_key)
        lines.append(
            f"- phase {p.id} {p.name}: {ph.status}{extra}" + (f"; artifact {art}" if art else "")
        )
    if stage == "IMPLEMENT" and state.phase(TASK_PHASE).tasks:
        lines.append(f"- tasks: see .agents/phases/{TASK_SUMMARY}")
    if stage == "TEST":
        lines.append(f"- tests: {_tests(state)}")
    answers = [
        c
        for c in state.clarifications
        if c.answer and c.phase and get_phase(c.phase).stage == stage
    ]
    for c in answers:
        lines.append(f"- the user answered ({escape(' | '.join(c.questions))}): {escape(c.answer)}")
    return "\n".join(lines) + "\n"


def derived_files(before: State | None, after: State) -> dict[str, bytes]:
    """The files this transition made due (``engine.outcomes.due_files``), with their bytes."""
    return {
        name: (task_summary(after) if stage is None else stage_output(after, stage)).encode()
        for name, stage in due_files(before, after).items()
    }
