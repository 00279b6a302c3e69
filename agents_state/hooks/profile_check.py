"""The sub-agent profile decision of the PreToolUse hook: one function, ``subagent_denial``.

A call from a sub-agent (the payload has ``agent_id`` or ``agent_type``) of an active workflow or
chain, or from one of this plugin's agents (``subagents:<name>``) anywhere (issue 23), is
checked against the agent's profile: the tool by name (MCP tools one by one), then, for profiles
that keep agents off credentials, what the call will read -- resolved paths, expanded Grep
patterns, and Bash by allowlist; a Glob returns names only and reads nothing (issue 23).  When
the hook cannot decide (the state or a config layer cannot be read, the profile name is
unknown, the call runs outside the project, the input is not what Claude Code sends) it denies
with one line saying why: it fails closed.

A Bash call the allowlist lets through is then contained: the answer is a ``Rewrite`` that runs
it in a bubblewrap sandbox (``hooks.sandbox``, issue 23).  A writer's Bash (task agents) is not
held to an allowlist but contained all the same; only ``orchestrator`` / ``full-access`` runs
Bash as it is (issue 32).

Calls from the main conversation are not judged here.
"""

from __future__ import annotations

import os

from agents_state.hooks.workflow_root import Workflow, find_workflow

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agents_state.hooks.sandbox import Rewrite

__all__ = ["FILE_KEYS", "is_subagent", "subagent_denial", "undecodable_denial"]

FILE_KEYS = ("file_path", "notebook_path", "path")  # keys of a tool input that name a file
_PREFIX = "agents-state: "
_DOCTOR = "the main conversation can run `agents-state doctor` to see and fix it"


def is_subagent(payload: dict[str, Any]) -> bool:
    return any(
        isinstance(payload.get(k), str) and payload[k].strip() for k in ("agent_id", "agent_type")
    )


def undecodable_denial(raw: bytes, problem: str, explicit_root: str | None) -> str | None:
    """For hook input that is not a JSON object: deny when it looks like a sub-agent's call
    and a workflow is active (the main conversation's calls stay allowed)."""
    if b'"agent_id"' not in raw and b'"agent_type"' not in raw:
        return None
    workflow = find_workflow(explicit_root, None)
    if workflow is None and b'"subagents:' not in raw:  # this plugin's agents: always judged
        return None
    return (
        f"{_PREFIX}the hook input {problem}, so this sub-agent's call "
        "cannot be checked against its tool profile; denied. Retry the call with a "
        "simpler input."
    )


def subagent_denial(payload: dict[str, Any], explicit_root: str | None) -> str | Rewrite | None:
    """The deny reason for a sub-agent's call, ``None`` to allow it, or the ``Rewrite`` that
    runs an allowed Bash call of a contained profile in its sandbox (``hooks.sandbox``)."""
    workflow = find_workflow(explicit_root, payload.get("cwd"))
    agent_type = payload.get("agent_type")
    if workflow is None:
        if not _is_ours(agent_type):
            return None
        workflow = Workflow(_project_dir(explicit_root, payload.get("cwd")), True)
    if workflow.problem:
        return (
            f"{_PREFIX}{workflow.problem}, so sub-agent tool profiles cannot be checked; "
            f"denied until the state reads again ({_DOCTOR})."
        )
    if not isinstance(agent_type, str) or not agent_type.strip():
        return (
            f"{_PREFIX}the hook input has agent_id but no agent_type, so the sub-agent's "
            "profile cannot be told; denied."
        )
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool.strip():
        return f"{_PREFIX}the hook input names no tool_name; denied."
    return _judge(workflow, payload, agent_type, tool)


def _is_ours(agent_type: object) -> bool:
    from agents_state.hooks._base import is_ours

    return is_ours(agent_type)


def _project_dir(explicit_root: str | None, cwd: object) -> str:
    """Where this plugin's agent works when no workflow is active: the project Claude Code
    names (a ``cd`` does not move it), else the call's working directory."""
    chosen = (
        explicit_root
        or os.environ.get("AGENTS_STATE_ROOT")
        or os.environ.get("CLAUDE_PROJECT_DIR")
        or (cwd if isinstance(cwd, str) and cwd else os.getcwd())
    )
    return os.path.abspath(os.path.expanduser(chosen))


