"""``agents-state review run`` (issue 37): a review phase done by the Codex CLI, recorded.

``run_codex_review`` is the one use case: check the phase, find Codex, run ``codex exec --json
--output-schema ... -s read-only`` in the folder the review is about (``codexcli``), check the
final message as a review artifact (one retry with the error), complete the phase as ``phase
complete`` would (blocking issues send the work back) and book the usage to the phase as
Codex's, by model.  Every failure is one line (``CodexError``, exit 10) and records nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents_state.codexcli import ENV, check_login, codex_version, fallback_text, run_codex
from agents_state.engine.codexreview import (
    MIN_VERSION,
    REVIEW_SCHEMA,
    Run,
    artifact_from,
    codex_args,
    failure,
    is_codex,
    review_prompt,
    usage_tokens,
)
from agents_state.errors import (
    AgentsStateError,
    CodexError,
    InvalidInputError,
    NotFoundError,
    TransitionNotAllowedError,
    UsageError,
)

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.models import State

__all__ = ["run_codex_review"]


def _review_dir(app: App, state: State, phase_id: str) -> Path:
    """The folder the review is about: the integration worktree after 2.1 under isolation."""
    from agents_state.workflow import PHASE_INDEX, TASK_PHASE

    if state.git is None or PHASE_INDEX[phase_id] <= PHASE_INDEX[TASK_PHASE]:
        return app.root
    from agents_state.engine.worktrees import INTEGRATION_DIR
    from agents_state.gitwork.rooms import work_dir

    return work_dir(app, state.git, INTEGRATION_DIR)


def _check_phase(app: App, phase_id: str) -> tuple[State, str]:
    from agents_state.workflow import REVIEW_PHASES

    if phase_id not in REVIEW_PHASES:
        raise UsageError(
            f"phase {phase_id} is not a review; review run takes {', '.join(REVIEW_PHASES)}"
        )
    state = app.require()
    if state.status != "in_progress" or state.abortedAt:
        raise TransitionNotAllowedError(
            "workflow",
            "aborted" if state.abortedAt else state.status,
            "run a review",
            hint="run: agents-state resume",
        )
    if state.currentPhase != phase_id:
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            state.phase(phase_id).status,
            "run its review",
            hint=f"the current phase is {state.currentPhase}",
        )
    model = app.config.review_for(phase_id).tool
    if not is_codex(model):
        raise UsageError(
            f"phase {phase_id} reviews with {model}, not a codex-* model: dispatch the reviewer "
            "the next action names (agents-state next)"
        )
    return state, model


def _book(app: App, state: State, phase_id: str, runs: list[Run], model: str, t0: str) -> None:
    """Book every attempt's usage to the phase, as one entry of type ``codex`` by model."""
    from agents_state.types import format_time, utcnow
    from agents_state.usage.record import record_codex

    if TYPE_CHECKING:
        from agents_state.usage.book import AgentEntry

    used: dict[str, int] = {}
    for r in runs:
        for k, v in usage_tokens(r.usage).items():
            used[k] = used.get(k, 0) + v
    entry: AgentEntry = {
        "type": "codex",
        "phase": phase_id,
        "phaseBy": "start",
        "task": None,
        "messages": sum(r.messages for r in runs),
        "tokens": {model: used},
        "startedAt": t0,
        "endedAt": format_time(utcnow()),
    }
    raw = state.model_dump(mode="json")
    record_codex(app.root_dir, raw, f"codex-{runs[-1].thread or t0}", entry)


_INLINE_CHARS = 100_000


def _inputs(app: App, names: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The review's inputs: absolute paths of those on disk, and the text of those only the
    store has (a PostgreSQL store keeps artifacts in the database), cut to ``_INLINE_CHARS``."""
    paths, inline = [], []
    for name in names:
        path = app.root / name
        if path.is_file():
            paths.append(str(path))
            continue
        data = app.store.read_artifact(Path(name).name) if name.startswith(".agents/") else None
        if data is not None:
            inline.append((name, data.decode("utf-8", "replace")[:_INLINE_CHARS]))
    return paths, inline


def _write_schema(path: Path) -> None:
    """The schema Codex answers in, for ``--output-schema`` (a temporary file, not state)."""
    import orjson

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(orjson.dumps(REVIEW_SCHEMA))


def run_codex_review(app: App, phase_id: str) -> tuple[Outcome, dict[str, Any]]:
    """Run phase ``phase_id``'s review with Codex and record it; (outcome, what ran)."""
    from agents_state.engine.decision import reads
    from agents_state.types import format_time, utcnow
    from agents_state.verbs.completing import complete_phase
    from agents_state.workflow import artifact_path, get_phase

    state, alias = _check_phase(app, phase_id)
    write = artifact_path(phase_id)
    fallback = fallback_text(phase_id, write)
    found = codex_version()
    if found is None:
        raise CodexError(
            "missing",
            f"Codex (>= {'.'.join(map(str, MIN_VERSION))}) is not installed (npm install -g "
            f"@openai/codex, or set {ENV}); nothing was recorded. {fallback}",
        )
    binary = found[0]
    env = dict(os.environ)
    check_login(binary, env, fallback)
    spec = get_phase(phase_id)
    model, effort = app.config.codex.alias(alias)
    where = _review_dir(app, state, phase_id)
    if not where.is_dir():
        raise NotFoundError(
            f"the folder phase {phase_id} reviews is missing: {where} (agents-state doctor "
            "finds what happened to the worktrees)"
        )
    read, inline = _inputs(app, reads(state, spec))
    severity = app.config.review_for(phase_id).blockingSeverity
    reviewer = f"codex {alias} ({model or 'default model'}, effort {effort})"
    shown = f"Codex's answer for phase {phase_id}"
    timeout = app.config.codex.timeoutSeconds
    t0 = format_time(utcnow())
    problem: str | None = None
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="agents-state-codex-") as tmp:
        schema = Path(tmp) / "review.schema.json"
        _write_schema(schema)
        for _attempt in range(2):
            prompt = review_prompt(
                phase=phase_id,
                title=spec.name,
                instructions=spec.instructions,
                task=state.task,
                reads=read,
                where=str(where),
                severity=severity,
                inline=inline,
                retry_error=problem,
            )
            args = codex_args(str(schema), model, effort, prompt)
            try:
                run = run_codex(binary, args, where, timeout, env)
            except CodexError as e:
                raise CodexError(e.kind, f"{e.message}; nothing was recorded. {fallback}") from None
            if run.error is not None and run.message is None:
                raise failure(run.error, fallback)
            runs.append(run)
            try:
                data = artifact_from(run.message, reviewer, shown)
            except InvalidInputError as e:
                problem = e.message.removeprefix(f"{shown}: ")
                continue
            out = complete_phase(app, phase_id, data, f"{shown} ({write})")
            ran = {"model": model, "alias": alias, "effort": effort, "cwd": str(where)}
            try:  # the review is recorded: a book that cannot be written does not undo it
                _book(app, state, phase_id, runs, model or alias, t0)
            except (OSError, AgentsStateError) as e:
                return out, {**ran, "attempts": len(runs), "usageNotBooked": str(e)}
            return out, {**ran, "attempts": len(runs)}
    raise CodexError(
        "schema",
        f"Codex's answer did not match the review schema twice ({problem}); nothing was "
        f"recorded. {fallback}",
    )
