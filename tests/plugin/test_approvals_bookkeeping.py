"""Issue 23, item 1: the approvals hook allows bookkeeping only.

The red team's two chains (a nested ``.agents`` with a TEST command under the project's
``.agents/phases/``; a cloned repository's ``.claude/subagents-config.json`` with one) each ended
in an approved ``phase run 3.1``, which runs whatever the config says.  Here each step of both
chains goes through the launcher's ``hook permission`` with the payload Claude Code sends, and
none may be approved; then the closed list itself, in process.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hookcalls import answer_of, bash, launch_hook, tool_call

from agents_state.hooks import engine_steps, permission
from agents_state.hooks.permission import approval
from agents_state.workflow import PHASES

TEST_COMMAND = {"stages": {"TEST": {"commands": {"test": "touch pwned"}}}}


@pytest.fixture
def project(root: Path) -> Path:
    (root / ".agents" / "phases").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text("{}")
    return root


def write(cwd: Path, path: str | Path, content: str = "x") -> dict[str, Any]:
    return tool_call(cwd, "Write", {"file_path": str(path), "content": content})


def hook(project: Path, call: dict[str, Any]) -> str:
    """The launcher's ``hook permission`` answer: the decision, or "" for none."""
    out = launch_hook(project, "permission", call, CLAUDE_PROJECT_DIR=str(project))
    assert out.returncode == 0 and out.stderr == "", out.stderr
    answer = answer_of(out)
    return "" if answer is None else str(answer["permissionDecision"])


def test_the_nested_agents_chain_is_not_approved(project: Path) -> None:
    """Red team, chain 1: Write `.agents/phases/.agents/{state,config}.json`, then
    `agents-state --root .agents/phases phase run 3.1` (failed before issue 23: all allowed)."""
    nested = project / ".agents" / "phases" / ".agents"
    assert hook(project, write(project, nested / "state.json", "{}")) == ""
    assert hook(project, write(project, nested / "config.json", json.dumps(TEST_COMMAND))) == ""
    nested.mkdir()  # as if the user had approved them
    (nested / "state.json").write_text("{}")
    (nested / "config.json").write_text(json.dumps(TEST_COMMAND))
    for command in (
        "agents-state --root .agents/phases phase run 3.1",
        "agents-state --root .agents/phases status",
        "agents-state --root=.agents/phases next",
        "agents-state phase --root .agents/phases complete 0",
    ):
        assert hook(project, bash(project, command)) == "", command
    # from inside the nested folder the engine would find the nested workflow by itself
    inner = project / ".agents" / "phases"
    assert hook(project, bash(inner, "agents-state status")) == ""
    assert hook(project, bash(inner, "agents-state phase run 3.1")) == ""
    # the project's own bookkeeping is still approved
    assert hook(project, bash(project, "agents-state --root . status")) == "allow"
    assert hook(project, write(project, project / ".agents/phases/0-explore.md")) == "allow"


def test_the_cloned_config_chain_is_not_approved(project: Path) -> None:
    """Red team, chain 2: a cloned repository's `.claude/subagents-config.json` with a TEST
    command, then `agents-state phase run 3.1` (failed before issue 23: allowed)."""
    (project / ".claude").mkdir()
    (project / ".claude" / "subagents-config.json").write_text(json.dumps(TEST_COMMAND))
    for command in (
        "agents-state phase run 3.1",
        "agents-state phase run 3.1 --json",
        "agents-state --json phase run 3.1",
        "agents-state --root . phase run 3.1",
    ):
        assert hook(project, bash(project, command)) == "", command