def _judge(
    workflow: Workflow, payload: dict[str, Any], agent_type: str, tool: str
) -> str | Rewrite | None:
    from agents_state.hooks.agentmap import ProfileUndecidable, agent_name, profile_for
    from agents_state.profiles import credential_denial, tool_allowed, tool_denial

    name = agent_name(agent_type)
    try:
        profile = profile_for(workflow.root, agent_type)
    except ProfileUndecidable as e:
        return f"{_PREFIX}{e}; the tool profile cannot be checked, so the call is denied."
    if profile is None:
        return None
    if not tool_allowed(profile, tool):
        return tool_denial(profile, name, tool)
    cwd, why = _call_cwd(workflow.root, payload.get("cwd"))
    if why:
        return f"{_PREFIX}{why}; denied."
    if name == "task-agent" and tool in _WRITE_TOOLS:
        room = _outside_room(workflow.root, cwd, payload)
        if room:
            return f"{_PREFIX}{room}; denied."
    if name == "task-agent" and tool in _RENAMES:
        state, why = _own_room(workflow.root, payload)
        if why or state is not None:
            return f"{_PREFIX}{why or _RENAME_WHY.format(tool=tool)}; denied."
    if not profile.protect_secrets:
        if tool == "Bash" and not _whole_tree(profile):
            return _writer_bash(profile, workflow.root, cwd, name, payload)
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return (
            f"{_PREFIX}the {tool} call's tool_input is not an object, so what it touches "
            "cannot be judged; denied."
        )
    from agents_state.hooks.pathguard import PathGuard, Undecided

    guard = PathGuard(os.path.realpath(workflow.root), cwd)
    if tool == "Bash":
        own = None
        if name == "task-agent":  # its shell writes only its own room (issue 22)
            own, why = _bash_room(workflow.root, payload)
            if why:
                return f"{_PREFIX}{why}; denied."
        return _judge_bash(profile, guard, tool_input, own, _is_ours(agent_type))
    found, unjudgeable = _touches(tool, tool_input, guard)
    if isinstance(found, Undecided):
        found, unjudgeable = None, found
    if unjudgeable:
        return f"{_PREFIX}{unjudgeable}; denied."
    return credential_denial(profile, found) if found else None


_WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
_RENAMES = ("mcp__cclsp__rename_symbol", "mcp__cclsp__rename_symbol_strict")
_RENAME_WHY = (
    "worktree isolation is on: {tool} edits files across the language server's whole "
    "project, beyond this agent's own worktree; make the change with Edit there"
)


