"""Issue 32, items 3 and 5: one judgement of reach, and the person's decisions stay the person's.

Each cause goes through the launcher's hooks with the payload Claude Code sends (``hook
permission`` for the main conversation, ``hook pre-tool-use`` for a plugin agent), and where it
can, bash itself shows what the word would have become (``protocol/bashrun.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hookcalls import answer_of, launch_hook, payload
from pluginfiles import LAUNCHER

from agents_state.hooks import engine_steps
from agents_state.hooks.permission import approval

CHECKER = "subagents:quality-checker"  # validator profile: reader + Bash


@pytest.fixture
def project(root: Path) -> Path:
    (root / ".agents" / "phases").mkdir(parents=True)
    (root / ".agents" / "state.json").write_text(
        json.dumps({"version": 2, "task": "t", "status": "in_progress", "currentPhase": "0"})
    )
    return root


def hook(project: Path, event: str, call: dict[str, Any]) -> dict[str, Any] | None:
    """The launcher's answer to one call, as the host runs it: its hookSpecificOutput or None."""
    out = launch_hook(project, event, payload(project, **call), CLAUDE_PROJECT_DIR=str(project))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    return answer_of(out)


def bash(command: str, **extra: Any) -> dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": command}, **extra}


def agent_bash(command: str) -> dict[str, Any]:
    return bash(command, agent_id="a1", agent_type=CHECKER)


def bash_words(line: str, tmp: Path, inputs: list[str]) -> set[tuple[str, ...]]:
    """What bash itself passes for ``line`` with globbing on, ``inputs`` made first."""
    from protocol.bashrun import run_bash

    return set(run_bash(line, 0, tmp, inputs, expand=True).argvs)


# -- item 1: a word bash would expand is never approved, never runs outside a room ---------------


def test_issue_32_a_glob_path_through_a_link_is_not_approved(project: Path, tmp_path: Path) -> None:
    """Red team: with ``lnk -> ~/.ssh`` the approvals judged ``ln[k]/id_rsa`` as written (a
    missing file inside the project) while bash passed ``lnk/id_rsa``: the key was printed."""
    ssh = Path(os.environ["HOME"]) / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("KEY\n")
    (project / "lnk").symlink_to(ssh)
    line = "agents-state dispatch --dry-run --task-file ln[k]/id_rsa"
    words = bash_words(line, tmp_path / "b", ["lnk/id_rsa"])
    assert words == {("agents-state", "dispatch", "--dry-run", "--task-file", "lnk/id_rsa")}
    assert hook(project, "permission", bash(line)) is None
    plain = "agents-state dispatch --dry-run --task-file task.md"
    assert hook(project, "permission", bash(plain))["permissionDecision"] == "allow"  # type: ignore[index]


def _path_options() -> list[str]:
    """One command per path argument of the closed list: its option, or its positional."""
    lines = []
    for words, step in sorted(engine_steps.STEPS.items()):
        known, positional, more = step.options, step.args, step.more
        head = " ".join(("agents-state", *words))
        lines += [f"{head} {name} VALUE" for name, kind in known.items() if kind == "path"]
        if "path" in (*positional, more):
            before = ["x"] * positional.index("path") if "path" in positional else list(positional)
            lines.append(" ".join((head, *before, "VALUE")))
    return lines


@pytest.mark.parametrize("line", _path_options())
@pytest.mark.parametrize("word", ["a[b]", "a*", "a?", "~/a", "@(a|b)", "?(a)"])
def test_issue_32_every_path_argument_refuses_a_word_bash_would_expand(
    project: Path, line: str, word: str
) -> None:
    assert approval(bash(line.replace("VALUE", "a"), cwd=str(project))) is not None, line
    assert approval(bash(line.replace("VALUE", word), cwd=str(project))) is None, line


@pytest.mark.parametrize(
    "line",
    [
        "agents-state task done t1 --summary ~",  # a text, but bash passes the home folder
        "agents-state task done t1 --summary a*",
        "agents-state phase fail 2.2 --error x=~/y",
        "agents-state chain start code fea[t]ure",
    ],
)
def test_issue_32_no_word_bash_would_expand_is_approved(project: Path, line: str) -> None:
    assert approval(bash(line, cwd=str(project))) is None


