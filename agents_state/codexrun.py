"""``agents-state review run`` (issue 37): a review phase done by the Codex CLI, recorded.

``run_codex_review`` is the one use case: check the phase, find Codex (``AGENTS_STATE_CODEX`` or
``codex`` on PATH, >= 0.154), run ``codex exec --json --output-schema ... -s read-only`` in the
folder the review is about with stdin closed, read its events as they come, check the final
message as a review artifact (one retry with the error), book the usage to the phase as Codex's
and complete the phase as ``phase complete`` would.  Every failure is one line (``CodexError``,
exit 9) and records nothing.  The process runs in its own process group, which is ended on a
timeout (``codex.timeoutSeconds``) or on an unreachable API (Codex would wait for ever).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents_state.engine.codexreview import (
    MIN_VERSION,
    REVIEW_SCHEMA,
    Run,
    artifact_from,
    codex_args,
    failure,
    is_codex,
    parse_version,
    review_prompt,
    usage_tokens,
)
from agents_state.errors import CodexError, InvalidInputError, TransitionNotAllowedError, UsageError

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.models import State

__all__ = [
    "codex_binary",
    "codex_version",
    "fallback_text",
    "installed_version",
    "run_codex_review",
]

ENV = "AGENTS_STATE_CODEX"
_VERSION_TIMEOUT = 20.0


def codex_binary() -> str | None:
    named = os.environ.get(ENV)
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("codex")


@lru_cache(maxsize=4)
def _version_of(binary: str) -> tuple[int, int, int] | None:
    try:
        done = subprocess.run(
            [binary, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_VERSION_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_version(done.stdout.decode("utf-8", "replace")) if done.returncode == 0 else None


def codex_version() -> tuple[str, tuple[int, int, int]] | None:
    """(binary, version) of the Codex CLI when one that can run reviews is installed."""
    binary = codex_binary()
    if binary is None:
        return None
    version = _version_of(binary)
    return (binary, version) if version is not None and version >= MIN_VERSION else None


def installed_version() -> str | None:
    """The installed Codex CLI's version when it can run reviews (the next action's test)."""
    found = codex_version()
    return ".".join(map(str, found[1])) if found else None


def fallback_text(phase_id: str, write: str) -> str:
    from agents_state.engine.agents import SUBAGENT_TYPES
    from agents_state.engine.fallback import FALLBACK_AGENT_MODEL

    return (
        f"Fallback: dispatch {SUBAGENT_TYPES['reviewer']} with Agent model "
        f'"{FALLBACK_AGENT_MODEL}" for this review, write its review to {write}, then run: '
        f"agents-state phase complete {phase_id} --artifact {write}"
    )


def _needs_login(env: dict[str, str]) -> bool:
    """Whether Codex talks to OpenAI with its own login: no other provider in CODEX_HOME's
    config.toml and no API key in the environment."""
    if env.get("OPENAI_API_KEY") or env.get("CODEX_API_KEY"):
        return False
    home = Path(env.get("CODEX_HOME") or Path(env.get("HOME", "~")).expanduser() / ".codex")
    try:
        import tomllib

        conf = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        conf = {}
    return bool(conf.get("model_provider", "openai") == "openai")


def _check_login(binary: str, env: dict[str, str], fallback: str) -> None:
    if not _needs_login(env):
        return
    try:
        done = subprocess.run(
            [binary, "login", "status"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_VERSION_TIMEOUT,
            check=False,
            env=env,
        )
    except (OSError, subprocess.SubprocessError) as e:
        raise CodexError("login", f"codex login status failed: {e}; {fallback}") from None
    if done.returncode != 0:
        said = (done.stdout + done.stderr).decode("utf-8", "replace").strip().splitlines()
        raise CodexError(
            "login",
            "Codex is not logged in (codex login status: "
            f"{said[-1] if said else 'failed'}); log in with: "
            f"codex login, or set OPENAI_API_KEY; nothing was recorded. {fallback}",
        )


def _run(binary: str, args: list[str], cwd: Path, timeout: int, env: dict[str, str]) -> Run:
    """Run Codex, reading its events as they come; ``None`` error on a clean end.  On timeout
    or a fatal event the whole process group is ended (SIGTERM, then SIGKILL)."""
    import selectors

    from agents_state.commands import end_group

    run = Run()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [binary, *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
            env=env,
        )
        assert proc.stdout is not None
        deadline, buf, timed_out = time.monotonic() + timeout, b"", False
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while not run.fatal:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                if not sel.select(min(left, 0.5)):
                    if proc.poll() is not None:
                        break  # exited; a child it left may hold the pipe
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    if line.strip():
                        run.feed(line)
        if buf.strip():
            run.feed(buf)
        end_group(proc)
        proc.stdout.close()
        if timed_out:
            raise CodexError("timeout", f"Codex did not finish within {timeout}s")
        err.seek(0)
        tail = err.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
    if run.error is None and run.message is None and proc.returncode:
        run.error = (tail[-1] if tail else "") or f"codex exited with {proc.returncode}"
    return run


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

    used: dict[str, int] = {}
    for r in runs:
        for k, v in usage_tokens(r.usage).items():
            used[k] = used.get(k, 0) + v
    entry = {
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


def run_codex_review(app: App, phase_id: str) -> tuple[Outcome, dict[str, Any]]:
    """Run phase ``phase_id``'s review with Codex and record it; (outcome, what ran)."""
    from agents_state.engine.decision import reads
    from agents_state.types import format_time, utcnow
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
    _check_login(binary, env, fallback)
    spec = get_phase(phase_id)
    model, effort = app.config.codex.alias(alias)
    where = _review_dir(app, state, phase_id)
    read = [str(app.root / r) for r in reads(state, spec)]
    severity = app.config.review_for(phase_id).blockingSeverity
    reviewer = f"codex {alias} ({model or 'default model'}, effort {effort})"
    shown = f"Codex's answer for phase {phase_id}"
    timeout = app.config.codex.timeoutSeconds
    t0 = format_time(utcnow())
    problem: str | None = None
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="agents-state-codex-") as tmp:
        schema = Path(tmp) / "review.schema.json"
        import orjson

        schema.write_bytes(orjson.dumps(REVIEW_SCHEMA))
        for _attempt in range(2):
            prompt = review_prompt(
                phase=phase_id,
                title=spec.name,
                instructions=spec.instructions,
                task=state.task,
                reads=read,
                where=str(where),
                severity=severity,
                retry_error=problem,
            )
            args = codex_args(str(schema), model, effort, prompt)
            try:
                run = _run(binary, args, where, timeout, env)
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
            out = app.complete_phase(phase_id, data, f"{shown} ({write})")
            _book(app, state, phase_id, runs, model or alias, t0)
            ran = {"model": model, "alias": alias, "effort": effort, "cwd": str(where)}
            return out, {**ran, "attempts": len(runs)}
    raise CodexError(
        "schema",
        f"Codex's answer did not match the review schema twice ({problem}); nothing was "
        f"recorded. {fallback}",
    )