def _own_room(root: str, payload: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """(the state, when worktree isolation is on; a reason when it cannot be read)."""
    from agents_state.hooks.ownroom import isolated_state

    try:
        return isolated_state(root), None
    except ValueError as e:
        return None, f"{e}, so this task agent's worktree cannot be told"


def _outside_room(root: str, cwd: str, payload: dict[str, Any]) -> str | None:
    """Under worktree isolation (issue 22) a task agent writes only inside its own room."""
    state, why = _own_room(root, payload)
    tool_input = payload.get("tool_input")
    if why or state is None or not isinstance(tool_input, dict):
        return why
    target = next((tool_input[k] for k in FILE_KEYS if isinstance(tool_input.get(k), str)), None)
    if target is None:
        return None
    from agents_state.hooks.ownroom import room_denial

    real = os.path.realpath(os.path.join(cwd, target))
    return room_denial(os.path.realpath(root), state, payload, real)


def _call_cwd(root: str, cwd: object) -> tuple[str, str | None]:
    if not isinstance(cwd, str) or not cwd.strip():
        return "", "the hook input has no cwd, so relative paths cannot be resolved"
    real_root = os.path.realpath(root)
    real = os.path.realpath(cwd)
    if real != real_root and not real.startswith(real_root.rstrip("/") + "/"):
        return "", (
            f"the call runs in {cwd}, outside the project {real_root}; sub-agents of "
            f"this workflow work inside it (cd {real_root})"
        )
    return real, None


def _touches(tool: str, tool_input: dict[str, Any], guard: Any) -> tuple[str | None, str | None]:
    """(credential reason, unjudgeable reason) for a non-Bash call."""
    values = {k: tool_input.get(k) for k in ("path", "glob", "pattern", *FILE_KEYS)}
    if tool in ("Grep", "Glob"):
        bad = [
            k
            for k in ("path", "glob", "pattern")
            if values[k] is not None and not isinstance(values[k], str)
        ]
        if bad:
            return None, f"the {tool} call's {bad[0]} is not a string"
        if tool == "Grep":
            return guard.check_grep(values["path"], values["glob"]), None
        if not values["pattern"]:
            return None, "the Glob call has no pattern"
        return None, None  # names only: a listing never reads a file (issue 23)
    url = tool_input.get("url")
    if isinstance(url, str) and url[:5].lower() == "file:":
        from urllib.parse import unquote, urlsplit

        found = guard.check_path(unquote(urlsplit(url).path))
        if found:
            return found, None
    for key in FILE_KEYS:
        value = values[key]
        if value is None:
            continue
        if not isinstance(value, str):
            return None, f"the {tool} call's {key} is not a string"
        found = guard.check_path(value)
        if found:
            return found, None
    return None, None


def _bash_room(root: str, payload: dict[str, Any]) -> tuple[str | None, str | None]:
    """(what a task agent's contained shell may write: ``None`` the project, ``""`` nothing,
    else its own room; the reason to deny when the state cannot be read)."""
    state, why = _own_room(root, payload)
    if why or state is None:
        return None, why
    from agents_state.hooks.ownroom import own_room

    try:
        return own_room(os.path.realpath(root), state, payload)[0], None
    except ValueError:
        return "", None  # its task cannot be told: it reads and runs, and writes nothing


def _whole_tree(profile: Any) -> bool:
    """A profile whose Bash runs outside any room says so in its name (issue 32)."""
    return profile.name.split("+")[0] in ("orchestrator", "full-access")


def _writer_bash(
    profile: Any, root: str, cwd: str, name: str, payload: dict[str, Any]
) -> str | Rewrite | None:
    """A writer's Bash (task agents and every profile that may read credentials): not judged
    by the allowlist, but contained all the same -- it writes its own worktree (under the
    engine's isolation) or the project, never ``.git``, ``.agents``, ``.claude`` or anything
    else (issue 32)."""
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("command"), str):
        return f"{_PREFIX}the Bash call has no command string; denied."
    own = None
    if name == "task-agent":
        own, why = _bash_room(root, payload)
        if why:
            return f"{_PREFIX}{why}; denied."
    from agents_state.hooks.sandbox import contain

    return contain(profile, os.path.realpath(root), cwd, tool_input, own)


def _judge_bash(
    profile: Any,
    guard: Any,
    tool_input: dict[str, Any],
    own: str | None = None,
    plugin_agent: bool = False,
) -> str | Rewrite | None:
    from agents_state.hooks.bashguard import check_bash
    from agents_state.profiles import credential_denial

    command = tool_input.get("command")
    if not isinstance(command, str):
        return f"{_PREFIX}the Bash call has no command string; denied."
    cwd = guard.cwd
    verdict = check_bash(command, guard, profile.bash_allow, profile.git_write)
    if verdict is None:  # the first answer lets it through: it runs contained (issue 23)
        from agents_state.hooks.sandbox import contain

        return contain(profile, guard.root, cwd, tool_input, own)
    if verdict.credential:
        return credential_denial(profile, verdict.why)
    git = (
        "git reads, and branch, add, commit, push and gh pr create/view/list"
        if profile.git_write
        else "git read commands"
    )
    return (
        f"{_PREFIX}the {profile.name} profile runs only allowlisted Bash commands (tests, "
        f"linters, builds, {git}, looking at files); {verdict.why}. Use Read, "
        f"Grep or Glob, or ask for the command in toolProfiles."
        f"{profile.name.split('+')[0]}.bashAllow "
        # a plugin agent's profile is loosened only by the user's own layer (issue 32)
        f"({'~/.claude/subagents-config.json' if plugin_agent else '.agents/config.json'}); "
        "if the task needs it, finish with decision CLARIFY."
    )
