"""Read the plugin's own files: front matter, shell blocks of commands, the manifest."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PLUGIN_ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = PLUGIN_ROOT / "bin" / "agents-state"

# Claude Code's shell-execution markers in command, skill and agent bodies (the same patterns the
# CLI uses): a fenced block opened by ```! and an inline !`cmd` after a line start or a space.
FENCED = re.compile(r"```!\s*\n?([\s\S]*?)\n?```")
INLINE = re.compile(r"(?:^|(?<=\s))!`([^`]+)`", re.M)
# Argument placeholders Claude Code substitutes as raw text.
PLACEHOLDER = re.compile(r"\$ARGUMENTS(\[\d+\])?|\$\d+(?!\w)")


@dataclass(frozen=True)
class Doc:
    path: Path
    meta: dict[str, str]
    raw_meta: dict[str, str]  # values as written, quotes included
    body: str


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return json.loads(value) if value[0] == '"' else inner.replace("''", "'")
    return value


def read_doc(path: Path) -> Doc:
    """A Markdown file with YAML front matter of plain ``key: value`` lines (all ours are)."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise AssertionError(f"{path}: no front matter")
    end = text.find("\n---\n", 4)
    if end == -1:
        raise AssertionError(f"{path}: front matter not closed")
    meta: dict[str, str] = {}
    raw: dict[str, str] = {}
    for line in text[4:end].splitlines():
        m = re.fullmatch(r"([A-Za-z][A-Za-z0-9_-]*):[ \t]*(.*?)[ \t]*", line)
        if not m:
            raise AssertionError(f"{path}: front matter line is not 'key: value': {line!r}")
        key, value = m.groups()
        if key in meta:
            raise AssertionError(f"{path}: front matter key {key!r} twice")
        raw[key] = value
        meta[key] = _unquote(value)
    return Doc(path, meta, raw, text[end + 5 :])


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PLUGIN_ROOT / ".claude-plugin" / "plugin.json").read_text())
    return data


def commands() -> list[Doc]:
    return [read_doc(p) for p in sorted((PLUGIN_ROOT / "commands").glob("*.md"))]


def skills() -> list[Doc]:
    return [read_doc(p) for p in sorted((PLUGIN_ROOT / "skills").glob("*/SKILL.md"))]


def agents() -> list[Doc]:
    return [read_doc(p) for p in sorted((PLUGIN_ROOT / "agents").glob("*.md"))]


def shell_blocks(body: str) -> list[str]:
    """The shell text of every ```! block and !`cmd` span of a body, in order."""
    fenced = [m.group(1) for m in FENCED.finditer(body)]
    rest = FENCED.sub("", body)
    return fenced + [m.group(1) for m in INLINE.finditer(rest)]


_HEREDOC = re.compile(r"<<-?[ \t]*(['\"])([A-Za-z_][A-Za-z0-9_]*)\1")


def split_heredocs(script: str) -> tuple[str, list[str]]:
    """The script with the bodies of quoted here-documents removed, and those bodies.

    Only quoted delimiters (``<<'EOF'``) count: their bodies are data, never expanded.
    """
    lines = script.split("\n")
    kept: list[str] = []
    bodies: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        kept.append(line)
        i += 1
        for m in _HEREDOC.finditer(line):
            delimiter = m.group(2)
            body: list[str] = []
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise AssertionError(f"here-document {delimiter} is not closed")
            i += 1
            bodies.append("\n".join(body))
    return "\n".join(kept), bodies


def simple_commands(script: str) -> list[str]:
    """Each simple command of a script without here-document bodies, split on ; & | and lines."""
    parts = re.split(r"\n|;|&&|\|\||\|", script)
    return [p.strip() for p in parts if p.strip()]


def bash_rules(allowed_tools: str) -> list[str]:
    """The patterns of the ``Bash(...)`` rules of an ``allowed-tools`` value."""
    return re.findall(r"Bash\(([^)]*)\)", allowed_tools)


def rule_covers(rule: str, command: str) -> bool:
    """Whether a Bash permission rule matches a command (prefix rules ``x *`` or ``x:*``)."""
    command = _HEREDOC.sub("", command).strip()
    for suffix in (" *", ":*"):
        if rule.endswith(suffix):
            prefix = rule[: -len(suffix)]
            return command == prefix or command.startswith(prefix + " ")
    return command == rule
