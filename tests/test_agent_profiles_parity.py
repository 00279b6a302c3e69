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


# placeholders of an agent's "## Profile" section, filled in to make a real command
_PLACEHOLDERS = [
    ("[BRANCH | SRC:DST]", "feat/x:refs/heads/feat/x"),
    ("[START]", "main"),
    ("BRANCH", "feat/x"),
    ("FILE...", "src/auth.ts"),
    ("'MESSAGE'", "'feat: x'"),
    ("[-u]", "-u"),
    ("REMOTE", "origin"),
    ("'...'", "'text'"),
    ("[--base B]", "--base main"),
    ("[--draft]", "--draft"),
]


def _promised_git_calls(path: Path) -> list[str]:
    """The git and gh commands an agent file's "## Profile" bullets promise (the first words of
    each backticked snippet outside parentheses, which list what is refused)."""
    import re

    text = path.read_text(encoding="utf-8")
    section = text.split("## Profile", 1)[1].split("\n## ", 1)[0]
    bullets = section.split("\n- ")[1:]
    calls = []
    for bullet in bullets:
        bullet = re.sub(r"\([^)]*\)", "", bullet.split("\n\n")[0])
        for snippet in re.findall(r"`([^`]+)`", bullet):
            if snippet.startswith(("git ", "gh ")):
                for placeholder, value in _PLACEHOLDERS:
                    snippet = snippet.replace(placeholder, value)
                assert not re.search(r"[A-Z]{2,}|\[", snippet), f"{path.name}: fill in {snippet}"
                calls.append(snippet)
    return calls


def test_the_git_executor_profile_allows_what_its_file_promises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 18: git-executor ran with the validator profile, whose Bash allowlist refused the
    commits, pushes and pull requests it exists for. The profile its file declares (the one the
    hook reads) must allow every command its text tells it to use."""
    from protocol.hookcase import ask, make_project

    path = AGENTS / "git-executor.md"
    assert _frontmatter_profile(path) == DEFAULT_AGENT_PROFILES["git-executor"] == "committer"
    calls = _promised_git_calls(path)
    assert len(calls) >= 10 and any(c.startswith("gh pr create") for c in calls)
    project = make_project(tmp_path)
    monkeypatch.chdir(project)
    denied = {
        c: ask(project, "Bash", {"command": c}, agent="subagents:git-executor") for c in calls
    }
    assert {c: why for c, why in denied.items() if why} == {}
    # the validator profile it had refuses them: the test would have caught the defect
    refused = [c for c in calls if ask(project, "Bash", {"command": c}, "subagents:code-qa")]
    assert refused == calls
