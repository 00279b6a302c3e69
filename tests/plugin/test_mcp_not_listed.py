"""Issue 36: the Claude Code plugin does not list the MCP server (``agents-state mcp``): it drives
the same commands through Bash, and a listed server would cost context in every session."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLUGIN_DIRS = ("agents", "commands", "skills", "hooks", "bin", "workflows", ".claude-plugin")


def test_no_mcp_json_and_no_mcp_servers_in_the_manifests() -> None:
    assert not (REPO / ".mcp.json").exists()
    manifest = json.loads((REPO / ".claude-plugin/plugin.json").read_text())
    assert "mcpServers" not in manifest
    market = json.loads((REPO / ".claude-plugin/marketplace.json").read_text())
    assert all("mcpServers" not in p for p in market["plugins"])


def test_no_plugin_file_starts_the_mcp_server() -> None:
    found = []
    for folder in PLUGIN_DIRS:
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and path.suffix != ".png":
                text = path.read_text(encoding="utf-8", errors="replace")
                if "agents-state mcp" in text or "mcpServers" in text or ".mcp.json" in text:
                    found.append(str(path.relative_to(REPO)))
    assert found == []
