"""Tool permission profiles (designs 000 / 001, REQ-3.1 .. REQ-3.6), declared once as data.

A profile is a list of tool-name patterns (``mcp__cclsp__*`` matches every tool of that MCP
server, ``*`` matches all) and whether it may touch credential files.  Both naming schemes are
accepted: design 000's ``reader`` / ``researcher`` / ``writer`` / ``orchestrator`` (canonical) and
design 001's ``read-only`` / ``research`` / ``writer`` / ``full-access``.  A spec may add tools to a
base profile: ``reader+Bash`` is design 000's "reader + Bash" of the validator and checkers.

This module is on the hot path of the ``PreToolUse`` hook: it imports nothing heavy.  What a
call may touch (credential files, the Bash allowlist) is decided in ``hooks.profile_check``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = [
    "ANSWER_TOOLS",
    "CCLSP_EDIT",
    "CCLSP_READ",
    "CONTEXT7",
    "DEFAULT_AGENT_PROFILES",
    "PROFILES",
    "Profile",
    "check_tool",
    "credential_denial",
    "get_profile",
    "ignored_lifts",
    "looser_parts",
    "no_looser",
    "tool_allowed",
    "tool_denial",
    "tools_text",
]

# MCP tools are granted one by one: the read-only ones to every profile that reads code, the
# ones that change files (or the server) only to writers.  ``mcp__server__*`` still works in
# custom profiles.
CCLSP_READ = tuple(
    f"mcp__cclsp__{t}"
    for t in (
        "find_definition",
        "find_references",
        "find_workspace_symbols",
        "find_implementation",
        "get_hover",
        "get_diagnostics",
        "prepare_call_hierarchy",
        "get_incoming_calls",
        "get_outgoing_calls",
    )
)
CCLSP_EDIT = tuple(
    f"mcp__cclsp__{t}" for t in ("rename_symbol", "rename_symbol_strict", "restart_server")
)
CONTEXT7 = tuple(
    f"mcp__context7__{t}" for t in ("resolve-library-id", "get-library-docs", "query-docs")
)
_READ = ("Read", "Grep", "Glob", *CCLSP_READ)


class Profile:
    """What an agent may call.  A plain class, not a dataclass: ``dataclasses`` loads ``inspect``,
    about 7 ms on the hook's path (``docs/performance.md``)."""

    __slots__ = (
        "aliases",
        "bash_allow",
        "description",
        "git_write",
        "name",
        "network",
        "protect_secrets",
        "tools",
    )

    def __init__(
        self,
        name: str,
        aliases: tuple[str, ...],
        tools: tuple[str, ...],
        protect_secrets: bool,  # may not read .env or credential files (design 001, security)
        description: str,
        bash_allow: tuple[tuple[str, ...], ...] = (),  # a project's extra Bash commands
        git_write: bool = False,  # Bash may also stage, commit, push, branch (hooks.gitwrite)
        network: bool = False,  # contained Bash may reach the network (hooks.sandbox)
    ) -> None:
        self.name, self.aliases, self.tools = name, aliases, tools
        self.git_write, self.network = git_write, network
        self.protect_secrets, self.description, self.bash_allow = (
            protect_secrets,
            description,
            bash_allow,
        )

    def replace(self, **changes: Any) -> Profile:
        """A copy with ``changes`` (profiles are never changed in place)."""
        return Profile(**{**{k: getattr(self, k) for k in self.__slots__}, **changes})

    def __repr__(self) -> str:
        return f"Profile({self.name!r}, tools={self.tools!r})"

    @property
    def names(self) -> str:
        return " / ".join((self.name, *self.aliases))


PROFILES: tuple[Profile, ...] = (
    Profile("reader", ("read-only",), _READ, True, "Read and search only, no modifications"),
    Profile(
        "researcher",
        ("research",),
        (*_READ, "WebFetch", "WebSearch", *CONTEXT7),
        True,
        "Read, search and web lookup",
    ),
    Profile(
        "validator",
        ("qa",),
        (*_READ, "Bash"),
        True,
        "reader + Bash: runs type checks, lint, tests and builds (Bash allowlist)",
    ),
    Profile(
        "committer",
        (),
        (*_READ, "Bash"),
        True,
        "validator + git writes: create or switch a branch, stage named files, commit, push "
        "to a remote by name, gh pr create/view/list (no force, amend, --no-verify, gh api)",
        git_write=True,
    ),
    Profile(
        "writer",
        (),
        (
            "Read",
            "Write",
            "Edit",
            "MultiEdit",
            "NotebookEdit",
            "Bash",
            "Grep",
            "Glob",
            *CCLSP_READ,
            *CCLSP_EDIT,
        ),
        False,
        "Full file operations and build commands",
    ),
    Profile(
        "orchestrator",
        ("full-access",),
        ("*",),
        False,
        "All tools, including Task / Agent for spawning sub-agents",
    ),
)

