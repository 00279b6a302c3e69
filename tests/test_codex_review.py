"""Issue 37, the pure parts of Codex reviews and the command's refusals: reading ``codex exec
--json``'s events, the answer as a review artifact, the usage in the book's kinds, the alias
table per layer, the next action with and without Codex, the failures' one line, and that the
plugin never approves ``review run``.  The real Codex CLI runs in
tests/plugin/test_codex_review_e2e.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from contract.helpers import js, sh, state_bytes, walk_to

from agents_state.configload import load_config
from agents_state.engine.codexreview import (
    REVIEW_SCHEMA,
    artifact_from,
    codex_args,
    failure,
    parse_version,
    read_events,
    review_prompt,
    usage_tokens,
)
from agents_state.errors import InvalidInputError

EVENTS = b"""{"type":"thread.started","thread_id":"t-1"}
{"type":"item.completed","item":{"id":"item_0","type":"error","message":"No metadata."}}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/5 (stream disconnected before completion)"}
not json at all
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"{\\"issues\\": []}"}}
{"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":300,"reasoning_output_tokens":100}}
"""


def test_the_events_give_the_final_message_and_the_usage() -> None:
    run = read_events(EVENTS)
    assert (run.thread, run.message, run.messages, run.error, run.fatal) == (
        "t-1",
        '{"issues": []}',
        1,
        None,
        False,
    )
    assert usage_tokens(run.usage) == {
        "input": 1000,
        "output": 300,
        "cacheRead": 200,
        "cacheWrite": 0,
    }


def test_a_failed_turn_and_a_network_wait_are_failures() -> None:
    failed = read_events(
        b'{"type":"error","message":"unexpected status 401 Unauthorized"}\n'
        b'{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized"}}\n'
    )
    assert failed.error == "unexpected status 401 Unauthorized" and not failed.fatal
    waiting = read_events(
        b'{"type":"error","message":"Reconnecting... waiting for network (Connection failed)"}\n'
    )
    assert waiting.fatal and waiting.error is not None


@pytest.mark.parametrize(
    ("error", "kind", "said"),
    [
        ("unexpected status 401 Unauthorized", "login", "Codex is not logged in to its model API"),
        ("Missing environment variable: `K`.", "login", "(run: codex login)"),
        ("Reconnecting... waiting for network (Connection failed)", "unreachable", "cannot reach"),
        ("quota exceeded", "refused", "Codex's model API refused the review: quota exceeded"),
    ],
)
def test_a_failure_is_one_line_with_the_fallback(error: str, kind: str, said: str) -> None:
    e = failure(error, "Fallback: X.")
    assert e.kind == kind and said in e.message and e.exit_code == 10
    assert e.message.endswith("nothing was recorded. Fallback: X.")
    assert "\n" not in e.message
    assert e.to_json()["error"] == {"code": "codex", "message": e.message, "exit": 10, "kind": kind}


def test_the_answer_becomes_the_review_artifact_without_nulls() -> None:
    answer = json.dumps(
        {
            "issues": [
                {
                    "severity": "High",
                    "title": "t",
                    "description": "d",
                    "file": None,
                    "line": None,
                    "suggestion": "s",
                }
            ],
            "summary": "sum",
        }
    )
    doc = json.loads(artifact_from(answer, "codex codex-high", "answer"))
    assert doc == {
        "issues": [{"severity": "High", "title": "t", "description": "d", "suggestion": "s"}],
        "summary": "sum",
        "reviewer": "codex codex-high",
    }


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        ('{"findings": []}', "answer: findings: unknown key"),
        ('{"issues": [{"severity": "urgent", "description": "d"}]}', "issues[0].severity"),
        ('{"issues": [{"severity": "low", "description": ""}]}', "issues[0].description"),
        ("Looks fine to me.", "answer: not JSON"),
        ("", "answer: Codex gave no final message"),
        (None, "answer: Codex gave no final message"),
    ],
)
def test_an_answer_that_is_not_a_review_names_the_field(message: str | None, problem: str) -> None:
    with pytest.raises(InvalidInputError) as e:
        artifact_from(message, "codex", "answer")
    assert problem in e.value.message


def test_the_schema_is_strict_structured_output() -> None:
    """Codex sends --output-schema with "strict": true: every property required, no other."""

    def check(node: dict[str, object]) -> None:
        if node.get("type") == "object":
            props = node["properties"]
            assert isinstance(props, dict)
            assert node["additionalProperties"] is False
            assert sorted(node["required"]) == sorted(props)  # type: ignore[call-overload]
            for sub in props.values():
                check(sub)
        if node.get("type") == "array":
            check(node["items"])  # type: ignore[arg-type]

    check(REVIEW_SCHEMA)


def test_the_command_line_and_the_prompt() -> None:
    assert codex_args("s.json", None, "xhigh", "P") == [
        "exec",
        "--json",
        "--output-schema",
        "s.json",
        "-s",
        "read-only",
        "-c",
        "model_reasoning_effort=xhigh",
        "--skip-git-repo-check",
        "P",
    ]
    assert codex_args("s.json", "gpt-x", "high", "P")[6:8] == ["-m", "gpt-x"]
    prompt = review_prompt(
        phase="4.2",
        title="Final Review",
        instructions="Final review of the whole change.",
        task="Add X",
        reads=["/p/.agents/phases/1.2-plan.md"],
        where="/p/wt",
        severity="medium",
        retry_error="findings: unknown key",
    )
    assert "- /p/.agents/phases/1.2-plan.md" in prompt
    assert "severity medium or above send the work back" in prompt
    assert "(/p/wt)" in prompt and "Do not change anything" in prompt
    assert "Your previous answer was not a valid review: findings: unknown key" in prompt
    assert parse_version("codex-cli 0.171.0") == (0, 171, 0)
    assert parse_version("codex-cli") is None


def test_the_alias_table_is_overridable_per_layer(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_config(root).config.codex.alias("codex-high") == (None, "high")
    assert load_config(root).config.codex.alias("codex-xhigh") == (None, "xhigh")
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps({"codex": {"aliases": {"codex-xhigh": {"model": "gpt-p"}}}})
    )
    cfg = load_config(root, {"codex": {"aliases": {"codex-xhigh": {"effort": "medium"}}}}).config
    assert cfg.codex.alias("codex-xhigh") == ("gpt-p", "medium")  # two layers merged
    assert cfg.codex.alias("codex-high") == (None, "high")
    (root / ".agents/config.json").write_text(json.dumps({"codex": {"aliases": {"codex-mid": {}}}}))
    code, _out, err = sh(root, "config", "validate")
    assert code == 5
    assert (
        "codex.aliases: unknown Codex alias 'codex-mid'; use one of codex-high, codex-xhigh" in err
    )


def test_config_validate_says_when_codex_is_missing(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTS_STATE_CODEX", str(root / "no-codex"))
    code, out, _err = sh(root, "config", "validate")
    assert code == 0
    assert out.splitlines() == [
        "configuration: valid",
        "note: phases 1.3, 2.3, 3.3, 4.2 review with Codex, but no Codex CLI >= 0.154 is "
        "installed (npm install -g @openai/codex, or set AGENTS_STATE_CODEX): those reviews "
        'fall back to subagents:pr-reviewer with model "opus"',
    ]
    (root / ".agents").mkdir()
    claude = {"review": {"tool": "opus"}}
    (root / ".agents/config.json").write_text(
        json.dumps({"stages": {s: claude for s in ("PLAN", "IMPLEMENT", "TEST", "FINAL")}})
    )
    assert js(root, "config", "validate")["codex"] == {
        "phases": [],
        "installed": None,
        "note": None,
    }


def _fake_codex(root: Path, version: str) -> Path:
    """A program that answers ``--version`` like Codex: only what the next action asks."""
    path = root / "bin-codex"
    path.write_text(f"#!/bin/sh\necho 'codex-cli {version}'\n")
    path.chmod(0o755)
    return path


def test_the_next_action_runs_review_run_only_with_a_codex_that_can_review(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents_state.codexcli import _version_of

    _version_of.cache_clear()
    monkeypatch.setenv("AGENTS_STATE_CODEX", str(_fake_codex(root, "0.153.9")))
    a = walk_to(root, "1.3")
    assert a["command"].startswith("agents-state phase complete 1.3")  # too old: no exec schema
    _version_of.cache_clear()
    monkeypatch.setenv("AGENTS_STATE_CODEX", str(_fake_codex(root / ".agents", "0.154.0")))
    a = js(root, "next")
    assert (a["command"], a["write"]) == ("agents-state review run 1.3", None)
    assert a["agents"]["codex"] == {"model": None, "effort": "high", "installed": "0.154.0"}
    assert "run the command; it runs Codex 0.154.0 read-only on the work" in a["instructions"]
    assert (
        "then run: agents-state phase complete 1.3 --artifact .agents/phases/1.3-plan-review.json"
        in a["instructions"]
    )
    assert "mcp__" not in json.dumps(a)


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (("review", "run", "2.2"), 2, "phase 2.2 is not a review; review run takes 1.3, 2.3"),
        (("review", "run", "2.3"), 4, "phase 2.3 is pending: cannot run its review"),
        (("review", "run", "9.9"), 3, "9.9"),
    ],
)
def test_review_run_refuses_what_it_cannot_review(
    root: Path, args: tuple[str, ...], code: int, said: str
) -> None:
    walk_to(root, "1.3")
    before = state_bytes(root)
    got, _out, err = sh(root, *args)
    assert (got, "\n" in err.strip()) == (code, False), err
    assert said in err
    assert state_bytes(root) == before


def test_review_run_refuses_a_claude_review(root: Path) -> None:
    (root / ".agents").mkdir()
    (root / ".agents/config.json").write_text(
        json.dumps({"stages": {"PLAN": {"review": {"tool": "opus"}}}})
    )
    walk_to(root, "1.3")
    code, _out, err = sh(root, "review", "run", "1.3")
    assert code == 2
    assert "phase 1.3 reviews with opus, not a codex-* model" in err


def test_the_plugin_never_approves_review_run(root: Path) -> None:
    """It spends money and runs a program that reads the project: the user's rules decide."""
    from agents_state.hooks.engine_steps import parse
    from agents_state.hooks.permission import approval

    (root / ".agents/phases").mkdir(parents=True)
    (root / ".agents/state.json").write_text("{}")
    for command in ("agents-state review run 1.3", "agents-state --root . review run 4.2 --json"):
        call = {"cwd": str(root), "tool_name": "Bash", "tool_input": {"command": command}}
        assert approval(call) is None
        assert parse(command.split()[1:]) is None
    ok = {"cwd": str(root), "tool_name": "Bash", "tool_input": {"command": "agents-state next"}}
    assert approval(ok) is not None  # the same call shape is approved for an engine step


