"""Tool permission profiles (designs 000 / 001, REQ-3.1 .. REQ-3.6), declared once as data.

A profile is a list of tool-name patterns (``mcp__cclsp__*`` matches every tool of that MCP
server, ``*`` matches all) and whether it may touch credential files.  Both naming schemes are
accepted: design 000's ``reader`` / ``researcher`` / ``writer`` / ``orchestrator`` (canonical) and
design 001's ``read-only`` / ``research`` / ``writer`` / ``full-access``.  A spec may add tools to a
base profile: ``reader+Bash`` is design 000's "reader + Bash" of the validator and checkers.

This module is on the hot path of the ``PreToolUse`` hook: it imports nothing heavier than ``re``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_AGENT_PROFILES",
    "PROFILES",
    "Profile",
    "check_tool",
    "get_profile",
    "sensitive_target",
    "tool_allowed",
]

_READ = ("Read", "Grep", "Glob", "mcp__cclsp__*")


@dataclass(frozen=True)
class Profile:
    name: str
    aliases: tuple[str, ...]
    tools: tuple[str, ...]
    protect_secrets: bool  # may not read .env or credential files (design 001, security)
    description: str

    @property
    def names(self) -> str:
        return " / ".join((self.name, *self.aliases))


PROFILES: tuple[Profile, ...] = (
    Profile("reader", ("read-only",), _READ, True, "Read and search only, no modifications"),
    Profile("researcher", ("research",), (*_READ, "WebFetch", "WebSearch", "mcp__context7__*"),
            True, "Read, search and web lookup"),
    Profile("validator", ("qa",), ("Read", "Grep", "Glob", "Bash", "mcp__cclsp__*"), True,
            "reader + Bash: runs type checks, lint, tests and builds"),
    Profile("writer", (), ("Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "Grep",
                           "Glob", "mcp__cclsp__*"), False,
            "Full file operations and build commands"),
    Profile("orchestrator", ("full-access",), ("*",), False,
            "All tools, including Task / Agent for spawning sub-agents"),
)

_BY_NAME: dict[str, Profile] = {n: p for p in PROFILES for n in (p.name, *p.aliases)}

# Which agent type runs with which profile, unless the config or the agent's definition file says
# otherwise.  Names are agent types without the plugin prefix (``subagents:worker`` -> ``worker``).
DEFAULT_AGENT_PROFILES: dict[str, str] = {
    # design 004 workflow agents
    "explore": "researcher", "plan": "researcher", "task": "writer", "worker": "writer",
    "reviewer": "reader",
    # design 000 consolidated templates
    "domain-researcher": "researcher", "domain-writer": "writer",
    "quality-validator": "validator", "quality-checker": "validator",
    "spec-analyzer": "researcher", "git-content-generator": "validator",
    "code-analyzer": "researcher+Bash", "git-executor": "validator", "pr-reviewer": "reader",
    "security-scanner": "validator", "parallel-executor": "orchestrator",
    # designs 001 / 002
    "researcher": "researcher", "writer": "writer", "validator": "validator",
    "code-researcher": "researcher", "code-writer": "writer", "code-qa": "validator",
}

_SPAWN = ("Task", "Agent")  # the sub-agent tool was renamed from Task to Agent


def get_profile(spec: str, custom: dict[str, Any] | None = None) -> Profile | None:
    """The profile for ``spec`` (a name, an alias, or ``base+Tool+Tool``), or ``None``."""
    base, *extra = [part.strip() for part in spec.split("+")]
    profile = _BY_NAME.get(base)
    if profile is None and custom and isinstance(custom.get(base), dict):
        profile = _custom(base, custom[base])
    if profile is None:
        return None
    if not extra:
        return profile
    return Profile(spec, (), (*profile.tools, *[t for t in extra if t]), profile.protect_secrets,
                   f"{profile.name} + {', '.join(extra)}")


def _custom(name: str, data: dict[str, Any]) -> Profile | None:
    tools = data.get("tools")
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        return None
    return Profile(name, (), tuple(tools), bool(data.get("protectSecrets", True)),
                   str(data.get("description", "custom profile")))


def tool_allowed(profile: Profile, tool: str) -> bool:
    for pattern in profile.tools:
        if pattern == "*" or pattern == tool:
            return True
        if pattern.endswith("*") and tool.startswith(pattern[:-1]):
            return True
        if pattern in _SPAWN and tool in _SPAWN:
            return True
    return False


# -- credential files -------------------------------------------------------------------------

_SENSITIVE_NAME = re.compile(
    r"""^(?:
        \.env(?:\..+)? | \.envrc |
        .+\.(?:pem|key|p12|pfx|jks|keystore|ppk) | \.(?:pem|key|p12|pfx) |
        id_(?:rsa|dsa|ecdsa|ed25519) |
        (?:.+[-_.])?credentials(?:\.[a-z]+)? | \.git-credentials |
        \.netrc | \.pgpass | \.npmrc | \.pypirc |
        (?:.+[-_.])?secrets?\.(?:json|ya?ml|toml|env) |
        service[-_]?account.*\.json
    )$""",
    re.X | re.I,
)
_TEMPLATE = re.compile(r"\.(?:example|sample|template|dist|defaults?|schema)$", re.I)
_SENSITIVE_DIRS = frozenset({".ssh", ".aws", ".gnupg", ".azure", ".kube"})
_SPLIT = re.compile(r"[\s'\"`;|&<>()=,]+")
_PATH_KEYS = ("file_path", "path", "notebook_path", "glob")


def _sensitive_word(word: str) -> bool:
    parts = [p for p in re.split(r"[\\/]", word) if p]
    if not parts:
        return False
    if any(p in _SENSITIVE_DIRS for p in parts[:-1]):
        return True
    name = parts[-1].replace("*", "").replace("?", "")
    if not name or _TEMPLATE.search(name):
        return False
    return bool(_SENSITIVE_NAME.match(name)) or name.startswith(".env")


def sensitive_target(tool: str, tool_input: Any) -> str | None:
    """The credential file a tool call would read or search, or ``None``."""
    if not isinstance(tool_input, dict):
        return None
    words: list[str] = []
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str):
            words.append(value)
    if tool == "Glob" and isinstance(tool_input.get("pattern"), str):
        words.append(tool_input["pattern"])
    if tool == "Bash" and isinstance(tool_input.get("command"), str):
        words.extend(_SPLIT.split(tool_input["command"]))
    return next((w for w in words if w and _sensitive_word(w)), None)


def check_tool(profile: Profile, agent: str, tool: str, tool_input: Any) -> str | None:
    """Why ``agent`` may not make this call under ``profile``, or ``None`` if it may."""
    if not tool_allowed(profile, tool):
        return (f"agents-state: agent '{agent}' runs with the {profile.name} profile "
                f"({', '.join(profile.tools)}); {tool} is not in it. Do this step with those "
                "tools, or finish with decision STOP or CLARIFY in your handoff and say what "
                "you need.")
    if profile.protect_secrets:
        target = sensitive_target(tool, tool_input)
        if target:
            return (f"agents-state: the {profile.name} profile may not read or search "
                    f"credential files ({target}); handoffs must stay free of secrets. Continue "
                    "without it; if the task needs a value from it, finish with decision "
                    "CLARIFY and ask the user.")
    return None
