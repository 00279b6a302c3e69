"""The room's home folder (issue 32): an empty private folder, with an allowlist shown in it.

A list of the home folder's secrets to mask can never be complete (``~/.bash_history``,
``~/.claude.json``, the host's transcripts under ``~/.claude/projects``, a docker socket under
``~/.docker``, whatever a tool invents next), so the room does not show the user's home at all:
``$HOME`` is a fresh tmpfs (writable scratch, gone after the call), and only what builds need is
shown in it, read-only:

- git's own settings: ``~/.gitconfig`` and ``~/.config/git/config`` as copies without tokens
  (``room.sanitized_git_config``; names and aliases kept), ``~/.config/git/ignore``;
- toolchains and package caches (``HOME_ALLOW``): ``~/.local/bin`` and ``~/.local/lib`` (``pip
  --user``), the interpreters of uv and mise, ``~/.cargo/bin`` and ``~/.cargo/registry`` (not
  ``~/.cargo/credentials.toml``), rustup, nvm, pyenv, asdf, volta, bun's and deno's ``bin``,
  conda's usual folders, sdkman's candidates, Go's (``~/go/bin``, ``~/go/pkg/mod``, ``~/sdk``),
  ``~/.m2/repository``, ``~/.gradle/caches`` and ``~/.gradle/wrapper``: folders of programs
  and downloaded packages, never a tool's settings file (where tokens live);
- the folders the kept environment names under the home (``TOOLCHAIN_VARS``: a virtualenv,
  conda, Java, Go, rustup, nvm, pyenv) and the PATH's folders (``room.tool_dirs``).

Configuration folders moved out of the home (``XDG_CONFIG_HOME``, ``XDG_DATA_HOME``,
``XDG_STATE_HOME``, ``XDG_CACHE_HOME``, ``XDG_RUNTIME_DIR``, ``CLAUDE_CONFIG_DIR``) are hidden
the same way, and the room's environment drops those variables (``room.kept_env``), so tools
use the private home's defaults.
"""

from __future__ import annotations

import os

__all__ = ["HOME_ALLOW", "TOOLCHAIN_VARS", "git_config_copy", "private_home"]

# fmt: off
HOME_ALLOW = (
    ".local/bin", ".local/lib", ".local/share/uv/python", ".local/share/mise", ".cargo/bin",
    ".cargo/registry", ".rustup", ".nvm", ".pyenv", ".asdf", ".volta", ".bun/bin", ".deno/bin",
    "miniconda3", "miniforge3", "anaconda3", ".sdkman/candidates", "go/bin", "go/pkg/mod", "sdk",
    ".m2/repository", ".gradle/caches", ".gradle/wrapper", ".config/git/ignore",
)
TOOLCHAIN_VARS = (
    "VIRTUAL_ENV", "CONDA_PREFIX", "JAVA_HOME", "GOROOT", "GOMODCACHE", "RUSTUP_HOME", "NVM_DIR",
    "PYENV_ROOT",
)
# fmt: on
_HIDE_VARS = (
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "CLAUDE_CONFIG_DIR",
)


def _under(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def private_home(
    home: str, environ: dict[str, str] | os._Environ[str]
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(the folders the room replaces by an empty one, the (source, place) pairs shown
    read-only inside them) for the real home folder ``home``."""
    hidden: list[str] = []
    if home.count("/") >= 1 and home != "/" and os.path.isdir(home):
        hidden.append(home)
    for var in _HIDE_VARS:
        value = environ.get(var, "")
        real = os.path.realpath(value) if value.startswith("/") else ""
        # a folder one level under / (/usr, /etc, /var) is the system's, never hidden
        if real.count("/") >= 2 and os.path.isdir(real) and not _under(real, hidden):
            hidden.append(real)
    if not hidden:
        return (), ()
    binds: list[tuple[str, str]] = []
    xdg = environ.get("XDG_CONFIG_HOME", "")
    for source, place in (
        (f"{home}/.gitconfig", f"{home}/.gitconfig"),
        (
            f"{xdg}/git/config" if xdg.startswith("/") else f"{home}/.config/git/config",
            f"{home}/.config/git/config",
        ),
    ):
        if os.path.isfile(source):
            copy = git_config_copy(source)
            if copy != "/dev/null":  # no copy could be written: none shown
                binds.append((copy or os.path.realpath(source), place))
    if xdg.startswith("/") and os.path.isfile(f"{xdg}/git/ignore"):
        binds.append((os.path.realpath(f"{xdg}/git/ignore"), f"{home}/.config/git/ignore"))
    for rel in HOME_ALLOW:
        path = f"{home}/{rel}"
        if os.path.exists(path) and not any(p == path for _, p in binds):
            binds.append((os.path.realpath(path), path))
    for var in TOOLCHAIN_VARS:
        value = environ.get(var, "")
        real = os.path.realpath(value) if value.startswith("/") else ""
        if real and _under(real, hidden) and os.path.isdir(real):
            binds.append((real, real))
    return tuple(hidden), tuple(binds)


def git_config_copy(path: str) -> str | None:
    """A copy of the git configuration at ``path`` without its tokens (in the cache folder,
    named by its content), ``None`` when it holds none, ``/dev/null`` when no copy can be
    written (git then runs with an empty configuration)."""
    from agents_state.hooks.room import sanitized_git_config
    from agents_state.hooks.secretscan import cache_dir, write_cache

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
