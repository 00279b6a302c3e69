"""The room of a contained Bash call, as data and as bubblewrap's arguments (pure): ``Room``
(what the call may see and change), ``bwrap_args``, the environment it keeps (``KEEP_ENV``) and
the token-free copy of a repository's ``.git/config``.  ``sandbox`` decides the room from the
file system and rewrites the call."""

from __future__ import annotations

import os
import re

__all__ = [
    "KEEP_ENV",
    "Room",
    "bwrap_args",
    "kept_env",
    "quote",
    "sanitized_git_config",
    "shell_command",
    "tool_dirs",
]

# what a test run, a linter or git needs; everything else (API keys, tokens, cloud and store
# URLs) stays outside
# fmt: off
KEEP_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "LC_ALL",
    "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "TZ", "CI", "NO_COLOR",
    "FORCE_COLOR", "NODE_ENV", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONUTF8", "JAVA_HOME", "GOPATH", "GOROOT",
    "GOCACHE", "GOMODCACHE", "GOFLAGS",
    "CARGO_HOME", "RUSTUP_HOME", "RUST_BACKTRACE", "CARGO_TERM_COLOR", "NVM_DIR", "PYENV_ROOT",
    "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
)
# fmt: on
_XDG = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")
_URL_USERINFO = re.compile(r"(?i)([a-z][a-z0-9+.-]*://)[^/\s@]+@")
_SECRET_KEY = re.compile(r"(?i)^\s*(?:extraheader|password|token|oauthtoken|pass)\s*=")


class Room:
    """What one contained call may see and change (all paths real and absolute): the folders it
    writes, the credential files and folders masked, the paths kept read-only (or made empty
    when missing), the network, the repository's ``.git`` and the token-free copy of its
    ``config`` (``None``: the file itself, read-only); ``hidden``: folders replaced by an empty
    private one (the home folder, relocated configuration folders), with ``binds`` (source,
    place) shown read-only inside them and ``readable`` (the project when it lies in one)
    shown again; ``seccomp``: the system call filter's file (``hooks.seccomp``)."""

    __slots__ = (
        "binds",
        "git_config",
        "git_dir",
        "hidden",
        "masks",
        "network",
        "protect",
        "readable",
        "seccomp",
        "writable",
    )

    def __init__(
        self,
        writable: tuple[str, ...],
        masks: tuple[str, ...],
        protect: tuple[str, ...],
        network: bool,
        git_dir: str | None = None,
        git_config: str | None = None,
        hidden: tuple[str, ...] = (),
        binds: tuple[tuple[str, str], ...] = (),
        readable: tuple[str, ...] = (),
        seccomp: str | None = None,
    ) -> None:
        self.writable, self.masks, self.protect = writable, masks, protect
        self.network, self.git_dir, self.git_config = network, git_dir, git_config
        self.hidden, self.binds, self.readable = hidden, binds, readable
        self.seccomp = seccomp


# -- the room, as bubblewrap arguments (pure) ---------------------------------------------------


