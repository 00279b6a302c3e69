"""Every agent's shell runs contained: the Bash of every profile but ``orchestrator`` /
``full-access`` runs inside bubblewrap (issues 23 and 32; docs/decisions.md).

For a profile that keeps agents off credentials the PreToolUse hook first judges the command
line (``bashguard``: the fast answer and the clear message); a writer's is not judged.  A
command let through is rewritten to run in a room built here, and the rewrite carries no
permission decision: the user's own approval still applies to what runs.  The room:

- sees the file system read-only; for the guarded profiles every credential file of the
  project (the catalogue, ``credentials.py``) masked, a file as empty (``/dev/null``), a folder
  as an empty read-only folder, and every project file with another name outside it;
- writes only to the project (or, when the call runs in a task's own worktree under
  ``.claude/worktrees/``, to that worktree; a task agent under the engine's isolation, to its
  own ``.agents/worktrees/<id>``) and a private ``/tmp``; never to ``.git`` (all of it, a
  worktree's or a submodule's ``.git`` too), ``.agents/`` or ``.claude/``: what git, the engine
  and the host read later, outside; a ``.git/config`` with a token in a URL is shown without it;
- has an empty private home with an allowlist shown in it (``homeroom``), no network unless the
  profile grants it (writers keep it), no sockets under ``/run``, no unix socket anywhere and no
  new user or mount namespace (the system call filter, ``seccomp``), no view of other processes,
  no capabilities, and an environment cleared down to ``KEEP_ENV``.

The committer's git writes and ``gh pr`` run outside, rewritten to a hardened git
(``outside_command``); one engine step runs outside as it is.  Where bubblewrap is missing, or
fails a one-time probe, the call is denied with one line saying what to install: these
profiles fail closed.
"""

from __future__ import annotations

import os
import sys

from agents_state.hooks.engine_steps import SUBAGENT_STEPS
from agents_state.hooks.homeroom import git_config_copy, private_home
from agents_state.hooks.room import Room, bwrap_args, kept_env, quote, shell_command
from agents_state.hooks.seccomp import filter_file
from agents_state.hooks.secretscan import cache_dir, find_secrets, write_cache
from agents_state.hooks.walk import WalkCapError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ENGINE_STEPS",
    "Rewrite",
    "contain",
    "outside_command",
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


def room_for(
    root: str, cwd: str, home: str, network: bool, own: str | None = None, scan: bool = True
) -> Room:
    """The room of a call in ``cwd`` of the project ``root`` (both real paths); ``own`` is a
    task agent's own worktree under the engine's isolation, its only writable folder ("" for
    none: its task cannot be told; issue 22); ``scan``: mask the credential files found
    (profiles that keep agents off them)."""
    writable = root
    worktrees = f"{root}/.claude/worktrees/"
    if own is not None:
        writable = own
    elif cwd.startswith(worktrees):
        writable = worktrees + cwd[len(worktrees) :].split("/", 1)[0]
    # what git, the engine and the host trust later, outside any room: read-only, all of it
    # (a linked worktree's .git pointer file too); a missing one an empty read-only folder
    protect = [f"{writable}/{name}" for name in (".git", ".agents", ".claude")] if writable else []
    if writable:  # a submodule's .git: the user's git status looks into it (hooks.gitlinks)
        from agents_state.hooks.gitlinks import submodule_dirs

        protect += [f"{folder}/.git" for folder in submodule_dirs(writable)]
    common = _common_dir(root)
    git_config = git_config_copy(f"{common}/config") if common else None
    if git_config is not None:
        protect.append(f"{common}/config")  # shown without its tokens
    hidden, binds = private_home(home, os.environ)
    shown = [root, *(place for _, place in binds)]
    found = find_secrets(root, home) if scan else []
    masks = [m for m in found if not _under(m, hidden) or _under(m, shown)]
    rooms = (writable,) if writable and os.path.isdir(writable) else ()
    return Room(
        rooms,
        tuple(masks),
        tuple(protect),
        network,
        common,
        git_config,
        hidden,
        binds,
        (root,) if _under(root, list(hidden)) else (),
        filter_file(f"{root}/.agents"),  # the host reads input only from the project's files
    )


