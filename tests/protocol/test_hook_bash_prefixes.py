"""Issue 23, the first answer: GNU long-option prefixes and values attached to short options
are judged as what the program reads (the sandbox, tests/protocol/test_sandbox_containment.py,
is what proves the room holds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.hookcase import BASH, CRED, ask, make_project

CHECKER = "subagents:quality-checker"  # validator
REFUSED = "'{name} {arg}' is refused (it runs other programs, writes files or reads whole folders)"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = make_project(tmp_path)
    (project / ".npmrc").write_text("//r/:_authToken=x\n")
    (project / ".pgpass").write_text("h:1:d:u:p\n")
    monkeypatch.chdir(project)
    return project


@pytest.mark.parametrize(
    ("command", "name", "arg"),
    [
        ("grep --rec API_KEY .", "grep", "--rec"),
        ("grep --dir=recurse API_KEY .", "grep", "--dir=recurse"),
        ("grep --derefer API_KEY .", "grep", "--derefer"),
        ("diff -N --recu src .", "diff", "--recu"),
        ("sort --ou=out.txt README.md", "sort", "--ou=out.txt"),
        ("sort --compress=sh README.md", "sort", "--compress=sh"),
        ("make --ev='$(info x)'", "make", "--ev=$(info x)"),
        ("git diff --ou=x", "git", "--ou=x"),
    ],
)
def test_a_long_option_prefix_is_the_option(root: Path, command: str, name: str, arg: str) -> None:
    why = REFUSED.format(name=name, arg=arg)
    assert ask(root, "Bash", {"command": command}, agent=CHECKER) == BASH.format(
        profile="validator", why=why
    )


@pytest.mark.parametrize(
    ("command", "what"),
    [
        ("date -f.npmrc", ".npmrc: a credential file (.npmrc, npm token)"),
        ("date -uf.npmrc", ".npmrc: a credential file (.npmrc, npm token)"),
        ("grep -f.env src/auth.ts", ".env: a credential file (.env, environment file)"),
        ("head -n1 -q -- README.md -c9 -f.pgpass", None),
    ],
)
def test_an_attached_value_is_a_path(root: Path, command: str, what: str | None) -> None:
    answer = ask(root, "Bash", {"command": command}, agent=CHECKER)
    if what is None:
        assert answer is not None and ".pgpass: a credential file" in answer
    else:
        assert answer == CRED.format(profile="validator", what=what)


def test_the_committer_cannot_commit_an_attached_message_file(root: Path) -> None:
    answer = ask(
        root,
        "Bash",
        {"command": "git commit --allow-empty -F.pgpass"},
        agent="subagents:git-executor",
    )
    assert answer is not None and ".pgpass: a credential file" in answer


@pytest.mark.parametrize(
    "command",
    ["grep --color=never -n auth src/auth.ts", "sort -u README.md", "ls -la src", "git log -n5"],
)
def test_ordinary_options_still_pass(root: Path, command: str) -> None:
    assert ask(root, "Bash", {"command": command}, agent=CHECKER) is None


# -- the two catalogue gaps ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "entry"),
    [
        ("/proc/4242/task/4243/environ", "proc/*/task/*/environ, process environment"),
        ("/proc/self/task/1/environ", "proc/*/task/*/environ, process environment"),
        ("/proc/4242/environ", "proc/*/environ, process environment"),
        ("/repo/.git/config", ".git/config, git configuration (remote URLs can hold tokens)"),
        (
            "/repo/.git/modules/lib/config",
            ".git/modules/*/config, git configuration (remote URLs can hold tokens)",
        ),
    ],
)
def test_thread_environments_and_git_config_are_credentials(path: str, entry: str) -> None:
    from agents_state.credentials import credential_entry

    assert credential_entry(path, "/home/u") == entry


def test_reading_git_config_or_a_thread_environment_is_denied(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text('[remote "o"]\n\turl = https://u:tok@h/r.git\n')
    read = ask(root, "Read", {"file_path": str(root / ".git" / "config")}, agent=CHECKER)
    assert read is not None and "a credential file (.git/config, git configuration" in read
    for command in (
        "cat .git/config",
        "cat /proc/self/task/*/environ",
        "head /proc/1/task/1/environ",
    ):
        answer = ask(root, "Bash", {"command": command}, agent=CHECKER)
        assert answer is not None and "may not read or search credential files" in answer
