"""The ``git`` program, run with explicit arguments (``-C`` a directory, never a shell).

Every failure that is not an expected answer (a merge conflict, an unknown ref) becomes one
``GitError`` line naming the command and git's own first line of complaint.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from agents_state.errors import AgentsStateError, ExitCode

__all__ = ["Git", "GitError", "find_repo"]

# the engine's commits must not depend on the user's hooks, signing or editor
_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",
    "GIT_MERGE_AUTOEDIT": "no",
    "LC_ALL": "C",
}
_QUIET = ("-c", "core.hooksPath=/dev/null", "-c", "commit.gpgSign=false", "-c", "gc.auto=0")


class GitError(AgentsStateError):
    """A git command the engine needed failed (exit 7, like any other I/O failure)."""

    code = "io"
    exit_code = ExitCode.IO

    def __init__(self, args: list[str], detail: str) -> None:
        first = next((ln.strip() for ln in detail.splitlines() if ln.strip()), "no output")
        self.detail = detail
        super().__init__(f"git {' '.join(args[:3])} failed: {first}")


_ID_KEYS = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
_KEPT = (*_ID_KEYS, "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM")


def _env() -> dict[str, str]:
    """The user's environment without git's own variables (a ``GIT_DIR`` of the caller's must
    not redirect the engine); their identity and config-location variables kept."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEPT}
    env.update(_ENV)
    return env


_COMMITTING = frozenset({"commit", "merge", "commit-tree", "stash"})


def _with_identity(cwd: Path, env: dict[str, str]) -> dict[str, str]:
    """Without any identity (no ``user.email`` in git's config for ``cwd``), the engine's
    commits are signed ``agents-state``."""
    if "GIT_AUTHOR_EMAIL" in env:
        return env
    out = subprocess.run(
        ["git", "-C", str(cwd), "config", "--get", "user.email"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if out.returncode == 0 and out.stdout.strip():
        return env
    return {
        **env,
        "GIT_AUTHOR_NAME": "agents-state",
        "GIT_AUTHOR_EMAIL": "agents-state@localhost",
        "GIT_COMMITTER_NAME": "agents-state",
        "GIT_COMMITTER_EMAIL": "agents-state@localhost",
    }


class Git:
    """``git -C <cwd>`` for one working tree."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.plain = _env()
        self._env: dict[str, str] | None = None  # looked up once per instance (one operation)

    def env(self) -> dict[str, str]:
        if self._env is None:
            self._env = _with_identity(self.cwd, self.plain)
        return self._env

    def run(self, *args: str, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
        argv = ["git", *_QUIET, "-C", str(self.cwd), *args]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, env=self.env(), check=False)
        except OSError as e:
            raise GitError(list(args), f"cannot run git: {e.strerror}") from e
        if proc.returncode not in ok:
            raise GitError(list(args), proc.stderr or proc.stdout)
        return proc

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.strip()

    def rev(self, ref: str) -> str | None:
        proc = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", ok=(0, 1))
        return proc.stdout.strip() or None

    def is_ancestor(self, a: str, b: str) -> bool:
        return self.run("merge-base", "--is-ancestor", a, b, ok=(0, 1)).returncode == 0

    def dirty(self) -> bool:
        return bool(self.out("status", "--porcelain", "--untracked-files=all"))

    def git_dir(self) -> Path:
        return Path(self.out("rev-parse", "--absolute-git-dir"))

    def common_dir(self) -> Path:
        d = Path(self.out("rev-parse", "--git-common-dir"))
        return d if d.is_absolute() else (self.cwd / d).resolve()


def find_repo(root: Path) -> Path | None:
    """The top of the work tree holding ``root`` with at least one commit, or None."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel", "--verify", "HEAD"],
            capture_output=True,
            text=True,
            env=_env(),
            check=False,
        )
    except OSError:
        return None
    lines = proc.stdout.split()
    if proc.returncode != 0 or len(lines) < 2:
        return None
    return Path(lines[0])
