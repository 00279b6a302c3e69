"""Issue 10: `scaffold` writes design 003's layout from the engine's own definitions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from chainhelp import Walk

from agents_state.chains.catalogue import CHAINS, PATTERNS, TEMPLATES
from agents_state.handoff import models as hm
from agents_state.handoff.protocol import check_handoff
from agents_state.profiles import PROFILES, get_profile
from agents_state.scaffold import BASE, GENERIC, OUTPUT_KIND, OUTPUTS, scaffold_files

PLUGIN = Path(__file__).resolve().parents[2]


def _json_blocks(text: str) -> list[object]:
    return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]


def test_layout_of_design_003() -> None:
    files = scaffold_files()
    expected = {
        f"{BASE}/README.md",
        f"{BASE}/protocols/handoff.md",
        f"{BASE}/protocols/orchestration.md",
        *(
            f"{BASE}/templates/{n}.md"
            for n in ("researcher", "writer", "validator", "parallel-executor", *TEMPLATES)
        ),
        *(f"{BASE}/profiles/{p.name}.md" for p in PROFILES),
    }
    assert set(files) == expected


def test_handoff_schemas_are_the_models() -> None:
    request, response = _json_blocks(scaffold_files()[f"{BASE}/protocols/handoff.md"])
    assert request == hm.HandoffRequest.model_json_schema()  # REQ-2.1
    assert response == hm.HandoffResponse.model_json_schema()  # REQ-2.2


def test_orchestration_has_the_three_patterns_with_pseudocode() -> None:
    text = scaffold_files()[f"{BASE}/protocols/orchestration.md"]
    for i, p in enumerate(PATTERNS.values(), 1):
        assert f"## Pattern {i}: {p.title}" in text
        assert f"```typescript\n{p.pseudocode}\n```" in text  # REQ-4.5
    for c in CHAINS.values():
        assert f"| {c.name} | {c.pattern} |" in text


def test_profiles_list_the_engines_tools() -> None:
    files = scaffold_files()
    for p in PROFILES:
        text = files[f"{BASE}/profiles/{p.name}.md"]
        tools = re.findall(r"^  - (.+)$", text, re.M)
        assert tuple(tools) == p.tools
        assert f"protect_secrets: {str(p.protect_secrets).lower()}" in text


@pytest.mark.parametrize("name", [*GENERIC, *TEMPLATES])
def test_templates_follow_req_1_5_and_the_models(name: str) -> None:
    text = scaffold_files()[f"{BASE}/templates/{name}.md"]
    t = TEMPLATES[GENERIC.get(name, name)]
    for section in ("Role", "Model", "Profile", "Input", "Output", "Behaviour"):
        assert f"\n## {section}\n" in text
    assert f"`{t.model}` (design 000)" in text
    profile = get_profile(t.profile)
    assert profile is not None and ", ".join(profile.tools) in text
    request, output = _json_blocks(text)
    check_handoff(request, name, "request")  # type: ignore[arg-type]
    check_handoff(output, name, OUTPUT_KIND.get(t.name, "validator"))  # type: ignore[arg-type]


def test_plugin_agents_agree_with_the_templates() -> None:
    for name, t in TEMPLATES.items():
        head = (PLUGIN / "agents" / f"{name}.md").read_text().split("\n---\n", 1)[0]
        assert f"\nmodel: {t.model}\n" in head, name
        profile = re.search(r"\nprofile: (.+)\n", head)
        assert profile and get_profile(profile.group(1)) is not None
    assert set(OUTPUTS) >= set(OUTPUT_KIND.values())


def test_scaffold_cli_dry_run_writes_nothing_and_force_overwrites(root: Path) -> None:
    w = Walk(root)
    out = w.js("scaffold", "--dry-run")
    assert {f["action"] for f in out["files"]} == {"would write"}
    assert not (root / ".claude").exists()
    out = w.js("scaffold")
    assert {f["action"] for f in out["files"]} == {"written"}
    for rel, text in scaffold_files().items():  # regenerated, byte for byte
        assert (root / rel).read_text() == text
    readme = root / BASE / "README.md"
    readme.write_text("my notes\n")
    out = w.js("scaffold")
    by_path = {f["path"]: f["action"] for f in out["files"]}
    assert by_path[f"{BASE}/README.md"] == "kept (differs; --force overwrites)"
    assert set(by_path.values()) == {"unchanged", "kept (differs; --force overwrites)"}
    assert readme.read_text() == "my notes\n"
    assert "would write" in w.run("scaffold", "--dry-run", "--force")
    assert readme.read_text() == "my notes\n"
    w.run("scaffold", "--force")
    assert readme.read_text() == scaffold_files()[f"{BASE}/README.md"]