def test_issue_32_a_glob_result_of_a_plugin_agent_never_runs_outside_the_room(
    project: Path, tmp_path: Path
) -> None:
    """Code review: ``--result *//.en?`` was judged as a pattern that matched nothing (the
    ``//``), and the engine step ran outside the sandbox with bash's ``node_modules/.env``."""
    (project / "node_modules").mkdir()
    (project / "node_modules" / ".env").write_text("TOKEN=x\n")
    line = "agents-state task done t1 --result *//.en?"
    (words,) = bash_words(line, tmp_path / "b", ["node_modules/.env"])
    assert words[:5] == ("agents-state", "task", "done", "t1", "--result")
    assert os.path.normpath(words[5]) == "node_modules/.env"
    answer = hook(project, "pre-tool-use", agent_bash(line))
    assert answer is not None and answer["permissionDecision"] == "deny"
    assert "'*//.en?' is a word bash would expand" in answer["permissionDecisionReason"]
    assert hook(project, "permission", agent_bash(line)) is None


def test_issue_32_a_double_slash_glob_reaches_a_skipped_folders_env(
    project: Path, tmp_path: Path
) -> None:
    """Code review: ``cat .v*//.en?`` read ``.venv/.env``: the guard's pattern kept the ``//``
    and matched nothing, and the sandbox's scan skips ``.venv`` (so it was not masked)."""
    (project / ".venv").mkdir()
    (project / ".venv" / ".env").write_text("TOKEN=x\n")
    (words,) = bash_words("cat .v*//.en?", tmp_path / "b", [".venv/.env"])
    assert words[0] == "cat" and os.path.normpath(words[1]) == ".venv/.env"
    for line in ("cat .v*//.en?", "cat .v*/./.en?", "head -n 1 ./.v*//.e*"):
        answer = hook(project, "pre-tool-use", agent_bash(line))
        assert answer is not None and answer.get("permissionDecision") == "deny", line
        assert ".venv/.env: a credential file" in answer["permissionDecisionReason"], line
    climbs = hook(project, "pre-tool-use", agent_bash("cat .v*/../.en?"))
    assert climbs is not None and climbs["permissionDecision"] == "deny"
    assert "climbs with '..' after a glob" in climbs["permissionDecisionReason"]


# -- item 2: one catalogue for what the scan skips: a .env there is judged by its name ------------


@pytest.mark.parametrize("folder", [".venv", "node_modules", "__pycache__", ".cache", ".tox"])
def test_issue_32_env_in_a_folder_the_scan_skips_is_refused_by_name(
    project: Path, folder: str
) -> None:
    (project / folder).mkdir()
    (project / folder / ".env").write_text("TOKEN=x\n")
    calls = [
        {"tool_name": "Read", "tool_input": {"file_path": f"{folder}/.env"}},
        {"tool_name": "Grep", "tool_input": {"pattern": "TOKEN", "path": f"{folder}/.env"}},
        {"tool_name": "Grep", "tool_input": {"pattern": "TOKEN", "path": folder, "glob": ".e*"}},
        bash(f"cat {folder}/.env"),
        bash(f"grep TOKEN {folder}/.e*"),
    ]
    for call in calls:
        answer = hook(project, "pre-tool-use", {**call, "agent_id": "a1", "agent_type": CHECKER})
        assert answer is not None and answer["permissionDecision"] == "deny", call
        assert f"{folder}/.env" in answer["permissionDecisionReason"], call


# -- item 3: the person's decisions ----------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "agents-state resume --skip",  # "failing tests accepted by the user"
        "agents-state --json resume --skip",
        "agents-state budget --raise 2000000",
        "agents-state budget --once",
    ],
)
def test_issue_32_the_persons_answers_are_never_approved(project: Path, line: str) -> None:
    assert hook(project, "permission", bash(line)) is None
    denied = hook(project, "pre-tool-use", agent_bash(line))
    assert denied is not None and denied["permissionDecision"] == "deny"


def _write(project: Path, name: str) -> dict[str, Any]:
    path = str(project / ".agents" / "phases" / name)
    return {"tool_name": "Write", "tool_input": {"file_path": path, "content": "{}"}}


def test_issue_32_the_test_gates_result_is_not_an_approved_write(project: Path) -> None:
    """With TEST commands configured only ``phase run 3.1`` records the gate: a written result
    is not approved (issue 32), nor under a configuration that does not load."""
    config = project / ".claude" / "subagents-config.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"stages": {"TEST": {"commands": {"test": "make test"}}}}))
    assert hook(project, "permission", _write(project, "3.1-test-results.json")) is None
    allowed = hook(project, "permission", _write(project, "3.2-analysis.md"))
    assert allowed is not None and allowed["permissionDecision"] == "allow"
    config.write_text("{not json")
    assert hook(project, "permission", _write(project, "3.1-test-results.json")) is None


