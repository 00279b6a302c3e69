"""Restricted shells run contained: the Bash of a profile that keeps agents off credentials runs
inside bubblewrap (issue 23; docs/decisions.md).

The PreToolUse hook first judges the command line (``bashguard``: the fast answer and the clear
message).  A command it lets through is then rewritten to run in a room built here, and the
rewrite carries no permission decision: the user's own approval still applies to what runs.  The
room:

- sees the file system read-only, with every credential file of the project and the home
  directory (the catalogue, ``credentials.py``) masked: a file reads as empty (``/dev/null``), a
  folder as an empty read-only folder; hard links to a credential file in the project too;
- writes only to the project (or, when the call runs in a task's own worktree under
  ``.claude/worktrees/``, to that worktree and the repository's ``.git``; a task agent under
  the engine's isolation, to its own ``.agents/worktrees/<id>`` and the ``.git``) and a
  private ``/tmp``;
  never to ``.git/hooks``, ``.git/config`` or ``.claude/`` (code there runs later, outside);
  a ``.git/config`` with a token in a URL is shown with the token taken out;
- has no network unless the profile grants it, no sockets under ``/run`` (docker, the
  database, ssh and gpg agents, D-Bus), no view of other processes (a new PID namespace with
  its own ``/proc``), no capabilities, and an environment cleared down to ``KEEP_ENV`` (API keys
  and tokens stay outside).

Where bubblewrap is missing, or fails a one-time probe, the call is denied with one line saying
what to install: such profiles fail closed.
"""

from __future__ import annotations

import os
import sys

from agents_state.hooks.engine_steps import SUBAGENT_STEPS
from agents_state.hooks.room import (
    Room,
    bwrap_args,
    kept_env,
    sanitized_git_config,
    shell_command,
)
from agents_state.hooks.secretscan import cache_dir, find_secrets, write_cache
from agents_state.hooks.walk import WalkCapError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ENGINE_STEPS",
    "Rewrite",
    "contain",
    "probe",
    "rewrite_output",
    "room_for",
    "runs_outside",
    "unavailable",
]

INSTALL = "apt-get install bubblewrap"
_PROBE_FILE = "bwrap-probe"


class Rewrite:
    """The hook's answer for a contained call: run ``command`` instead (no permission decision)."""

    __slots__ = ("command",)

    def __init__(self, command: str) -> None:
        self.command = command


# -- what the room hides and protects (reads the file system) ------------------------------------


def room_for(root: str, cwd: str, home: str, network: bool, own: str | None = None) -> Room:
    """The room of a call in ``cwd`` of the project ``root`` (both real paths); ``own`` is a
    task agent's own worktree under the engine's isolation, its only writable folder ("" for
    none: its task cannot be told; issue 22)."""
    writable = root
    worktrees = f"{root}/.claude/worktrees/"
    if own is not None:
        writable = own
    elif cwd.startswith(worktrees):
        writable = worktrees + cwd[len(worktrees) :].split("/", 1)[0]
    git_dir, git_config = None, None
    protect = [f"{writable}/.claude"] if writable else []  # settings there run hooks later
    dot_git = f"{root}/.git"
    if os.path.isdir(dot_git) and not os.path.islink(dot_git):
        git_dir = dot_git
        protect += [f"{dot_git}/hooks", f"{dot_git}/config"]
        for sub in ("modules", "worktrees"):  # their own hooks and config
            try:
                names = sorted(os.listdir(f"{dot_git}/{sub}"))
            except OSError:
                continue
            for name in names:
                protect += [
                    p
                    for p in (f"{dot_git}/{sub}/{name}/{f}" for f in ("hooks", "config"))
                    if os.path.lexists(p)
                ]
        git_config = _git_config(f"{dot_git}/config")
    elif os.path.lexists(dot_git):
        protect.append(dot_git)  # a worktree's pointer to its git directory
    if writable and writable != root and os.path.lexists(f"{writable}/.git"):
        protect.append(f"{writable}/.git")
    if own and git_dir:
        from agents_state.hooks.ownroom import others_git

        protect += others_git(git_dir, own)
    masks = find_secrets(root, home)
    rooms = (writable,) if writable and os.path.isdir(writable) else ()
    return Room(rooms, tuple(masks), tuple(protect), network, git_dir, git_config)