def test_inputs_only_a_database_store_has_are_in_the_prompt() -> None:
    """With a PostgreSQL store the artifacts are not files Codex could read: their text is
    given in the prompt."""
    prompt = review_prompt(
        phase="1.3",
        title="Plan Review",
        instructions="Review the plan.",
        task="Add X",
        reads=[],
        where="/p",
        severity="high",
        inline=[(".agents/phases/1.2-plan.md", "# Plan\n1. add x\n")],
    )
    assert (
        "Read these files first:\n- .agents/phases/1.2-plan.md, whose text follows:\n# Plan\n"
        "1. add x\n\n(end of .agents/phases/1.2-plan.md)\n"
    ) in prompt
    empty = review_prompt(
        phase="1.3",
        title="Plan Review",
        instructions="Review the plan.",
        task="Add X",
        reads=[],
        where="/p",
        severity="high",
    )
    assert "Read these files first:\n- (none recorded; read the work itself)\n" in empty


def test_an_npm_install_is_known_by_its_package_json_without_running_it(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``next`` at a Codex review starts no node process for the version (issue 37)."""
    from agents_state.codexcli import _version_of, installed_version

    package = root / "node_modules/@openai/codex"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "@openai/codex", "version": "0.160.2"}')
    script = package / "bin/codex.js"
    script.write_text("#!/bin/sh\nexit 1\n")  # running it would say nothing
    script.chmod(0o755)
    (root / "node_modules/.bin").mkdir()
    (root / "node_modules/.bin/codex").symlink_to("../@openai/codex/bin/codex.js")
    monkeypatch.setenv("AGENTS_STATE_CODEX", str(root / "node_modules/.bin/codex"))
    _version_of.cache_clear()
    assert installed_version() == "0.160.2"
    (package / "package.json").write_text('{"name": "other", "version": "0.160.2"}')
    _version_of.cache_clear()
    assert installed_version() is None  # not Codex's package: asked, and it says nothing
