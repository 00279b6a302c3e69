"""Issue 18: the agent -> profile declarations agree: the built-in defaults (the one table), the
scaffold templates (design 000/001, which read it) and the frontmatter of the plugin's
``agents/*.md``, with no exception (``tests/plugin/test_plugin_files.py`` holds each file's
``tools:`` to its profile)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents_state import scaffold
from agents_state.chains.catalogue import TEMPLATES
from agents_state.profiles import DEFAULT_AGENT_PROFILES, get_profile

AGENTS = Path(__file__).resolve().parent.parent / "agents"


def _frontmatter_profile(path: Path) -> str:
    head = path.read_text(encoding="utf-8").split("---")[1]
    return next(
        line.split(":", 1)[1].strip() for line in head.splitlines() if line.startswith("profile:")
    )


def test_templates_and_defaults_agree() -> None:
    assert {n: t.profile for n, t in TEMPLATES.items()} == {
        n: DEFAULT_AGENT_PROFILES[n] for n in TEMPLATES
    }
    assert all(t.profile in scaffold.template_md(t) for t in TEMPLATES.values())


def test_a_template_has_no_profile_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is the source: changing it changes the template (and its scaffolded file)."""
    monkeypatch.setitem(DEFAULT_AGENT_PROFILES, "pr-reviewer", "reader")
    assert TEMPLATES["pr-reviewer"].profile == "reader"
    assert "`reader`: Read, Grep, Glob" in scaffold.template_md(TEMPLATES["pr-reviewer"])


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
    assert found == {}
