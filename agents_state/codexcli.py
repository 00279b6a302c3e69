"""The Codex CLI as a process (issue 37): where it is, its version, its login, one run.

Codex is ``AGENTS_STATE_CODEX`` or ``codex`` on PATH; it can review from 0.154 on.  A run reads
``codex exec --json``'s events as they come, with stdin closed; the process runs in its own
process group, which is ended on a timeout (``codex.timeoutSeconds``) or on an unreachable API
(Codex would wait for the network for ever).  ``codexrun`` is the use case around it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from agents_state.engine.codexreview import MIN_VERSION, Run, parse_version
from agents_state.errors import CodexError

__all__ = [
    "ENV",
    "check_login",
    "codex_binary",
    "codex_version",
    "fallback_text",
    "installed_version",
    "run_codex",
]

ENV = "AGENTS_STATE_CODEX"
_VERSION_TIMEOUT = 20.0


def codex_binary() -> str | None:
    named = os.environ.get(ENV)
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("codex")


def _npm_version(binary: str) -> tuple[int, int, int] | None:
    """The version of an npm install (``.../@openai/codex/bin/codex.js``), read from its
    package.json: ``next`` at a Codex review needs no node process started."""
    import json

    package = Path(os.path.realpath(binary)).parent.parent / "package.json"
    try:
        meta = json.loads(package.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("name") != "@openai/codex":
        return None
    return parse_version(str(meta.get("version") or ""))


@lru_cache(maxsize=4)
def _version_of(binary: str) -> tuple[int, int, int] | None:
    known = _npm_version(binary)
    if known is not None:
        return known
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


def check_login(binary: str, env: dict[str, str], fallback: str) -> None:
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


def run_codex(binary: str, args: list[str], cwd: Path, timeout: int, env: dict[str, str]) -> Run:
    """Run Codex, reading its events as they come; ``None`` error on a clean end.  On timeout
    or a fatal event the whole process group is ended (SIGTERM, then SIGKILL)."""
    import selectors

    from agents_state.commands import end_group

    run = Run()
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(
                [binary, *args],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=True,
                env=env,
            )
        except OSError as e:
            raise CodexError("missing", f"Codex could not be started ({binary}: {e})") from None
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
