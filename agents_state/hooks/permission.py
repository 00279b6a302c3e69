"""PreToolUse, second hook: approve the engine's bookkeeping so it never asks (issues 14, 23).

Claude Code asks before a Bash command, a write, or a skill; its ``allowed-tools`` grant of a
command lasts only until the next user turn, and each background agent's notification is one.
This hook answers ``permissionDecision: "allow"`` for exactly four things, and prints nothing
(Claude Code's own rules and prompts apply) for everything else:

- **Bash**: one ``agents-state`` invocation on the closed list of ``engine_steps.STEPS``
  (sub-commands that change nothing but this project's workflow), with no shell operator,
  substitution, redirection, quoting escape or newline (``; & | < > $ ` ( ) { } \\``); every
  path it names resolves (links followed) inside the project, whether or not it has a ``/``;
  the workflow it works on -- ``--root``, ``AGENTS_STATE_ROOT`` or the nearest ``.agents/``
  above the call's working directory -- is the project's own, whose ``.agents``, ``phases``
  and ``chains`` are real folders.  ``budget --raise`` / ``--once`` are the user's answers to a
  spent budget (issue 24), and ``resume --skip`` (going on past a failed gate, issue 32): not
  on the list.  A word bash would rewrite (a glob, a brace list, a tilde) is never approved: the
  words are read by the profile hook's own splitter (``shellwords``), and the engine would get
  other paths than the judged ones (issue 32).
  A sub-agent of this plugin gets only ``task``, ``handoff``, ``status``, ``next`` and
  ``context``, and only when its profile allows Bash.
- **Write / Edit / MultiEdit** from the main conversation: the resolved path is one of the
  catalogue's artifact names (``ARTIFACTS``) directly in the project's ``.agents/phases/``, both
  real folders, and an existing target is a regular file with one link; the TEST gate's result
  (``PERSONS``) only while no TEST commands are configured (issue 33: then it is the model's
  report of its own checks; with them only ``phase run 3.1`` records the gate, issue 32).
- **Skill** from the main conversation: a skill of this plugin (``subagents:<name>``).
- **Workflow** from the main conversation: ``subagents:fanout`` with the arguments ``next``
  prints now (issue 25, ``workflow_call``), once per session and run of its phase (issue 32:
  a second launch is left to the user); a ``subagents:fanout`` call with other arguments is
  denied with the reason.

The project is ``--root`` / ``AGENTS_STATE_ROOT`` when set, else the nearest folder holding
``.agents/`` above ``CLAUDE_PROJECT_DIR`` (or the call's working directory without it), and never
a folder inside another ``.agents``: a ``cd`` cannot move it.  Deny still wins: the profile hook
(``pre_tool_use``) runs beside this one, and Claude Code lets a ``deny`` of any PreToolUse hook
override an ``allow``.  Standard library and ``_base`` only: this runs before every matching call.
"""

from __future__ import annotations

import os
import stat

from agents_state.hooks._base import emit, is_ours, read_payload
from agents_state.regular import ancestors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ARTIFACTS", "PERSONS", "approval", "engine_words", "handle"]

_SHELL_CHARS = frozenset(";&|<>$`(){}\\\n\r")
_WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
# the catalogue's artifact names (workflow.PHASES; a test holds the two equal): importing the
# catalogue would cost the hook its enum and typing imports
ARTIFACTS = frozenset(
    {
        "0-explore.md",
        "1.1-brainstorm.md",
        "1.2-plan.md",
        "1.3-plan-review.json",
        "2.1-tasks.json",
        "2.2-simplify.md",
        "2.3-impl-review.json",
        "3.1-test-results.json",
        "3.2-analysis.md",
        "3.3-test-review.json",
        "4.1-docs.md",
        "4.2-final-review.json",
        "4.3-completion.md",
    }
)


# the TEST gate's result: with TEST commands configured only the engine writes it (``phase run
# 3.1``); without, it is the model's report of the checks it ran, approved like a review
PERSONS = frozenset({"3.1-test-results.json"})


def _nearest_agents(start: str) -> str | None:
    """The nearest folder at or above ``start`` holding ``.agents/``, as the engine finds it."""
    return next((d for d in ancestors(start) if os.path.isdir(os.path.join(d, ".agents"))), None)


def _cwd(payload: dict[str, Any]) -> str:
    cwd = payload.get("cwd")
    return os.path.realpath(cwd if isinstance(cwd, str) and cwd else os.getcwd())


def _project(explicit_root: str | None, payload: dict[str, Any]) -> str | None:
    """The project whose bookkeeping may be approved, or None when it is not one."""
    chosen = explicit_root or os.environ.get("AGENTS_STATE_ROOT")
    if chosen:
        project = os.path.realpath(os.path.expanduser(chosen))
    else:
        anchor = os.environ.get("CLAUDE_PROJECT_DIR")
        start = os.path.realpath(anchor) if anchor else _cwd(payload)
        project = _nearest_agents(start) or start
    if ".agents" in project.split(os.sep):
        return None  # a workflow inside another's .agents/ (issue 23)
    for folder in (".agents", ".agents/phases", ".agents/chains"):
        try:
            if stat.S_ISLNK(os.lstat(os.path.join(project, folder)).st_mode):
                return None  # its files would be written wherever the link points
        except FileNotFoundError:
            continue
        except OSError:
            return None
    return project