_BY_NAME: dict[str, Profile] = {n: p for p in PROFILES for n in (p.name, *p.aliases)}

# Which agent type runs with which profile, unless the config or the agent's definition file says
# otherwise.  Names are agent types without the plugin prefix (``subagents:worker`` -> ``worker``).
# The one table: the templates (``chains.catalogue.TEMPLATES``, hence the scaffold) read their
# profile from it, and ``tests/test_agent_profiles_parity.py`` holds every ``agents/*.md``
# ``profile:`` line to it.
DEFAULT_AGENT_PROFILES: dict[str, str] = {
    # design 004 workflow agents
    "explore": "researcher",
    "plan": "researcher",
    "task": "writer",
    "worker": "writer",
    "reviewer": "reader",
    # the plugin's own agents (agents/*.md), as their files say (issue 18: without these,
    # subagents:explore-agent had no profile outside the plugin and its writes were allowed)
    "explore-agent": "reader",
    "plan-agent": "reader",
    "task-agent": "writer",
    # design 000 consolidated templates
    "domain-researcher": "researcher",
    "domain-writer": "writer",
    "quality-validator": "validator",
    "quality-checker": "validator",
    "spec-analyzer": "researcher",
    "git-content-generator": "validator",
    "code-analyzer": "researcher+Bash",
    "git-executor": "committer",  # commits, pushes, opens the PR (docs/decisions.md, issue 18)
    "pr-reviewer": "validator",  # reads the diff with git (docs/decisions.md, issue 18)
    "security-scanner": "validator",
    "parallel-executor": "validator",  # runs commands; a sub-agent cannot start agents
    # designs 001 / 002
    "researcher": "researcher",
    "writer": "writer",
    "validator": "validator",
    "code-researcher": "researcher",
    "code-writer": "writer",
    "code-qa": "validator",
}

_SPAWN = ("Task", "Agent")  # the sub-agent tool was renamed from Task to Agent


def get_profile(spec: str, custom: dict[str, Any] | None = None) -> Profile | None:
    """The profile for ``spec`` (a name, an alias, or ``base+Tool+Tool``), or ``None``.

    ``custom`` is the config's ``toolProfiles``: new profiles, or ``bashAllow`` added to a
    built-in one (``{"validator": {"bashAllow": ["terraform validate"]}}``)."""
    base, *extra = [part.strip() for part in spec.split("+")]
    profile = _BY_NAME.get(base)
    entry = custom.get(base) if custom else None
    if profile is None and isinstance(entry, dict):
        profile = _custom(base, entry)
    elif profile is not None and isinstance(entry, dict):
        profile = profile.replace(
            bash_allow=_bash_allow(entry), network=entry.get("network") is True
        )
    if profile is None:
        return None
    if not extra:
        return profile
    return profile.replace(
        name=spec,
        aliases=(),
        tools=(*profile.tools, *[t for t in extra if t]),
        description=f"{profile.name} + {', '.join(extra)}",
    )