def test_arguments_without_a_slash_are_resolved(project: Path, tmp_path: Path) -> None:
    """Red team: with `out` a link out of the project these were approved and wrote outside."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "out").symlink_to(elsewhere)
    (elsewhere / "tasks.json").write_text("{}")
    for command in (
        "agents-state --root out dispatch x",
        "agents-state --root out status",
        "agents-state scaffold --dir out",
        "agents-state schema --write out",
        "agents-state store copy --to out",
        "agents-state tasks load out",
        "agents-state phase complete 0 --artifact out",
        "agents-state handoff validate out",
    ):
        assert approval(bash(project, command)) is None, command
    os.symlink(elsewhere / "tasks.json", project / "tasks.json")
    assert approval(bash(project, "agents-state tasks load tasks.json")) is None


BOOKKEEPING = [
    "agents-state next",
    "agents-state next --json",
    "agents-state --json next",
    "agents-state status -v",
    "agents-state status --verbose --json",
    "agents-state context",
    "agents-state compact",
    "agents-state stop",
    "agents-state resume",
    "agents-state resume --retry",
    "agents-state resume --abort",
    'agents-state resume --answer "use PostgreSQL"',
    'agents-state dispatch "Add OAuth login"',
    "agents-state dispatch --dry-run x",
    "agents-state phase start 1.1",
    "agents-state phase complete 0 --artifact .agents/phases/0-explore.md",
    "agents-state phase complete 1.3 --artifact=.agents/phases/1.3-plan-review.json",
    'agents-state phase fail 2.2 --error "lint failed"',
    "agents-state tasks load .agents/phases/2.1-tasks.json",
    "agents-state task claim t1 --agent a1",
    "agents-state task start t1",
    'agents-state task done t1 --summary "Added the model"',
    "agents-state task done t1 --summary timeout=30s",  # an '=' is no assignment there
    'agents-state task done t1 --summary "~ and * stay literal"',
    'agents-state task fail t1 --error "no db"',
    "agents-state handoff validate -",
    "agents-state handoff new --role writer",
    "agents-state handoff record .agents/phases/resp.json --task t1",
    "agents-state handoff aggregate a.json b.json --record",
    "agents-state chain start code feature",
    "agents-state chain next code-1",
    "agents-state chain record code-1 .agents/chains/code-1/research.response.json",
    "agents-state chain answer code-1 --answer yes",
    "agents-state chain list",
    "agents-state config show",
    "agents-state profile show reader",
    "agents-state score x --files 3",
    "agents-state graph --pipeline",
    "agents-state doctor",
    "agents-state store show",
    "agents-state budget",
    "agents-state budget --json",
    "agents-state --root . status",
    "agents-state status --root .",
    "agents-state --help",
]


@pytest.mark.parametrize("command", BOOKKEEPING)
def test_bookkeeping_is_approved(project: Path, command: str) -> None:
    assert approval(bash(project, command)) is not None


LEFT_TO_THE_USER = [
    "agents-state phase run 3.1",  # runs the project's commands
    "agents-state scaffold",
    "agents-state scaffold --dir .",
    "agents-state schema state",
    "agents-state schema --write schemas",
    "agents-state graph --write",
    "agents-state store copy --from . --to .",
    "agents-state doctor --repair",
    'agents-state dispatch --replace "x"',
    "agents-state migrate",
    "agents-state migrate --dry-run",
    "agents-state demo",
    "agents-state completion bash",
    "agents-state watch",
    "agents-state hook permission",
    "agents-state --store postgresql://me@db/w status",
    "agents-state status --store=postgresql://me@db/w",
    "agents-state task --store postgresql://me@db/w done t1",
    "agents-state --set stages.TEST.commands.test=id status",  # config: issue 27
    "agents-state budget --raise 2000000",  # the user's answers (issue 24)
    "agents-state budget --once",
    "agents-state budget --raise=5 --stage PLAN",
    "agents-state resume --skip",  # failing tests accepted: the user's (issue 32)
    "agents-state resume --skip --json",
    "agents-state task done t1 --force",  # a person's completion of an unstarted task
    "agents-state task done --force t1 --summary x",
    "agents-state next --set=stages.PLAN.planning.mode=single",
    "agents-state status --verbos",  # not an option: Click would refuse it, no answer either
    "agents-state status --json=1",
    "agents-state next extra",
    "agents-state chain next ../x",
    "agents-state task",
    "agents-state",
]


@pytest.mark.parametrize("command", LEFT_TO_THE_USER)
def test_everything_else_is_left_to_the_user(project: Path, command: str) -> None:
    assert approval(bash(project, command)) is None


def test_root_only_when_it_is_the_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))  # as Claude Code sets it for hooks
    (project / "sub" / ".agents").mkdir(parents=True)
    assert approval(bash(project, "agents-state --root sub status")) is None
    assert approval(bash(project / "sub", "agents-state status")) is None  # finds sub/.agents
    assert approval(bash(project / "sub", "agents-state --root .. status")) is not None
    (project / "src").mkdir()
    assert approval(bash(project / "src", "agents-state status")) is not None


def test_a_linked_agents_folder_gets_no_approval(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "phases").mkdir(parents=True)
    (root / ".agents").symlink_to(elsewhere)
    assert approval(bash(root, "agents-state status")) is None
    assert approval(bash(root, 'agents-state dispatch "x"')) is None
    (root / ".agents").unlink()
    (root / ".agents").mkdir()
    (root / ".agents" / "phases").symlink_to(elsewhere / "phases")
    assert approval(bash(root, "agents-state phase complete 0")) is None
    (root / ".agents" / "phases").unlink()
    (root / ".agents" / "chains").symlink_to(elsewhere)
    assert approval(bash(root, "agents-state chain start code x")) is None


def test_the_project_is_claude_project_dir(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The payload's cwd moves with `cd`; the project does not."""
    nested = project / ".agents" / "phases" / "w"
    (nested / ".agents").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    assert approval(bash(nested, "agents-state status")) is None
    assert approval(bash(nested, f"agents-state --root {project} status")) is not None