def _under(path: str, folders: list[str] | tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _common_dir(root: str) -> str | None:
    """The repository's shared git folder (its ``config`` holds the remote's URL): ``.git``,
    or, in a linked worktree, what its pointer file's folder names as ``commondir``."""
    dot = f"{root}/.git"
    if os.path.isdir(dot):
        return os.path.realpath(dot)
    try:
        with open(dot, encoding="utf-8") as f:
            line = f.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir: "):
        return None
    gitdir = os.path.realpath(os.path.join(root, line.removeprefix("gitdir: ")))
    try:
        with open(f"{gitdir}/commondir", encoding="utf-8") as f:
            common = os.path.realpath(os.path.join(gitdir, f.read(4096).strip()))
    except (OSError, UnicodeDecodeError):
        common = gitdir
    return common if os.path.isdir(common) else None


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
    seccomp = filter_file()
    if seccomp is None:
        return f"there is no system call filter for this machine ({os.uname().machine})"
    key = f"{bwrap} {st.st_ino} {st.st_mtime_ns} {st.st_size} {os.uname().release} {seccomp}\n"
    cache = _cache_file()
    try:
        with open(cache, encoding="utf-8") as f:
            if f.read() == key:
                return None
    except OSError:
        pass
    import subprocess  # only on a first call

    # every kind of option a room uses: a hidden folder with a file shown in it, the filter
    scratch = os.path.dirname(seccomp)
    room = Room((), (), (), False, hidden=(scratch,), binds=((seccomp, seccomp),), seccomp=seccomp)
    args = bwrap_args(room)
    try:
        with open(seccomp, "rb") as f:
            args[args.index("--seccomp") + 1] = str(f.fileno())
            proc = subprocess.run(
                [bwrap, *args, "--", "/bin/sh", "-c", "exit 0"],
                capture_output=True,
                timeout=5,
                check=False,
                pass_fds=(f.fileno(),),
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


# the committer's git, run outside the room: nothing the repository or its worktree says may
# run a program (no hooks, no file-system monitor; the configuration itself is read-only in
# every room, docs/decisions.md "Sealed rooms")
HARDENED_GIT = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
)


def runs_outside(command: str, git_write: bool) -> bool:
    """Whether ``command`` runs outside the room (``outside_command``)."""
    return outside_command(command, git_write, None) is not None


def outside_command(command: str, git_write: bool, cwd: str | None) -> str | None:
    """What runs instead of ``command`` outside the room, or ``None`` when it runs inside: one
    engine step (``agents-state task ...``, unchanged), or, for the committer, calls that are
    all git writes (``hooks.gitwrite``: switch, branch, add, commit, push) or ``gh pr``, judged
    option by option by ``bashguard`` first, which need the repository's ``.git`` (read-only in
    every room), the network and the user's credentials.  Their git runs with ``HARDENED_GIT``,
    every word literal, joined by ``&&``, and every driver of git's config for the folder it
    runs in (``cwd`` and its ``-C``s) blanked (``gitwork.git.outside_options``; with ``cwd``
    ``None`` only whether it runs outside is answered)."""
    if "agents-state" not in command and not (git_write and ("git" in command or "gh" in command)):
        return None  # nothing to run outside: no parser to load (a writer's every call)
    from agents_state.hooks.bashguard import _git_rest
    from agents_state.hooks.gitwrite import GIT_WRITES
    from agents_state.hooks.shellwords import Unjudgeable, parse

    try:
        commands = parse(command)
    except Unjudgeable:
        return None
    argvs = [[w.text for w in simple.words] for simple in commands if not simple.redirects]
    if not commands or len(argvs) != len(commands) or not all(argvs):
        return None
    if any(w.expands for simple in commands for w in simple.words):
        return None  # bash would pass other words than the judged ones (issue 32)
    if len(argvs) == 1 and argvs[0][0] == "agents-state" and argvs[0][1:2]:
        return command if argvs[0][1] in ENGINE_STEPS else None
    literal = all(  # no word bash would expand (a tilde where bash expands one included)
        not w.globbed and not w.assignment and not w.text.startswith("~")
        for simple in commands
        for w in simple.words
    ) and not any(t in command for t in ("=~", ":~"))
    if not git_write or not literal:
        return None
    if all(argv[:2] == ["gh", "pr"] for argv in argvs):
        return command  # no git: as it is
    out = []
    for argv in argvs:
        if argv[0] == "git" and _git_rest(argv)[:1] and _git_rest(argv)[0] in GIT_WRITES:
            drivers = _drivers(cwd, argv) if cwd is not None else ()
            out.append(" ".join(quote(w) for w in ("git", *HARDENED_GIT, *drivers, *argv[1:])))
        elif argv[:2] == ["gh", "pr"]:
            out.append(" ".join(quote(w) for w in argv))
        else:
            return None
    return " && ".join(out)


def _drivers(cwd: str, argv: list[str]) -> tuple[str, ...]:
    """``outside_options`` for the folder ``argv`` (a git call) works in: ``cwd`` and its
    global ``-C`` folders (the only global options ``bashguard`` lets through)."""
    from pathlib import Path

    from agents_state.gitwork.git import outside_options

    folder, rest = Path(cwd), argv[1:]
    while rest[:1] in (["-C"], ["--no-pager"]):
        if rest[0] == "-C" and len(rest) > 1:
            folder, rest = folder / rest[1], rest[2:]
        else:
            rest = rest[1:]
    return outside_options(folder)


def contain(
    profile: Any, root: str, cwd: str, tool_input: dict[str, Any], own: str | None = None
) -> Rewrite | str | None:
    """The rewrite of an allowed Bash call of ``profile`` (a contained one), the one-line denial
    when no room can be built, or ``None`` for an engine step, which runs outside as it is
    (``outside_command``; docs/decisions.md, issues 23 and 32).  ``own``: a task agent's own
    worktree, the one folder it may write ("" none; issue 22).  A profile that keeps agents off
    credentials gets them masked and the network only when granted; one that may read them (a
    writer) keeps the network, as it had before it was contained."""
    command = tool_input["command"]
    outside = outside_command(command, bool(profile.git_write), cwd)
    if outside is not None:
        return None if outside == command else Rewrite(outside)
    bwrap = find_bwrap()
    if bwrap is None:
        return unavailable("bubblewrap (bwrap) is not installed", profile.name)
    why = probe(bwrap)
    if why:
        return unavailable(why, profile.name)
    home = os.path.realpath(os.path.expanduser("~"))
    guarded = bool(profile.protect_secrets)
    network = bool(getattr(profile, "network", False)) or not guarded
    try:
        room = room_for(root, cwd, home, network, own, scan=guarded)
    except WalkCapError as e:
        why = "the project could not be listed in time" if e.timed_out else str(e)
        return (
            f"agents-state: the {profile.name} profile runs Bash in a sandbox that hides the "
            f"project's credential files, and {why}, so they cannot all be found; denied."
        )
    if room.seccomp is None:
        return unavailable("its system call filter file cannot be written", profile.name)
    return Rewrite(shell_command(bwrap, room, command, kept_env(os.environ)))


def rewrite_output(tool_input: dict[str, Any], command: str) -> dict[str, object]:
    """The hook's answer: the same call with the contained command, and no permission decision
    (the user's approval still applies to what runs: the rewrite contains, it never grants)."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {**tool_input, "command": command},
        }
    }
