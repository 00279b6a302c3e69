"""Which profile a sub-agent runs with: config, else its definition file, else the defaults.

1. ``agentProfiles`` in the config layers (later wins): ``~/.claude/subagents-config.json``,
   ``.claude/subagents-config.json``, ``.agents/config.json``; custom profiles go under
   ``toolProfiles``.
2. A ``profile:`` line in the agent's definition file front matter: ``.claude/agents/<type>.md``
   under the root, then ``$CLAUDE_PLUGIN_ROOT/agents/<type>.md``; for this plugin's own agents
   (``subagents:<name>``) only the plugin's file, which is their definition: a project's
   ``.claude/agents/<name>.md`` is another agent (a cloned repository's could lift a plugin
   agent out of its profile).
3. ``profiles.DEFAULT_AGENT_PROFILES``.

For this plugin's own agents, what the project's layers say counts only when it loosens nothing
over the user's layer and the defaults (``profiles.no_looser``): a cloned repository's config
cannot lift them (issue 32), as its ``.claude/agents/<name>.md`` cannot.

An agent type is looked up without the plugin's ``subagents:`` prefix; a type found nowhere has no
profile, and the hook allows its calls.  A config layer that cannot be read, or a profile name
that names no profile, raises ``ProfileUndecidable``: the hook then denies (fails closed).
"""

from __future__ import annotations

import os

from agents_state.hooks.hookjson import loads_file
from agents_state.hooks.workflow_root import read_regular
from agents_state.profiles import (
    DEFAULT_AGENT_PROFILES,
    PROFILES,
    Profile,
    get_profile,
    no_looser,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "FRONT_PROFILE",
    "ProfileUndecidable",
    "agent_name",
    "config_layers",
    "front_profile",
    "profile_for",
]


class ProfileUndecidable(Exception):
    """Which profile applies cannot be told; the message says why, in one line."""


PLUGIN_PREFIX = "subagents:"
FRONT_PROFILE = r"^profile:\s*['\"]?([A-Za-z0-9_+.-]+)['\"]?\s*$"  # multi-line: re.M
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PROFILE_CHARS = _NAME_CHARS | {"+"}


def agent_name(agent_type: str) -> str:
    name = agent_type.strip()
    return name[len(PLUGIN_PREFIX) :] if name.startswith(PLUGIN_PREFIX) else name


def config_layers(root: str) -> list[str]:
    return [
        os.path.join(os.path.expanduser("~"), ".claude", "subagents-config.json"),
        os.path.join(root, ".claude", "subagents-config.json"),
        os.path.join(root, ".agents", "config.json"),
    ]


def _read_json(path: str) -> dict[str, Any]:
    try:
        raw = read_regular(path, 16 * 1024 * 1024)
        if len(raw) > 16 * 1024 * 1024:
            raise ProfileUndecidable(f"{path} is larger than 16 MiB")
        data = loads_file(raw)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ProfileUndecidable(f"cannot read {path} ({e})") from None
    if not isinstance(data, dict):
        raise ProfileUndecidable(f"{path} holds a JSON {type(data).__name__}, not an object")
    return data


def _from_config(
    layers: list[str], names: tuple[str, ...]
) -> tuple[str | None, str, dict[str, Any]]:
    spec: str | None = None
    source = ""
    custom: dict[str, Any] = {}
    for path in layers:
        data = _read_json(path)
        mapping = data.get("agentProfiles")
        if isinstance(mapping, dict):
            for name in names:
                if isinstance(mapping.get(name), str):
                    spec, source = mapping[name], f"agentProfiles in {path}"
                    break
        extra = data.get("toolProfiles")
        if isinstance(extra, dict):
            custom.update(extra)
    return spec, source, custom


def _from_agent_file(root: str, name: str, plugin_agent: bool) -> tuple[str, str] | None:
    if not name or not _NAME_CHARS.issuperset(name):  # [A-Za-z0-9_.-]+
        return None
    dirs = [] if plugin_agent else [os.path.join(root, ".claude", "agents")]
    plugin = os.environ.get("CLAUDE_PLUGIN_ROOT")
    if plugin:
        dirs.append(os.path.join(plugin, "agents"))
    for d in dirs:
        path = os.path.join(d, name + ".md")
        try:
            text = read_regular(path, 1 << 20)[:8192].decode("utf-8", "replace").lstrip("\ufeff")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError) as e:
            raise ProfileUndecidable(f"cannot read the agent file {path} ({e})") from None
        if text.startswith("---"):
            end = text.find("\n---", 3)
            spec = front_profile(text[3 : end if end != -1 else len(text)])
            if spec:
                return spec, f"the profile: line of {path}"
    return None


def front_profile(front: str) -> str | None:
    """The profile a front matter names: ``FRONT_PROFILE``'s first match.  The usual line
    (``profile: reader``, spaces only around the name) is read without ``re``, which costs the
    hook about 5 ms to import; any other shape goes to the expression itself."""
    start = 0
    if not front.startswith("profile:"):
        start = front.find("\nprofile:") + 1
        if not start:
            return None  # no line starts with it: the expression cannot match
    line_end = front.find("\n", start)
    spec = front[start + len("profile:") : line_end if line_end != -1 else len(front)].strip(" ")
    if spec and _PROFILE_CHARS.issuperset(spec):
        return spec
    import re

    m = re.search(FRONT_PROFILE, front, re.M)
    return m.group(1) if m else None


def profile_for(root: str, agent_type: str) -> Profile | None:
    """The profile of ``agent_type`` (e.g. ``subagents:worker``), or ``None`` if it has none.

    For this plugin's own agents the project's layers (``.claude/subagents-config.json``,
    ``.agents/config.json``: a cloned repository writes them) may narrow the profile, never
    loosen it: a looser result is ignored for the user's layer and the defaults (issue 32).

    Raises ``ProfileUndecidable`` when a layer cannot be read or the name matches no profile."""
    layers = config_layers(root)
    profile = _profile(root, agent_type, layers)
    if not agent_type.strip().startswith(PLUGIN_PREFIX) or profile is None:
        return profile
    own = _profile(root, agent_type, layers[:1])
    return profile if own is not None and no_looser(profile, own) else own


def _profile(root: str, agent_type: str, layers: list[str]) -> Profile | None:
    name = agent_name(agent_type)
    spec, source, custom = _from_config(layers, (agent_type.strip(), name))
    if spec is None:
        found = _from_agent_file(root, name, agent_type.strip().startswith(PLUGIN_PREFIX))
        if found:
            spec, source = found
    if spec is None and name in DEFAULT_AGENT_PROFILES:
        spec, source = DEFAULT_AGENT_PROFILES[name], "the built-in defaults"
    if spec is None:
        return None
    profile = get_profile(spec, custom)
    if profile is None:
        from agents_state.strictkeys import closest  # only on this error path

        known = [n for p in PROFILES for n in (p.name, *p.aliases)] + sorted(custom)
        close = closest(spec.split("+")[0].strip(), known)
        hint = f"did you mean '{close}'? " if close else ""
        raise ProfileUndecidable(
            f"agent '{name}' names the unknown profile '{spec}' ({source}); {hint}profiles are "
            f"{', '.join(known)}"
        )
    return profile