@pytest.mark.parametrize("config", [None, {"stages": {"TEST": {"commands": {}}}}])
def test_issue_33_without_test_commands_the_models_report_is_approved(
    project: Path, config: dict[str, Any] | None
) -> None:
    """Without TEST commands the result is the model's report of the checks it ran, like a
    review: an unattended run needs no rule for it (docs/decisions.md, Unattended runs)."""
    if config is not None:
        (project / ".agents" / "config.json").write_text(json.dumps(config))
    allowed = hook(project, "permission", _write(project, "3.1-test-results.json"))
    assert allowed is not None and allowed["permissionDecision"] == "allow", allowed


# -- item 3: a project's config cannot loosen a plugin agent's profile ----------------------------

LIFTS = [
    (".claude/subagents-config.json", {"agentProfiles": {"quality-checker": "writer"}}),
    (".agents/config.json", {"agentProfiles": {"subagents:quality-checker": "writer"}}),
    (".agents/config.json", {"agentProfiles": {"quality-checker": "validator+Write"}}),
    (".claude/subagents-config.json", {"toolProfiles": {"validator": {"network": True}}}),
]
WRITER = (
    "tools Write, Edit, MultiEdit, NotebookEdit, mcp__cclsp__rename_symbol, "
    "mcp__cclsp__rename_symbol_strict, mcp__cclsp__restart_server; credential files"
)
MORE = [WRITER, WRITER, "tools Write", "network"]


@pytest.mark.parametrize(
    ("where", "lift", "more"), [(*w, m) for w, m in zip(LIFTS, MORE, strict=True)]
)
def test_issue_32_a_cloned_config_does_not_lift_a_plugin_agent(
    project: Path, where: str, lift: dict[str, Any], more: str
) -> None:
    """Red team: a cloned repository's ``.claude/subagents-config.json`` lifted the plugin's
    agents out of their profiles (its ``.claude/agents/*.md`` could not); ``config show`` and
    ``doctor`` say it is ignored; the user's own layer still decides."""
    (project / ".env").write_text("TOKEN=x\n")
    write = {"tool_name": "Write", "tool_input": {"file_path": "x.py", "content": ""}}
    calls = [
        {**write, "agent_id": "a1", "agent_type": CHECKER},
        {"tool_name": "Read", "tool_input": {"file_path": ".env"}, "agent_id": "a1"},
    ]
    calls[1]["agent_type"] = CHECKER
    (project / where).parent.mkdir(exist_ok=True)
    (project / where).write_text(json.dumps(lift))
    for call in calls:
        answer = hook(project, "pre-tool-use", call)
        assert answer is not None and answer["permissionDecision"] == "deny", call
    note = (
        "the project's config (agentProfiles / toolProfiles) would give the plugin agent "
        f"subagents:quality-checker more than its profile 'validator' ({more}); ignored: only "
        "~/.claude/subagents-config.json may loosen a plugin agent's profile"
    )
    cmd = [str(LAUNCHER), "--root", str(project)]
    shown = subprocess.run([*cmd, "config", "show"], capture_output=True, text=True, check=True)
    assert f"note: {note}" in shown.stdout.splitlines()
    doctor = subprocess.run([*cmd, "doctor", "--json"], capture_output=True, text=True)
    found = [
        f for f in json.loads(doctor.stdout)["findings"] if f["code"] == "ignored_profile_lift"
    ]
    assert [f["message"] for f in found if "quality-checker" in f["message"]] == [note]
    user = Path(os.environ["HOME"]) / ".claude"
    user.mkdir(exist_ok=True)
    (user / "subagents-config.json").write_text(
        json.dumps({"agentProfiles": {"quality-checker": "writer"}})
    )
    assert hook(project, "pre-tool-use", calls[0]) is None  # the user's own choice


def test_issue_32_a_project_may_narrow_a_plugin_agent(project: Path) -> None:
    (project / ".agents" / "config.json").write_text(
        json.dumps({"agentProfiles": {"quality-checker": "reader"}})
    )
    answer = hook(project, "pre-tool-use", agent_bash("ls"))
    assert answer is not None and answer["permissionDecision"] == "deny"
    assert "the reader profile" in answer["permissionDecisionReason"]
