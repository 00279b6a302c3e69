"""Which profile a sub-agent runs with: config, else its definition file, else the defaults.

1. ``agentProfiles`` in the config layers (later wins): ``~/.claude/subagents-config.json``,
   ``.claude/subagents-config.json``, ``.agents/config.json``; custom profiles go under
   ``toolProfiles``.
2. A ``profile:`` line in the agent's definition file front matter: ``.claude/agents/<type>.md``
   under the root, then ``$CLAUDE_PLUGIN_ROOT/agents/<type>.md``.
3. ``profiles.DEFAULT_AGENT_PROFILES``.

An agent type is looked up without the plugin's ``subagents:`` prefix; a type found nowhere has no
profile, and the hook allows its calls.
"""

from __future__ import annotations

import os
import re
from typing import Any

import orjson

from agents_state.fsops import read_regular
from agents_state.hooks._base import warn
from agents_state.profiles import DEFAULT_AGENT_PROFILES, Profile, get_profile

__all__ = ["agent_name", "config_layers", "profile_for"]

PLUGIN_PREFIX = "subagents:"
_FRONT_PROFILE = re.compile(r"^profile:\s*['\"]?([A-Za-z0-9_+.-]+)['\"]?\s*$", re.M)


def agent_name(agent_type: str) -> str:
    name = agent_type.strip()
    return name[len(PLUGIN_PREFIX):] if name.startswith(PLUGIN_PREFIX) else name


def config_layers(root: str) -> list[str]:
    return [os.path.join(os.path.expanduser("~"), ".claude", "subagents-config.json"),
            os.path.join(root, ".claude", "subagents-config.json"),
            os.path.join(root, ".agents", "config.json")]


def _read_json(path: str) -> dict[str, Any]:
    try:
        data = orjson.loads(read_regular(path, path, follow=True))  # no FIFO: never hangs
    except FileNotFoundError:
        return {}
    except (OSError, orjson.JSONDecodeError) as e:
        warn(f"ignoring {path} for tool profiles ({e})")
        return {}
    return data if isinstance(data, dict) else {}


def _from_config(root: str, names: tuple[str, ...]) -> tuple[str | None, dict[str, Any]]:
    spec: str | None = None
    custom: dict[str, Any] = {}
    for path in config_layers(root):
        data = _read_json(path)
        mapping = data.get("agentProfiles")
        if isinstance(mapping, dict):
            for name in names:
                if isinstance(mapping.get(name), str):
                    spec = mapping[name]
                    break
        extra = data.get("toolProfiles")
        if isinstance(extra, dict):
            custom.update(extra)
    return spec, custom


def _from_agent_file(root: str, name: str) -> str | None:
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        return None
    dirs = [os.path.join(root, ".claude", "agents")]
    plugin = os.environ.get("CLAUDE_PLUGIN_ROOT")
    if plugin:
        dirs.append(os.path.join(plugin, "agents"))
    for d in dirs:
        try:
            with open(os.path.join(d, name + ".md"), encoding="utf-8") as f:
                text = f.read(8192)
        except OSError:
            continue
        if text.startswith("---"):
            end = text.find("\n---", 3)
            m = _FRONT_PROFILE.search(text[3:end if end != -1 else len(text)])
            if m:
                return m.group(1)
    return None


def profile_for(root: str, agent_type: str) -> Profile | None:
    """The profile of ``agent_type`` (e.g. ``subagents:worker``), or ``None`` if it has none."""
    name = agent_name(agent_type)
    spec, custom = _from_config(root, (agent_type.strip(), name))
    spec = spec or _from_agent_file(root, name) or DEFAULT_AGENT_PROFILES.get(name)
    if spec is None:
        return None
    profile = get_profile(spec, custom)
    if profile is None:
        warn(f"agent '{name}' names an unknown profile '{spec}'; allowing its tool calls")
    return profile
