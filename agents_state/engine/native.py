"""Which path a fan-out takes (issue 25): the host's ``Workflow`` (native) or one Agent call each.

The engine chooses, never the model: ``native_path`` reads the configuration key
``fanout.native`` (``on`` / ``off`` / ``auto``), the host's environment and its settings files.
``auto`` (the default) is native only when everything says the host has the tool:

- the command runs under Claude Code 2.1.330 or later: the host sets
  ``AI_AGENT=claude-code_<major>-<minor>-<patch>_<how>`` for its Bash tool (2.1.330 was the first
  version checked with Workflow; a terminal, another tool or an older host has no such value);
- neither ``CLAUDE_CODE_DISABLE_WORKFLOWS=1`` nor ``CLAUDE_CODE_WORKFLOWS=0`` is set;
- no settings file says ``enableWorkflows: false`` or ``disableWorkflows: true`` (user:
  ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``; project and local: ``.claude/settings.json`` and
  ``.claude/settings.local.json`` of the project).

``on`` forces the native path whatever the host says; ``off`` keeps today's Agent calls.
``native_decision`` turns a fan-out step into its native form (pure).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from agents_state.engine.decision import Decision
from agents_state.engine.fanout import FANOUT_WORDS, fanout_id, recorded, workflow_call
from agents_state.models import State

__all__ = ["MIN_HOST", "FanoutPath", "host_version", "native_decision", "native_path"]

MIN_HOST = (2, 1, 330)
_AI_AGENT = r"claude-code_(\d+)-(\d+)-(\d+)(?:_.*)?"  # compiled on first use (re's cache)


class FanoutPath:
    """The path in use and why (``status`` says both)."""

    __slots__ = ("native", "reason")

    def __init__(self, native: bool, reason: str) -> None:
        self.native, self.reason = native, reason

    def as_dict(self) -> dict[str, Any]:
        return {"path": "workflow" if self.native else "agents", "reason": self.reason}


def host_version(env: Mapping[str, str]) -> tuple[int, int, int] | None:
    found = re.fullmatch(_AI_AGENT, env.get("AI_AGENT", "").strip())
    if not found:
        return None
    return int(found.group(1)), int(found.group(2)), int(found.group(3))


def _settings_files(root: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    config_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".claude"
    )
    return [
        ("user settings", os.path.join(config_dir, "settings.json")),
        ("project settings", os.path.join(root, ".claude", "settings.json")),
        ("local settings", os.path.join(root, ".claude", "settings.local.json")),
    ]


def _settings_off(root: str, env: Mapping[str, str]) -> str | None:
    for layer, path in _settings_files(root, env):
        try:
            with open(path, "rb") as f:
                data = json.loads(f.read(1 << 20))
        except (OSError, ValueError, RecursionError):
            continue  # missing or unreadable: the host reads it the same way (ignored)
        if not isinstance(data, dict):
            continue
        if data.get("enableWorkflows") is False:
            return f"enableWorkflows is false in the {layer} ({path})"
        if data.get("disableWorkflows") is True:
            return f"disableWorkflows is true in the {layer} ({path})"
    return None


def native_path(setting: str, root: str, env: Mapping[str, str] | None = None) -> FanoutPath:
    """The path for ``fanout.native`` = ``setting`` in the project ``root``."""
    env = os.environ if env is None else env
    if setting == "off":
        return FanoutPath(False, "fanout.native is off")
    if setting == "on":
        return FanoutPath(True, "fanout.native is on")
    if env.get("CLAUDE_CODE_DISABLE_WORKFLOWS", "").strip() not in ("", "0", "false"):
        return FanoutPath(False, "CLAUDE_CODE_DISABLE_WORKFLOWS is set")
    if env.get("CLAUDE_CODE_WORKFLOWS", "").strip() in ("0", "false"):
        return FanoutPath(False, "CLAUDE_CODE_WORKFLOWS is 0")
    version = host_version(env)
    if version is None:
        return FanoutPath(False, "not run by Claude Code's Bash tool (no AI_AGENT host version)")
    shown = ".".join(map(str, version))
    if version < MIN_HOST:
        return FanoutPath(False, f"Claude Code {shown} is older than 2.1.330 (no Workflow tool)")
    off = _settings_off(root, env)
    if off:
        return FanoutPath(False, off)
    return FanoutPath(True, f"Claude Code {shown} offers the Workflow tool")


def native_decision(state: State, d: Decision) -> Decision:
    """A fan-out step run as one Workflow call (or, when every agent has answered, the merge);
    any other step as it is."""
    key, facts = d.words
    if key not in FANOUT_WORDS or d.phase is None:
        return d
    call = workflow_call(state, d)
    if key == "wave":
        if call is None:
            return d
        words = ("native_wave", {**facts, "count": len(call["args"]["agents"])})
        return Decision(
            d.kind, d.phase, words, d.command, d.read, d.write, d.agents, **d.extra, workflow=call
        )
    if d.agents is None or d.agents.get("agentModel") is None:
        return d  # a Codex model: agents-state review run, or the fallback reviewer
    fan = fanout_id(d.phase)
    total = int((d.agents or {}).get("count") or 1)
    done = recorded(state, fan)
    answers = f".agents/phases/fanout-{fan}.json"
    facts = {
        **facts,
        "fanout": fan,
        "total": total,
        "answered": len(done),
        "answers": answers,
        "left": len(call["args"]["agents"]) if call else 0,
    }
    extra = {k: v for k, v in d.extra.items() if k != "answered"}
    command = d.command
    if command and command.startswith("agents-state phase complete "):
        command += " --from-answers"  # issue 34: the engine drafts the artifact if none is written
    return Decision(
        d.kind,
        d.phase,
        ("native_phase", facts),
        command,
        [*d.read, answers] if done else d.read,
        d.write,
        d.agents,
        **extra,
        answered=len(done),
        workflow=call,
    )
