"""The plugin's lines in the host's listings (issue 34), built from the plugin files as Claude Code
2.1.330 builds them (checked against its requests by ``test_listing_size.py``):

- each agent: ``- subagents:<name>: <description> (Tools: <the tools line, ", " joined>)`` in the
  Agent tool's list of agent types;
- each skill, command and workflow: ``- subagents:<name>: <description>`` in the skills list, a
  workflow's ``whenToUse`` after `` - ``; the host writes ``<``, ``>`` and ``&`` as entities.
"""

from __future__ import annotations

import html
import re

from pluginfiles import PLUGIN_ROOT, agents, commands, skills

__all__ = ["LISTED", "listing_lines", "listing_size"]

LISTED = "- subagents:"
_META = re.compile(r'\b(name|description|whenToUse):\s*"((?:[^"\\]|\\.)*)"')


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def listing_lines() -> list[str]:
    lines = []
    for doc in agents():
        tools = ", ".join(t.strip() for t in doc.meta["tools"].split(",") if t.strip())
        lines.append(f"{LISTED}{doc.meta['name']}: {doc.meta['description']} (Tools: {tools})")
    for doc in commands():
        lines.append(f"{LISTED}{doc.path.stem}: {_escape(doc.meta['description'])}")
    for doc in skills():
        lines.append(f"{LISTED}{doc.meta['name']}: {_escape(doc.meta['description'])}")
    for path in sorted((PLUGIN_ROOT / "workflows").glob("*.js")):
        meta = dict(_META.findall(path.read_text(encoding="utf-8")))
        said = " - ".join(m for m in (meta.get("description"), meta.get("whenToUse")) if m)
        lines.append(f"{LISTED}{meta['name']}: {_escape(said)}")
    return lines


def listing_size() -> int:
    """Characters of the plugin's listing lines, a newline each."""
    return sum(len(line) + 1 for line in listing_lines())