def tool_dirs(path: str, hidden: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The folders under ``/tmp`` or a ``hidden`` folder that the room's PATH names (a virtual
    environment's ``bin`` brings its whole environment; ``~/.local/bin`` brings ``~/.local/lib``,
    where ``pip --user`` puts the modules): the room's private ``/tmp`` and home would hide
    them, and with them the tools (pytest, a linter) the command is run for. Read-only."""
    found: list[str] = []
    under = tuple(f"{h.rstrip('/')}/" for h in ("/tmp", *hidden))
    for entry in path.split(os.pathsep):
        real = os.path.realpath(entry) if entry.startswith("/") else ""
        if not real.startswith(under) or not os.path.isdir(real):
            continue
        parent = os.path.dirname(real)
        extra = []
        if os.path.basename(real) == "bin" and os.path.isfile(os.path.join(parent, "pyvenv.cfg")):
            real = parent
        elif real.endswith("/.local/bin") and os.path.isdir(f"{parent}/lib"):
            extra.append(f"{parent}/lib")
        for folder in (real, *extra):
            if folder not in found:
                found.append(folder)
    return tuple(found)


def bwrap_args(room: Room, tools: tuple[str, ...] = ()) -> list[str]:
    """bubblewrap's options for ``room``, up to (not including) the command; ``tools`` are
    folders under ``/tmp`` or a hidden folder kept visible, read-only (``tool_dirs``).  Later
    mounts lie over earlier ones: what is hidden, then what is shown again, then what is
    written, then what stays read-only inside it."""
    args = [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/dev/shm",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        *([] if room.network else ["--unshare-net"]),
        "--cap-drop",
        "ALL",
        "--as-pid-1",  # the command is PID 1: no bubblewrap process holding the full environment
        "--die-with-parent",
        "--new-session",
    ]
    for run in ("/run", "/var/run"):  # sockets: docker, the database, ssh and gpg agents, D-Bus
        if os.path.isdir(run) and not os.path.islink(run):
            args += ["--tmpfs", run]
    if room.network:  # the name server's file lives there on systemd machines
        args += ["--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve"]
    for path in room.hidden:  # an empty private folder: scratch space, gone after the call
        args += ["--tmpfs", path]
    shown: list[str] = []  # a folder shown as itself shows what lies under it: one mount
    for source, place in (*room.binds, *((p, p) for p in (*tools, *room.readable))):
        if source == place and any(place == f or place.startswith(f"{f}/") for f in shown):
            continue  # ~/.pyenv/shims under ~/.pyenv, a PATH folder twice (about 0.5 ms each)
        if source == place:
            shown.append(place)
        args += ["--ro-bind", source, place]
    for path in room.writable:
        args += ["--bind", path, path]  # a mount point: it cannot be renamed away
    for path in room.protect:
        if room.git_config is not None and path == f"{room.git_dir}/config":
            bind = "--dev-bind" if room.git_config == "/dev/null" else "--ro-bind"
            args += [bind, room.git_config, path]  # the copy without tokens
            continue
        if os.path.lexists(path):
            args += ["--ro-bind", path, path]
        elif path.endswith("/config"):  # an empty file whose writes go nowhere
            args += ["--dev-bind", "/dev/null", path]
        else:  # an empty read-only folder: nothing can be put there
            args += ["--tmpfs", path, "--remount-ro", path]
    masked_dirs: list[str] = []
    for path in room.masks:
        if any(path.startswith(d + "/") for d in masked_dirs):
            continue
        if os.path.isdir(path):
            masked_dirs.append(path)
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--dev-bind", "/dev/null", path]  # reads empty, writes go nowhere
    if room.seccomp:  # no unix socket, no new namespace (hooks.seccomp); the file is fd 3
        args += ["--seccomp", "3"]
    return args


def quote(text: str) -> str:
    """``text`` as one shell word (POSIX single quotes)."""
    if text and re.fullmatch(r"[\w@%+=:,./-]+", text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def shell_command(
    bwrap: str, room: Room, command: str, env: dict[str, str], bash: str = "/bin/bash"
) -> str:
    """The Bash tool's new command: bubblewrap with ``room``, an environment of ``env`` only,
    and ``command`` as one argument to ``bash -c`` inside.  Every value is literal, nothing
    expands in the Bash tool's shell: what the user approves, or a rule matches, is what runs
    (docs/decisions.md)."""
    tools = tool_dirs(env.get("PATH", ""), room.hidden)
    parts = [quote(bwrap), *(quote(a) for a in bwrap_args(room, tools))]
    parts += ["--clearenv"]
    for name, value in env.items():
        parts += ["--setenv", name, quote(value)]
    parts += ["--", quote(bash), "-c", quote(command)]
    if room.seccomp:
        parts.append(f"3<{quote(room.seccomp)}")
    return " ".join(parts)


def kept_env(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """The variables of ``KEEP_ENV`` that are set, with the plugin's ``bin/`` folders (the Bash
    tool has them on its PATH; the hook's own PATH may not) added to PATH, and Go's build cache
    in the room's private ``/tmp`` unless one is set."""
    env = {name: environ[name] for name in KEEP_ENV if name in environ}
    path = env.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(os.pathsep)
    for var in ("CLAUDE_PLUGIN_DATA", "CLAUDE_PLUGIN_ROOT"):
        folder = environ.get(var)
        binary = os.path.join(folder, "bin") if folder else ""
        if binary and binary not in path and os.path.isdir(binary):
            path.append(binary)
    env["PATH"] = os.pathsep.join(path)
    home = env.get("HOME", "")
    for name in _XDG:  # relocated outside the home: hidden in the room, so back to its default
        value = env.get(name, "")
        if value and (not home or not f"{value}/".startswith(f"{home.rstrip('/')}/")):
            del env[name]
    if "GOCACHE" not in environ:  # go test needs a writable build cache; the home is read-only
        env["GOCACHE"] = "/tmp/go-build"
    return env


def sanitized_git_config(text: str) -> str | None:
    """``text`` with user and password taken out of URLs and secret keys dropped, or ``None``
    when there was nothing to take out."""
    lines = []
    for line in text.splitlines():
        if _SECRET_KEY.match(line):
            continue
        lines.append(_URL_USERINFO.sub(r"\1", line))
    out = "\n".join(lines)
    return None if out == text.rstrip("\n") else out
