"""What later phases, ``context`` and the final status must know (pure: returns text).

Answers to questions, skipped tasks, task summaries and results, failing tests accepted by a
person, and each stage's outcome.  ``derived_files`` lists the files the shell writes when a
transition makes them due: the task summary when phase 2.1 finishes, and
``.agents/phases/{stage}-output.md`` at each stage boundary (design 004, compaction step 1).
"""

from __future__ import annotations

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

TASK_SUMMARY = "2.1-summary.md"


def output_key(stage: str) -> str:
    return f"{stage.lower()}Output"


def task_counts(state: State) -> dict[str, int]:
    tasks = state.phase(TASK_PHASE).tasks or {}
    out: dict[str, int] = {}
    for t in tasks.values():
        out[t.status] = out.get(t.status, 0) + 1
    return out


def _tests(state: State) -> str:
    run = state.phase(TEST_RUN)
    if run.passed is True:
        return "passed"
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
    """Files due now: artifacts whose ``state.files`` key this transition added."""
    old = before.files if before is not None else {}
    out: dict[str, bytes] = {}
    if "taskSummary" in after.files and "taskSummary" not in old:
        out[TASK_SUMMARY] = task_summary(after).encode()
    for stage in STAGES:
        key = output_key(stage)
        if key in after.files and key not in old:
            out[f"{stage}-output.md"] = stage_output(after, stage).encode()
    return out