def test_writes_only_to_the_catalogue_artifacts(project: Path) -> None:
    phases = project / ".agents" / "phases"
    for name in sorted(permission.ARTIFACTS - permission.PERSONS):
        reason = approval(write(project, phases / name))
        assert reason == f"subagents plugin: .agents/phases/{name} is a workflow artifact"
    (phases / ".agents").mkdir()
    for path in (
        phases / ".agents" / "state.json",
        phases / ".agents" / "config.json",
        phases / ".agents" / "phases" / "0-explore.md",
        phases / "notes.md",
        phases / "sub" / "0-explore.md",
        phases / "0-explore.md.bak",
        project / ".agents" / "config.json",
    ):
        assert approval(write(project, path)) is None, path


def test_the_artifact_names_are_the_catalogue() -> None:
    assert frozenset(p.artifact for p in PHASES) == permission.ARTIFACTS


LEFT_OUT_OPTIONS = {
    ("dispatch", "--replace"),
    ("doctor", "--repair"),
    ("graph", "--write"),
    ("budget", "--raise"),
    ("budget", "--once"),
    ("resume", "--skip"),
    ("done", "--force"),  # a person's completion of a task nobody started (issue 32)
}


def _click_command(words: tuple[str, ...]) -> Any:
    import click

    from agents_state.cli import cli

    ctx = click.Context(cli)
    command: Any = cli
    for word in words:
        command = command.get_command(ctx, word)
        assert command is not None, words
    return command


@pytest.mark.parametrize("words", sorted(engine_steps.STEPS), ids=" ".join)
def test_the_closed_list_reads_each_command_as_click_does(words: tuple[str, ...]) -> None:
    """Every option of the list exists with the same arity, every file-naming value is a path,
    the positional arguments match, and only the named options are left out."""
    import click

    step = engine_steps.STEPS[words]
    known, positional, more = step.options, step.args, step.more
    command = _click_command(words)
    options = {
        name: p
        for p in command.params
        if isinstance(p, click.Option)
        for name in (*p.opts, *p.secondary_opts)
    }
    for name, kind in known.items():
        assert name in options, (words, name)
        assert (kind == engine_steps.FLAG) == options[name].is_flag, (words, name)
    for name in options:
        if name in ("--store", "--set", "--root", "--json", "-h", "--help") or name in known:
            continue
        assert (words[-1], name) in LEFT_OUT_OPTIONS, (words, name)
    for name, p in options.items():
        names_a_file = isinstance(p.type, click.Path) or (p.metavar or "") in ("FILE", "PATH")
        if names_a_file and name in known:
            assert known[name] == engine_steps.PATH, (words, name)
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    fixed = [a for a in arguments if a.nargs == 1]
    assert len(fixed) == len(positional), words
    assert any(a.nargs == -1 for a in arguments) == (more is not None), words