def _inside(path: str, folder: str) -> bool:
    return path == folder or os.path.commonpath([path, folder]) == folder


def _resolve(cwd: str, path: str) -> str:
    return os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))


def _engine_root(roots: list[str], cwd: str) -> str:
    """The root the engine will use: ``--root``, else ``AGENTS_STATE_ROOT``, else the nearest
    ``.agents/`` above the working directory, else the working directory."""
    if roots:
        return _resolve(cwd, roots[-1])
    env = os.environ.get("AGENTS_STATE_ROOT")
    if env:
        return _resolve(cwd, env)
    return _nearest_agents(cwd) or cwd


def _path_inside(value: str, cwd: str, project: str) -> bool:
    """Both places the engine may read ``value`` from (as given, else under the root) are in
    the project (``cli.options.input_path``)."""
    if value == "-":
        return True
    places = [_resolve(cwd, value)]
    if not os.path.isabs(os.path.expanduser(value)):
        places.append(_resolve(project, value))
    return all(_inside(p, project) for p in places)


def _engine_command(command: Any, cwd: str, project: str, sub_agent: bool) -> str | None:
    if not isinstance(command, str) or _SHELL_CHARS & set(command):
        return None
    words = engine_words(command)
    if words is None:
        return None
    from agents_state.hooks.engine_steps import SUBAGENT_STEPS, parse

    parsed = parse(words[1:])
    if parsed is None or (sub_agent and not set(parsed.words[:1]) & SUBAGENT_STEPS):
        return None
    if any(_resolve(cwd, r) != project for r in parsed.roots):
        return None
    if _engine_root(parsed.roots, cwd) != project:
        return None
    if not all(_path_inside(p, cwd, project) for p in parsed.paths):
        return None
    return " ".join(("agents-state", *parsed.words))


def engine_words(command: str) -> list[str] | None:
    """The words of ``command`` when it is one plain ``agents-state`` invocation, read by the
    profile hook's own splitter (``shellwords``); None when it is not one, or when bash would
    rewrite any word (a glob, a brace list, a tilde: issue 32), since the engine would then
    get other paths than the ones judged here."""
    from agents_state.hooks.shellwords import Unjudgeable, parse

    try:
        commands = parse(command)
    except Unjudgeable:
        return None
    if len(commands) != 1 or commands[0].redirects:
        return None
    simple = commands[0].words
    if not simple or any(w.expands for w in simple):
        return None
    words = [w.text for w in simple]
    return words if words[0] == "agents-state" else None


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
    name = os.path.basename(target)
    if os.path.dirname(target) != phases or name not in ARTIFACTS:
        return None
    if name in PERSONS and _test_commands(project):
        return None
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError:
        return None
    return target if stat.S_ISREG(st.st_mode) and st.st_nlink == 1 else None


def _test_commands(project: str) -> bool:
    """Whether the TEST gate is the engine's: TEST commands configured, or a configuration that
    does not load (fail closed).  Loaded only for a write of the gate's result (issue 33)."""
    from agents_state.configload import any_layer, load_config

    if not any_layer(project, False):
        return False  # the built-in defaults configure none
    try:
        return bool(load_config(project).config.stages.TEST.commands)
    except Exception:  # any failure to load keeps the write the person's
        return True


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
    if sub_agent and (not is_ours(agent_type) or tool != "Bash"):
        return None  # sub-agents: fail closed, engine commands only
    project = _project(explicit_root, payload)
    if project is None:
        return None
    cwd = _cwd(payload)
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


def _decision(
    payload: dict[str, Any], explicit_root: str | None
) -> tuple[str, str] | tuple[str, str, str | None] | None:
    """("allow" | "deny", reason[, the command to run instead]), or None to leave the call to
    Claude Code."""
    if payload.get("tool_name") == "Workflow" and not payload.get("agent_type"):
        project = _project(explicit_root, payload)
        if project is None or not os.path.isdir(os.path.join(project, ".agents")):
            return None
        from agents_state.hooks.workflow_call import judge  # issue 25: the fan-out's call

        found = judge(payload.get("tool_input"), project, payload.get("session_id"))
        return None if found is None else ("allow" if found[0] else "deny", found[1])
    reason = approval(payload, explicit_root)
    if reason is not None and reason.startswith("subagents plugin: `agents-state task "):
        from agents_state.hooks import taskowner  # issue 32: only the holder reports

        return taskowner.judge(payload, _project(explicit_root, payload) or "", reason)
    return None if reason is None else ("allow", reason)


def handle(event: str, explicit_root: str | None) -> None:
    payload = read_payload()
    if payload is None:
        return
    found = _decision(payload, explicit_root)
    if found is not None:
        out: dict[str, Any] = {
            "hookEventName": "PreToolUse",
            "permissionDecision": found[0],
            "permissionDecisionReason": found[1],
        }
        if len(found) > 2 and found[2] is not None:  # a sub-agent's task command, with its id
            out["updatedInput"] = {**payload["tool_input"], "command": found[2]}
        emit({"hookSpecificOutput": out})
