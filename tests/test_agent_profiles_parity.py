"""Issue 18: the agent -> profile declarations agree: the built-in defaults, the scaffold
templates (design 000/001) and the frontmatter of the plugin's ``agents/*.md``."""

from __future__ import annotations

from pathlib import Path

from agents_state.chains.catalogue import TEMPLATES
from agents_state.profiles import DEFAULT_AGENT_PROFILES, get_profile

AGENTS = Path(__file__).resolve().parent.parent / "agents"

# Disagreements found by this test and left for a decision (docs/decisions.md, issue 18): the
# agent file grants Bash (validator) where the defaults say reader, and no sub-agent spawning
# (validator) where the defaults say orchestrator.
KNOWN_DISAGREEMENTS = {
    "pr-reviewer": ("validator", "reader"),
    "parallel-executor": ("validator", "orchestrator"),
}


def _frontmatter_profile(path: Path) -> str:
    head = path.read_text(encoding="utf-8").split("---")[1]
    return next(
        line.split(":", 1)[1].strip() for line in head.splitlines() if line.startswith("profile:")
    )


def test_templates_and_defaults_agree() -> None:
    assert {n: t.profile for n, t in TEMPLATES.items()} == {
        n: DEFAULT_AGENT_PROFILES[n] for n in TEMPLATES
    }


def test_every_plugin_agent_has_the_default_profile_its_file_declares() -> None:
    files = sorted(AGENTS.glob("*.md"))
    assert len(files) >= 10
    found = {}
    for f in files:
        declared = _frontmatter_profile(f)
        assert get_profile(declared) is not None, f.name
        default = DEFAULT_AGENT_PROFILES.get(f.stem)
        assert default is not None, f"{f.stem} has no built-in profile: it would run unguarded"
        if declared != default:
            found[f.stem] = (declared, default)
    assert found == KNOWN_DISAGREEMENTS
