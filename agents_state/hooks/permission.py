"""PreToolUse, second hook: approve the engine's own steps so they never ask (issue 14).

Claude Code asks before a Bash command, a write, or a skill; its ``allowed-tools`` grant of a
command lasts only until the next user turn, and each background agent's notification is one.
This hook answers ``permissionDecision: "allow"`` for exactly three things, and prints nothing
(Claude Code's own rules and prompts apply) for everything else:

- **Bash**: one ``agents-state`` invocation: the first word is ``agents-state`` and the command
  holds no shell operator, substitution, redirection, quoting escape or newline
  (``; & | < > $ ` ( ) { } \\``); every argument that names a path (has a ``/`` or starts
  with ``..``) resolves inside the project; ``watch`` and ``hook`` are left to the user, and
  so is ``budget --raise`` / ``--once`` (a model must not lift its own budget).  A
  sub-agent of this plugin gets only ``task``, ``handoff``, ``status``, ``next`` and ``context``,
  and only when its profile allows Bash.
- **Write / Edit / MultiEdit** from the main conversation: the resolved path (symlinks followed)
  lies inside the project's ``.agents/phases/``, which is a real directory under a real
  ``.agents/`` (no symlink), and an existing target is a regular file with one link.
- **Skill** from the main conversation: a skill of this plugin (``subagents:<name>``).

Deny still wins: the profile hook (``pre_tool_use``) runs beside this one, and Claude Code lets a
``deny`` of any PreToolUse hook override an ``allow``.  Standard library and ``_base`` only: this
runs before every matching tool call.
"""

from __future__ import annotations

import os
import shlex
import stat

from agents_state.hooks._base import emit, find_root, is_ours, read_payload

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["approval", "handle"]

_SHELL_CHARS = frozenset(";&|<>$`(){}\\\n\r")
_MAIN_HELD_BACK = frozenset({"watch", "hook"})  # never-ending, or meant for Claude Code only
_SUBAGENT_COMMANDS = frozenset({"task", "handoff", "status", "next", "context"})
_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})


def _project(explicit_root: str | None, payload: dict[str, Any]) -> str:
    root = find_root(explicit_root, payload)
    if root is None:
        cwd = payload.get("cwd")
        root = cwd if isinstance(cwd, str) and cwd else os.getcwd()
    return os.path.realpath(root)


def _inside(path: str, folder: str) -> bool:
    return path != folder and os.path.commonpath([path, folder]) == folder


def _resolve(cwd: str, path: str) -> str:
    return os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))


def _subcommand(args: list[str]) -> str:
    """The first word after the global options (``--root DIR`` takes a value)."""
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word == "--root":
            skip = True
        elif not word.startswith("-"):
            return word
    return ""


def _engine_command(command: Any, cwd: str, project: str, sub_agent: bool) -> str | None:
    if not isinstance(command, str) or _SHELL_CHARS & set(command):
        return None
    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError:
        return None
    if not words or words[0] != "agents-state":
        return None
    if any(w == "--set" or w.startswith("--set=") for w in words[1:]):
        return None  # a configuration value can name the commands `phase run` runs (issue 27)
    sub = _subcommand(words[1:])
    allowed = _SUBAGENT_COMMANDS if sub_agent else None
    if sub in _MAIN_HELD_BACK or (allowed is not None and sub not in allowed):
        return None
    if sub == "budget" and any(w.startswith(("--raise", "--once")) for w in words):
        return None  # the user's answer to a spent budget: Claude Code asks them (issue 24)
    for word in words[1:]:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if value.startswith("~") or "://" in value:  # a URL (a server store) goes elsewhere
            return None
        if ("/" in value or value.startswith("..")) and not (
            _resolve(cwd, value) == project or _inside(_resolve(cwd, value), project)
        ):
            return None
    return f"agents-state {sub}".strip()


def _real_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _phases_write(tool_input: Any, cwd: str, project: str) -> str | None:
    if not isinstance(tool_input, dict):
        return None
    path = tool_input.get("file_path")
    agents, phases = os.path.join(project, ".agents"), os.path.join(project, ".agents", "phases")
    if not isinstance(path, str) or not path or not (_real_dir(agents) and _real_dir(phases)):
        return None
    target = _resolve(cwd, path)
    if not _inside(target, phases):
        return None
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError:
        return None
    return target if stat.S_ISREG(st.st_mode) and st.st_nlink == 1 else None


def _profile_allows_bash(project: str, agent_type: str) -> bool:
    from agents_state.hooks.agentmap import profile_for
    from agents_state.profiles import tool_allowed

    profile = profile_for(project, agent_type)
    return profile is not None and tool_allowed(profile, "Bash")


def approval(payload: dict[str, Any], explicit_root: str | None = None) -> str | None:
    """Why the call is one of the engine's own steps, or ``None`` to leave it to Claude Code."""
    tool, tool_input = payload.get("tool_name"), payload.get("tool_input")
    agent_type = payload.get("agent_type")
    sub_agent = agent_type is not None and agent_type != ""
    cwd_value = payload.get("cwd")
    cwd = cwd_value if isinstance(cwd_value, str) and cwd_value else os.getcwd()
    if sub_agent and (not is_ours(agent_type) or tool != "Bash"):
        return None  # sub-agents: fail closed, engine commands only
    project = _project(explicit_root, payload)
    if tool == "Bash":
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        step = _engine_command(command, cwd, project, sub_agent)
        if step is None or (sub_agent and not _profile_allows_bash(project, str(agent_type))):
            return None
        return f"subagents plugin: `{step}` is a step of the agents-state engine"
    if tool in _WRITE_TOOLS:
        target = _phases_write(tool_input, cwd, project)
        if target is None:
            return None
        return f"subagents plugin: {os.path.relpath(target, project)} is a workflow artifact"
    if tool == "Skill" and isinstance(tool_input, dict) and is_ours(tool_input.get("skill")):
        return f"subagents plugin: its own skill {tool_input['skill']}"
    return None


def handle(event: str, explicit_root: str | None) -> None:
    payload = read_payload()
    if payload is None:
        return
    reason = approval(payload, explicit_root)
    if reason is not None:
        emit(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": reason,
                }
            }
        )