def _git_config(path: str) -> str | None:
    """A copy of the git configuration at ``path`` without its tokens (in the cache folder,
    named by its content), ``None`` when it holds none, ``/dev/null`` when no copy can be
    written (git then runs with an empty configuration)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = sanitized_git_config(f.read(1_000_000))
    except OSError:
        return None
    if text is None:
        return None
    import hashlib

    data = text.encode("utf-8", "surrogateescape") + b"\n"
    copy = os.path.join(cache_dir(), f"gitconfig-{hashlib.sha256(data).hexdigest()[:32]}")
    if os.path.isfile(copy) or write_cache(copy, data):
        return copy
    return "/dev/null"


# -- can a room be built here: the one-time probe -------------------------------------------------


def find_bwrap() -> str | None:
    for folder in ("/usr/bin", "/bin", "/usr/local/bin", *os.get_exec_path()):
        path = os.path.join(folder, "bwrap")
        if os.path.isabs(path) and os.access(path, os.X_OK):
            return path
    return None


def unavailable(why: str, profile: str) -> str:
    """The one-line denial where no room can be built."""
    fix = (
        f"install it ({INSTALL}) and retry"
        if sys.platform.startswith("linux")
        else "contained Bash needs Linux with bubblewrap (docs/decisions.md)"
    )
    return (
        f"agents-state: the {profile} profile runs Bash only inside a sandbox (bubblewrap), "
        f"and {why}: {fix}; until then use Read, Grep and Glob, or finish with decision "
        "CLARIFY and say so."
    )


def _cache_file() -> str:
    return os.path.join(cache_dir(), _PROBE_FILE)


def probe(bwrap: str) -> str | None:
    """``None`` when bubblewrap can build a room here, else why not.  A success is remembered
    per bubblewrap binary and kernel (a stale success only makes the command itself fail)."""
    try:
        st = os.stat(bwrap)
    except OSError as e:
        return f"{bwrap} cannot be run ({e.strerror})"
    key = f"{bwrap} {st.st_ino} {st.st_mtime_ns} {st.st_size} {os.uname().release}\n"
    cache = _cache_file()
    try:
        with open(cache, encoding="utf-8") as f:
            if f.read() == key:
                return None
    except OSError:
        pass
    import subprocess  # only on a first call

    room = Room((), (), (), False)
    try:
        proc = subprocess.run(
            [bwrap, *bwrap_args(room), "--", "/bin/sh", "-c", "exit 0"],
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap failed to start ({e})"
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap cannot build one here ({said[-1] if said else proc.returncode})"
    write_cache(cache, key.encode("utf-8", "surrogateescape"))  # else: probe again next time
    return None


# -- the hook's entry -----------------------------------------------------------------------------


# the engine's bookkeeping a sub-agent may run (as hooks.permission approves them): the plugin's
# own program, which needs the workflow's store (a server's URL and network included)
ENGINE_STEPS = SUBAGENT_STEPS


def runs_outside(command: str, git_write: bool) -> bool:
    """Whether ``command`` runs outside the room: one engine step (``agents-state task ...``),
    or, for the committer, calls that are all a ``git push`` or a ``gh pr`` (its remote steps,
    judged option by option by ``hooks.gitwrite``, which need the network and the user's
    credentials)."""
    from agents_state.hooks.bashguard import _git_rest
    from agents_state.hooks.shellwords import Unjudgeable, parse

    try:
        commands = parse(command)
    except Unjudgeable:
        return False
    argvs = [[w.text for w in simple.words] for simple in commands if not simple.redirects]
    if not commands or len(argvs) != len(commands) or not all(argvs):
        return False
    if any(w.expands for simple in commands for w in simple.words):
        return False  # bash would pass other words than the judged ones (issue 32)
    if len(argvs) == 1 and argvs[0][0] == "agents-state" and argvs[0][1:2]:
        return argvs[0][1] in ENGINE_STEPS
    return git_write and all(
        (argv[0] == "git" and _git_rest(argv)[:1] == ["push"]) or argv[:2] == ["gh", "pr"]
        for argv in argvs
    )


def contain(
    profile: Any, root: str, cwd: str, tool_input: dict[str, Any], own: str | None = None
) -> Rewrite | str | None:
    """The rewrite of an allowed Bash call of ``profile`` (a contained one), the one-line denial
    when no room can be built, or ``None`` for what runs outside (``runs_outside``;
    docs/decisions.md, issue 23).  ``own``: a task agent's own worktree, the one folder it may
    write ("" none; issue 22)."""
    if runs_outside(tool_input["command"], bool(profile.git_write)):
        return None
    bwrap = find_bwrap()
    if bwrap is None:
        return unavailable("bubblewrap (bwrap) is not installed", profile.name)
    why = probe(bwrap)
    if why:
        return unavailable(why, profile.name)
    home = os.path.realpath(os.path.expanduser("~"))
    try:
        room = room_for(root, cwd, home, bool(getattr(profile, "network", False)), own)
    except WalkCapError as e:
        why = "the project could not be listed in time" if e.timed_out else str(e)
        return (
            f"agents-state: the {profile.name} profile runs Bash in a sandbox that hides the "
            f"project's credential files, and {why}, so they cannot all be found; denied."
        )
    return Rewrite(shell_command(bwrap, room, tool_input["command"], kept_env(os.environ)))


def rewrite_output(tool_input: dict[str, Any], command: str) -> dict[str, object]:
    """The hook's answer: the same call with the contained command, and no permission decision
    (the user's approval still applies to what runs: the rewrite contains, it never grants)."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {**tool_input, "command": command},
        }
    }
