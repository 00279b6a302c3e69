"""Issue 32 item 5: every person's decision is denied to any model or agent, judged on the words
bash runs, not on the raw text.  Run as the host runs the hooks: the plugin's launcher with the
payload on stdin (``tests/plugin/test_person_decisions_e2e.py`` does it through the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clitools import run_cli, walk_to
from hookcalls import bash, launch_hook

from agents_state.hooks.engine_steps import parse
from agents_state.persons import DECISIONS
from agents_state.store.allowrules import rules_for

AGENT = {"agent_id": "a1", "agent_type": "subagents:task-agent"}
GATE = "run in their own shell: agents-state gate approve 1.1 --by NAME"
# (what the model runs, what the refusal tells the person to run)
DECISION_CALLS = [
    ("agents-state g\\ate approve 1.1 --by x", GATE),
    ('agents-state "ga"te approve 1.1 --by x', GATE),
    ("agents-state ga''te reject 1.1 --by x --note n", GATE),
    ("agents-state gate appr'ove' 1.1 --by x", GATE),
    ("agents-state budget --raise 5000000", "agents-state budget --raise TOKENS"),
    ("agents-state bud''get --raise=5000000", "agents-state budget --raise TOKENS"),
    ('agents-state budget "--once"', "agents-state budget --once"),
    ("agents-state b\\udget --o\\nce", "agents-state budget --once"),
    ("agents-state resume --skip", "agents-state resume --skip"),
    ("agents-state --json \"re\"sume --sk''ip", "agents-state resume --skip"),
    ("agents-state task done T1 --force", "agents-state task done ID --force"),
    ("agents-state ta''sk do\\ne T1 '--force'", "agents-state task done ID --force"),
    ("agents-state dispatch --replace x", 'agents-state dispatch --replace "TASK"'),
    ('agents-state di"spa"tch --rep\\lace x', 'agents-state dispatch --replace "TASK"'),
    # the engine by another name, inside another shell, after another command
    ("agents-st''ate budget --once", "agents-state budget --once"),
    ("/opt/plugin/bin/agents-state resume --skip", "agents-state resume --skip"),
    ("python -m agents_state budget --once", "agents-state budget --once"),
    ("python3 -m 'agents_state' resume --skip", "agents-state resume --skip"),
    ("bash -c \"agents-state bud''get --once\"", "agents-state budget --once"),
    ("sh -ec 'agents-state resume --skip'", "agents-state resume --skip"),
    ("bash -o pipefail -c 'agents-state ga\\te approve 1.1 --by x'", GATE),
    ("ssh host 'agents-state budget --once'", "agents-state budget --once"),
    ("agents-state next && agents-state \\resume --skip", "agents-state resume --skip"),
    ("env X=1 agents-state budget --raise 9", "agents-state budget --raise TOKENS"),
    # a here-document's body is input, but what follows it runs
    ("agents-state next <<'E'\nbody\nE\nagents-state budget --once", "agents-state budget --once"),
    ("echo \"<<'X'\"\nagents-state resume --skip\nX", "agents-state resume --skip"),
]
# a word bash would expand, or a line that cannot be judged, in a call of the engine
UNJUDGEABLE = [
    ("agents-state budget --raise $N", "'$' expansions and substitutions cannot be judged"),
    ("agents-state $(echo budget) --once", "'$' expansions and substitutions cannot be judged"),
    ("agents-state {budget,x} --once", "'{budget,x}' is a word bash would expand"),
    ("agents-state bud*et --once", "'bud*et' is a word bash would expand"),
    ("agents-state task done T1 --result ~/r.md", "'~/r.md' is a word bash would expand"),
    ("echo T1 | xargs agents-state task done", "xargs adds words"),
    (
        "agents-state dispatch --task-file - <<E\n$(agents-state budget --once)\nE",
        "an unquoted here-document's body with $",
    ),
]
ORDINARY = [
    "agents-state next",
    "agents-state next --json",
    "agents-state task done T1 --result r.md",
    'agents-state task done T1 --summary "skip the --force flag"',
    "agents-state gate list",
    "agents-state status",
    "agents-state budget",
    "agents-state resume --retry",
    "git status --short",
    "echo \"it's 'quoted'\" && ls -la",
    "grep -rn 'budget --raise' docs",
    # the plugin's commands pass the user's text as a quoted here-document (commands/*.md)
    "agents-state dispatch --task-file - <<'AGENTS_STATE_TASK_EOF'\nAdd $(x), `y` and "
    "resume --skip\nAGENTS_STATE_TASK_EOF",
    "agents-state chain start docs --args-file - <<'AGENTS_STATE_TASK_EOF'\nbudget --raise 9\n"
    "AGENTS_STATE_TASK_EOF",
]


@pytest.fixture
def project(root: Path) -> Path:
    walk_to(root, "1.1")
    (root / ".agents" / "config.json").write_text(json.dumps({"gates": ["1.1"]}))
    assert run_cli(root, "phase", "complete", "1.1", "--artifact", "-", stdin="x").returncode == 0
    return root


def hook(cwd: Path, event: str, payload: dict[str, Any]) -> str:
    out = launch_hook(cwd, event, payload)  # the launcher, as the host calls it
    assert out.returncode == 0 and out.stderr == "", out.stderr
    return out.stdout


def denied(out: str) -> str:
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny", answer
    reason: str = answer["permissionDecisionReason"]
    return reason


@pytest.mark.parametrize("who", ["main", "agent"])
@pytest.mark.parametrize(("command", "person"), DECISION_CALLS)
def test_every_persons_decision_is_denied_as_bash_reads_it(
    project: Path, command: str, person: str, who: str
) -> None:
    before = (project / ".agents" / "state.json").read_bytes()
    extra = AGENT if who == "agent" else {}
    reason = denied(hook(project, "pre-tool-use", bash(project, command, **extra)))
    assert reason.startswith("agents-state: "), reason
    assert "is a person's decision; no model or agent" in reason
    assert person in reason and "then end your turn." in reason
    assert (project / ".agents" / "state.json").read_bytes() == before
    assert hook(project, "permission", bash(project, command, **extra)) == ""  # never approved


@pytest.mark.parametrize(("command", "why"), UNJUDGEABLE)
def test_an_engine_call_that_cannot_be_judged_is_denied_saying_why(
    project: Path, command: str, why: str
) -> None:
    reason = denied(hook(project, "pre-tool-use", bash(project, command)))
    assert why in reason, reason
    assert "person's decision" in reason


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_calls_and_engine_steps_pass_unchanged(project: Path, command: str) -> None:
    assert hook(project, "pre-tool-use", bash(project, command)) == ""


def test_the_approved_engine_steps_stay_approved(project: Path) -> None:
    for command in ("agents-state next", "agents-state task done T1 --result r.md"):
        out = json.loads(hook(project, "permission", bash(project, command)))
        assert out["hookSpecificOutput"]["permissionDecision"] == "allow", command


def test_a_decision_for_a_workflow_elsewhere_is_denied_with_none_here(
    root: Path, tmp_path: Path
) -> None:
    """The launcher's no-workflow shortcut hands the engine's calls, and any quoted one, to
    the hook: a ``cd`` or ``--store`` reaches a workflow elsewhere."""
    here = tmp_path / "elsewhere"
    here.mkdir()
    for command in (
        f"cd {root} && agents-st''ate budget --raise 5",
        "agents-state --store postgresql://u@h/db?workflow=w resume --skip",
        f"cd {root} && \"agents-state\" g'ate' approve 1.1 --by me",
    ):
        assert "is a person's decision" in denied(hook(here, "pre-tool-use", bash(here, command)))
    assert hook(here, "pre-tool-use", bash(here, "ls 'a b'")) == ""


@pytest.mark.parametrize("person", DECISIONS, ids=lambda d: " ".join((*d.words, d.option or "")))
def test_one_table_decides_the_hook_the_approvals_and_the_allow_rules(person: Any) -> None:
    given = ["1.1", "--by", "x"] if person.option is None else [person.option]
    if person.option == "--raise":
        given = ["--raise=5"]
    args = [*person.words, *(["T1"] if person.words == ("task", "done") else []), *given]
    assert parse(args) is None  # never on the approvals' closed list
    assert rules_for("Bash", {"command": " ".join(["agents-state", *args])}) == []
    if person.option is not None:  # the same command without it is an engine step
        assert parse(args[: -len(given)]) is not None
