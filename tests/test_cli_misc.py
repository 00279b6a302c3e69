"""Behaviour the plugin relies on: empty task text, no-workflow answers, agent types, and the
tool-call compaction trigger of design 000."""

from __future__ import annotations

from pathlib import Path

from clitools import cli_json, run_cli


def test_empty_task_file_prints_next_action(root: Path) -> None:
    proc = run_cli(root, "dispatch", "--task-file", "-", stdin="  \n")
    assert proc.returncode == 0
    assert proc.stdout == 'No active workflow. Start one: agents-state dispatch "<task>"\n'


def test_stop_and_resume_without_workflow_answer_and_write_nothing(root: Path) -> None:
    for cmd in (["stop"], ["resume"], ["resume", "--retry"]):
        proc = run_cli(root, *cmd)
        assert proc.returncode == 0, cmd
        assert proc.stdout == 'No active workflow. Start one: agents-state dispatch "<task>"\n'
    assert run_cli(root, "phase", "start", "0").returncode == 3
    assert not (root / ".agents").exists()


def test_next_action_names_the_claude_code_agent_type(root: Path) -> None:
    assert run_cli(root, "dispatch", "Fix typo in README").returncode == 0
    action = cli_json(root, "next")
    assert action["agents"]["subagentType"] == "subagents:explore-agent"
    assert action["agents"]["count"] == 1
    assert "agent: subagents:explore-agent" in run_cli(root, "next").stdout


def test_fifty_tool_calls_make_the_next_action_compact(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    (root / ".agents/toolcalls.log").write_text("main\n" * 49 + "agent-1\n" * 10)
    assert cli_json(root, "next")["kind"] == "dispatch_agents"
    (root / ".agents/toolcalls.log").write_text("main\n" * 50)
    action = cli_json(root, "next")
    assert action["kind"] == "compact" and action["toolCalls"] == 50
    assert run_cli(root, "compact").returncode == 0
    assert cli_json(root, "next")["kind"] == "dispatch_agents"


def test_agents_folder_is_ignored_by_git_after_a_write_only(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    assert (root / ".agents/.gitignore").read_text().splitlines()[-1] == "*"
    (root / ".agents/.gitignore").unlink()
    assert run_cli(root, "phase", "start", "2.1").returncode == 4  # refused: writes nothing
    assert not (root / ".agents/.gitignore").exists()
    assert run_cli(root, "phase", "start", "0").returncode == 0
    assert (root / ".agents/.gitignore").exists()


def test_a_chain_alone_keeps_agents_out_of_git(root: Path) -> None:
    assert run_cli(root, "chain", "start", "code", "fix a typo").returncode == 0
    assert (root / ".agents/.gitignore").exists()


def test_inside_claude_code_no_workflow_names_the_plugin_command(root: Path) -> None:
    """Issue 27: /subagents:status with no workflow names /subagents:dispatch, not the shell."""
    line = (
        "No active workflow. Start one: /subagents:dispatch <task> "
        '(in a shell: agents-state dispatch "<task>")\n'
    )
    for cmd in (["status"], ["stop"], ["resume"], ["dispatch", "--task-file", "-"]):
        proc = run_cli(root, *cmd, stdin="", env={"CLAUDECODE": "1"})
        assert (proc.returncode, proc.stdout) == (0, line), cmd


def test_issue_33_a_missing_root_is_an_error(root: Path, tmp_path: Path) -> None:
    """A mistyped --root printed "No active workflow" with exit 0, and dispatch made the
    folder."""
    gone = tmp_path / "no-such-project"
    for args in (["--root", str(gone), "status"], ["status", "--root", str(gone)]):
        proc = run_cli(root, *args)
        assert (proc.returncode, proc.stdout, proc.stderr) == (
            3,
            "",
            f"agents-state: error: --root {gone}: no such folder; give the folder that holds "
            ".agents/ (or the project's folder), or leave --root out to use the nearest one\n",
        )
    from clitools import invoke

    assert invoke(["dispatch", "x"], env={"AGENTS_STATE_ROOT": str(gone)}).returncode == 3
    assert not gone.exists()