def _bash_allow(data: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    value = data.get("bashAllow")
    if not isinstance(value, list):
        return ()
    return tuple(tuple(v.split()) for v in value if isinstance(v, str) and v.split())


def _custom(name: str, data: dict[str, Any]) -> Profile | None:
    tools = data.get("tools")
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        return None
    return Profile(
        name,
        (),
        tuple(tools),
        bool(data.get("protectSecrets", True)),
        str(data.get("description", "custom profile")),
        _bash_allow(data),
        network=data.get("network") is True,
    )


# The host's own answer tool: a Workflow agent given a ``schema`` answers through it (issue 25);
# it touches nothing, so every profile has it
ANSWER_TOOLS = ("StructuredOutput",)


def tool_allowed(profile: Profile, tool: str) -> bool:
    if tool in ANSWER_TOOLS:
        return True
    for pattern in profile.tools:
        if pattern == "*" or pattern == tool:
            return True
        if pattern.endswith("*") and tool.startswith(pattern[:-1]):
            return True
        if pattern in _SPAWN and tool in _SPAWN:
            return True
    return False


def tools_text(profile: Profile) -> str:
    """The profile's tools, one MCP server's tools grouped: ``mcp__cclsp__{a,b}``."""
    out: list[str] = []
    groups: dict[str, list[str]] = {}
    for tool in profile.tools:
        if tool.startswith("mcp__") and not tool.endswith("*") and tool.count("__") >= 2:
            server, name = tool.rsplit("__", 1)
            if server not in groups:
                groups[server] = []
                out.append(server)
            groups[server].append(name)
        else:
            out.append(tool)
    return ", ".join(f"{t}__{{{','.join(groups[t])}}}" if t in groups else t for t in out)


def tool_denial(profile: Profile, agent: str, tool: str) -> str:
    return (
        f"agents-state: agent '{agent}' runs with the {profile.name} profile "
        f"({tools_text(profile)}); {tool} is not in it. Do this step with those tools, or "
        "finish with decision STOP or CLARIFY in your handoff and say what you need."
    )


def credential_denial(profile: Profile, what: str) -> str:
    return (
        f"agents-state: the {profile.name} profile may not read or search credential "
        f"files: {what}; handoffs must stay free of secrets: continue without it, and if the "
        "task needs a value from it, finish with decision CLARIFY and ask the user."
    )


def check_tool(profile: Profile, agent: str, tool: str, tool_input: Any) -> str | None:
    """Why ``agent`` may not make this call under ``profile``, judged on the text alone (the
    tool, and a ``file_path`` against the credential catalogue), or ``None``.  The PreToolUse
    hook decides on the file system instead (``hooks.profile_check``)."""
    if not tool_allowed(profile, tool):
        return tool_denial(profile, agent, tool)
    if profile.protect_secrets and isinstance(tool_input, dict):
        from agents_state.credentials import credential_entry

        for key in ("file_path", "notebook_path", "path"):
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                found = credential_entry(value)
                if found:
                    return credential_denial(profile, f"{value}: a credential file ({found})")
    return None


# -- a project's config never loosens a plugin agent (issue 32) -----------------------------------

PLUGIN_PREFIX = "subagents:"
PROJECT_LAYERS = ("project (", "agents (")  # configload's names of the project's two files


def no_looser(profile: Profile, than: Profile) -> bool:
    """``profile`` allows nothing ``than`` does not: no other tool, Bash command, network or
    git write, and credentials kept off when ``than`` keeps them off."""
    return (
        set(profile.tools) <= set(than.tools)
        and set(profile.bash_allow) <= set(than.bash_allow)
        and (profile.protect_secrets or not than.protect_secrets)
        and (than.network or not profile.network)
        and (than.git_write or not profile.git_write)
    )


def looser_parts(profile: Profile, than: Profile) -> str:
    """What ``profile`` allows beyond ``than``, in a few words."""
    parts = []
    tools = [t for t in profile.tools if t not in than.tools]
    if tools:
        parts.append("tools " + ", ".join(tools))
    commands = [" ".join(c) for c in profile.bash_allow if c not in than.bash_allow]
    if commands:
        parts.append("Bash " + ", ".join(commands))
    if than.protect_secrets and not profile.protect_secrets:
        parts.append("credential files")
    if profile.network and not than.network:
        parts.append("network")
    if profile.git_write and not than.git_write:
        parts.append("git writes")
    return "; ".join(parts)


def _layered(name: str, layers: list[dict[str, Any]]) -> Profile | None:
    """A plugin agent's profile from config layers (later wins), else the defaults."""
    spec = DEFAULT_AGENT_PROFILES.get(name)
    custom: dict[str, Any] = {}
    for data in layers:
        mapping = data.get("agentProfiles")
        if isinstance(mapping, dict):
            found = next((mapping[k] for k in (PLUGIN_PREFIX + name, name) if k in mapping), None)
            spec = found if isinstance(found, str) else spec
        extra = data.get("toolProfiles")
        if isinstance(extra, dict):
            custom.update(extra)
    return get_profile(spec, custom) if spec else None


def ignored_lifts(layers: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """One line per plugin agent whose profile the project's config layers (named by
    ``configload``) would loosen: the hook ignores that (``hooks.agentmap``); ``config show``
    and ``doctor`` say so."""
    every = [data for _, data in layers]
    own = [data for layer, data in layers if not layer.startswith(PROJECT_LAYERS)]
    lines = []
    for name in sorted(DEFAULT_AGENT_PROFILES):
        full, mine = _layered(name, every), _layered(name, own)
        if full is not None and mine is not None and not no_looser(full, mine):
            lines.append(
                f"the project's config (agentProfiles / toolProfiles) would give the plugin "
                f"agent {PLUGIN_PREFIX}{name} more than its profile '{mine.name}' "
                f"({looser_parts(full, mine)}); ignored: only ~/.claude/subagents-config.json "
                "may loosen a plugin agent's profile"
            )
    return lines
