"""The ``git`` program, run with explicit arguments (``-C`` a directory, never a shell).

Every failure that is not an expected answer (a merge conflict, an unknown ref) becomes one
``GitError`` line naming the command and git's own first line of complaint.

Hardened against the repository (issue 32): a room's agent can write files git reads later
(a worktree's config, ``.gitattributes``), and the engine's git runs outside any room.  So
every call runs no hook (``core.hooksPath=/dev/null``), no fsmonitor, no attributes file but
the tree's own and ``info/attributes`` (``core.attributesFile=/dev/null``,
``GIT_ATTR_NOSYSTEM``), and no driver an attribute could name: git ignores an attribute whose
``filter``/``diff``/``merge`` driver no config defines, so every driver any config layer
defines is blanked on the command line (a filter with no command is no filter; a merge
driver becomes ``false``: that file conflicts, for an agent to resolve, rather than merging
to one side in silence), ``diff`` runs ``--no-ext-diff --no-textconv``, and
``safe.directory`` is reset to the one folder the call works in (docs/decisions.md).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from agents_state.errors import AgentsStateError, ExitCode

__all__ = ["Git", "GitError", "find_repo", "outside_options"]

# the engine's commits must not depend on the user's hooks, signing or editor
_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",
    "GIT_MERGE_AUTOEDIT": "no",
    "LC_ALL": "C",
}
_QUIET = (
    *("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"),
    *("-c", "core.attributesFile=/dev/null", "-c", "diff.external="),
    *("-c", "merge.default=text", "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false"),
    *("-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.sshCommand=false"),
)
# a driver's keys, each given a value that runs nothing of the repository's
_BLANK = {
    "filter": (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")),
    "diff": (("command", ""), ("textconv", ""), ("cachetextconv", "false")),
    "merge": (("driver", "false"), ("recursive", "text")),
}
_DRIVER = re.compile(r"(filter|diff|merge)\.(.+)\.([a-z]+)")
_DIFFS = frozenset({"diff", "log", "show"})


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
    env["GIT_ATTR_NOSYSTEM"] = "1"
    return env


def pinned(cwd: Path) -> tuple[str, ...]:
    """``safe.directory`` reset to ``cwd`` alone (a user's ``*`` elsewhere does not widen it)."""
    return ("-c", "safe.directory=", "-c", f"safe.directory={cwd}")


def blanked(config: str) -> tuple[str, ...]:
    """The ``-c`` options that neutralise every filter, diff and merge driver ``config`` (``git
    config -z --list``) defines."""
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for item in config.split("\0"):
        m = _DRIVER.fullmatch(item.split("\n", 1)[0])
        if m is None or (m[1], m[2]) in seen:
            continue
        seen.add((m[1], m[2]))
        out += [f"{m[1]}.{m[2]}.{key}={value}" for key, value in _BLANK[m[1]]]
    return tuple(w for v in out for w in ("-c", v))


def outside_options(cwd: Path) -> tuple[str, ...]:
    """The ``-c`` options of a git write the hook lets run outside a room in ``cwd`` (the
    committer's ``add``, ``commit``, ``push``): every filter, diff and merge driver any config
    defines blanked, as for the engine's own git (issue 32 item 2), so an attribute names
    nothing that runs.  None when no config defines a driver: the command then starts as the
    user's allow rule for it says (docs/plugin.md).  The user's identity, signing and
    credentials stay: the commit is the user's."""
    return blanked(_config(cwd, _env()))


_COMMITTING = frozenset({"commit", "merge", "commit-tree", "stash"})


def _config(cwd: Path, env: dict[str, str]) -> str:
    """Every config value git sees for ``cwd`` (``git config -z --list``; "" when none)."""
    try:
        out = subprocess.run(
            ["git", *_QUIET, *pinned(cwd), "-C", str(cwd), "config", "-z", "--list"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    except OSError as e:
        raise GitError(["config", "--list"], f"cannot run git: {e.strerror}") from e
    return out.stdout if out.returncode == 0 else ""


def _with_identity(config: str, env: dict[str, str]) -> dict[str, str]:
    """Without any identity (no ``user.email`` in git's config for the folder), the engine's
    commits are signed ``agents-state``."""
    if "GIT_AUTHOR_EMAIL" in env:
        return env
    if any(item.startswith("user.email\n") and item[11:].strip() for item in config.split("\0")):
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
        self._options: tuple[str, ...] = ()

    def env(self) -> dict[str, str]:
        if self._env is None:
            from agents_state.gitwork.confine import check_pointer, engine_worktree

            if engine_worktree(self.cwd):  # never on the word of a file an agent may write
                check_pointer(self.cwd)
            config = _config(self.cwd, self.plain)
            self._options = (*_QUIET, *pinned(self.cwd), *blanked(config))
            self._env = _with_identity(config, self.plain)
        return self._env

    def run(self, *args: str, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
        env = self.env()
        more = ("--no-ext-diff", "--no-textconv") if args[:1] and args[0] in _DIFFS else ()
        argv = ["git", *self._options, "-C", str(self.cwd), *args[:1], *more, *args[1:]]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
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
            ["git", *_QUIET, "-C", str(root), "rev-parse", "--show-toplevel", "--verify", "HEAD"],
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
