"""Issue 8: hot-path commands never import watchdog, pydantic (the state and configuration are
records), or the graph, watch, schema and handoff-model code.

Each command is measured on a run that SUCCEEDS (exit 0, its normal output): a refused command
takes the error path, which imports less and would hide a heavy import on the real path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clitools import run_cli, wave_of

HEAVY = (
    "watchdog",
    "agents_state.views.watch",
    "agents_state.views.graph",
    "agents_state.views.schema_export",
    "pydantic",
    "pydantic_core",
    "agents_state.handoff.models",
    "jsonschema",
    # issue 36: the MCP SDK (and what it brings) loads only for ``agents-state mcp``
    "mcp",
    "mcp_types",
    "anyio",
    "starlette",
    "agents_state.mcpserver",
)
# the project's folder goes in for @ROOT@: a profiled agent's relative path needs the cwd
READ = json.dumps(
    {
        "tool_name": "Read",
        "tool_input": {"file_path": "README.md"},
        "agent_type": "subagents:explore-agent",
        "hook_event_name": "PreToolUse",
        "cwd": "@ROOT@",
    }
)


def _in(root: Path, stdin: str) -> str:
    return stdin.replace("@ROOT@", json.dumps(str(root))[1:-1])


# coverage's own start-up in a measured subprocess (.ci/run) imports hashlib and more: what a
# command imports is judged without it
_COVERAGE = ("COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG")


def _imported(root: Path, *args: str, stdin: str = "") -> tuple[set[str], str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agents_state", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=root,
        env={k: v for k, v in os.environ.items() if k not in _COVERAGE},
        check=False,
        timeout=120,
    )
    lines = proc.stderr.splitlines()
    assert proc.returncode == 0, [ln for ln in lines if not ln.startswith("import time:")]
    errors = [ln for ln in lines if not ln.startswith("import time:")]
    assert not [ln for ln in errors if "error" in ln], errors
    modules = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    return modules, proc.stdout


# (arguments, stdin, the workflow it runs on, a fragment of its normal output)
CASES = [
    (("status",), "", "started", "Workflow: hot"),
    (("status", "--json"), "", "started", '"workflow"'),
    (("next",), "", "started", "NEXT: dispatch"),
    (("next", "--json"), "", "started", '"kind": "dispatch_agents"'),
    (("phase", "start", "0"), "", "started", "phase 0 Parallel Explore started"),
    (
        ("phase", "complete", "0", "--artifact", "-"),
        "# notes\n",
        "started",
        "phase 0 Parallel Explore completed",
    ),
    (("task", "done", "t0", "--force", "--summary", "ok"), "", "tasks", "t0 completed"),
    (("task", "claim", "--agent", "w1"), "", "tasks", "t0"),
    (("context",), "", "started", "hot"),
    (("compact",), "", "started", "compaction"),
    (("status", "--json", "--brief"), "", "started", '"workflow"'),
    (("hook", "pre-tool-use"), READ, "started", ""),
    (("hook", "post-tool-use"), READ.replace("PreToolUse", "PostToolUse"), "started", ""),
]


@pytest.mark.parametrize(
    ("args", "stdin", "setup", "shows"), CASES, ids=[" ".join(c[0]) for c in CASES]
)
def test_hot_path_imports_stay_light(
    root: Path, args: tuple[str, ...], stdin: str, setup: str, shows: str
) -> None:
    if setup == "tasks":
        wave_of(root, 2, "hot")
    else:
        assert run_cli(root, "dispatch", "hot").returncode == 0
    modules, stdout = _imported(root, *args, stdin=_in(root, stdin))
    assert shows in stdout
    assert "agents_state" in modules
    assert not {m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY}


def test_hook_path_skips_click_and_pydantic(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    modules, stdout = _imported(root, "hook", "pre-tool-use", stdin=_in(root, READ))
    assert stdout == ""  # allowed: no decision printed
    assert "click" not in modules and "pydantic" not in modules


def _imported_bare(
    root: Path, args: list[str], stdin: str = "", site: bool = False
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """What ``agents-state ARGS`` imports, run without the site module (-S) from the source
    tree: an editable install's import hook (it loads typing and pathlib) cannot hide a
    regression.  ``site``: the installed packages (click, orjson) on the path, their ``.pth``
    files not run."""
    import sysconfig

    src = str(Path(__file__).resolve().parent.parent)
    paths = [src, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    boot = (
        f"import sys; sys.path[:0] = {paths[: 3 if site else 1]!r}; "
        "from agents_state.__main__ import main; sys.exit(main())"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", boot, *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=root,
        check=False,
        timeout=60,
    )
    lines = proc.stderr.splitlines()
    assert [ln for ln in lines if not ln.startswith("import time:")] == []
    modules = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    return proc, modules


# Issue 18, start-up: a sub-agent's judged call loads the standard library's json and our hook
# modules only.  Run without site-packages (-S), from the source tree: an editable install's
# import hook (it loads typing) cannot hide a regression, and orjson is not even importable.
LEAN_HOOK = ("orjson", "typing", "dataclasses", "inspect", "importlib.util", "datetime", "uuid")


@pytest.mark.parametrize(
    ("tool", "tool_input", "decided"),
    [
        ("Read", {"file_path": "README.md"}, ""),
        ("Read", {"file_path": ".env"}, '"permissionDecision":"deny"'),
        ("Write", {"file_path": "a.py", "content": "x"}, '"permissionDecision":"deny"'),
    ],
    ids=["read-allowed", "credential-denied", "write-denied"],
)
def test_the_judged_hook_loads_no_orjson_typing_or_dataclasses(
    root: Path, tool: str, tool_input: dict[str, str], decided: str
) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    payload = {
        "tool_name": tool,
        "tool_input": tool_input,
        "agent_id": "a1",
        "agent_type": "subagents:explore-agent",
        "hook_event_name": "PreToolUse",
        "cwd": str(root),
    }
    proc, modules = _imported_bare(root, ["hook", "pre-tool-use"], json.dumps(payload))
    assert proc.returncode == 0 and decided in proc.stdout
    assert "agents_state.hooks.agentmap" in modules  # the call was judged against a profile
    assert sorted(m for m in LEAN_HOOK if m in modules) == []


def test_status_and_next_load_no_transition_code(root: Path) -> None:
    assert run_cli(root, "dispatch", "x").returncode == 0
    for args in (("status",), ("next", "--json")):
        modules, _ = _imported(root, *args)
        assert "agents_state.engine.ready" in modules
        loaded = {"agents_state.engine.phases", "agents_state.engine.events", "shutil", "shlex"}
        assert sorted(loaded & modules) == [], args


def test_only_engine_steps_of_the_main_conversation_load_the_usage_book(root: Path) -> None:
    """Issue 24: a Read, or any call of a sub-agent, pays nothing for token usage; the main
    conversation's Bash call of the engine books it (and so loads the book's code)."""
    assert run_cli(root, "dispatch", "x").returncode == 0
    (root / "t.jsonl").write_text("")
    base = {"hook_event_name": "PostToolUse", "cwd": str(root), "transcript_path": "t.jsonl"}
    engine = {"tool_name": "Bash", "tool_input": {"command": "agents-state next"}}
    cases = [
        ({**base, "tool_name": "Read", "tool_input": {"file_path": "README.md"}}, False),
        ({**base, **engine, "agent_id": "a1", "agent_type": "subagents:task-agent"}, False),
        ({**base, **engine}, True),
    ]
    for payload, books in cases:
        modules, _ = _imported(root, "hook", "post-tool-use", stdin=json.dumps(payload))
        assert ("agents_state.usage.record" in modules) is books, payload


def test_reads_of_a_state_the_engine_wrote_check_nothing_again(root: Path) -> None:
    """Issue 26: status, next and task done read a state the store marked without the record
    checks' error code, and the mark costs ``zlib``, not ``hashlib`` (~4.6 ms to import)."""
    wave_of(root, 2, "hot")
    try:
        os.setxattr(root / ".agents/state.json", "user.probe", b"1")
    except OSError:
        pytest.skip("this file system keeps no user extended attributes")
    for args in (("status",), ("next", "--json"), ("task", "done", "t0", "--force")):
        modules, _ = _imported(root, *args)
        assert "agents_state.records.trusted" in modules, args  # the marked read was taken
        assert sorted({"hashlib", "agents_state.records.problems"} & modules) == [], args


def test_status_next_and_task_done_never_load_pathlib(root: Path) -> None:
    """Issue 26, start-up: ``pathlib`` (with ``urllib.parse`` and ``ipaddress``, about a tenth
    of ``import click, orjson``) stays off the hot commands: the store and the App keep their
    paths as strings and make ``pathlib`` paths only when asked."""
    wave_of(root, 2, "hot")
    for args in (["status"], ["next", "--json"], ["task", "done", "t0", "--force"]):
        proc, modules = _imported_bare(root, args, site=True)
        assert proc.returncode == 0, proc.stderr
        assert "agents_state.store.files" in modules and "click" in modules
        assert sorted({"pathlib", "urllib.parse", "ipaddress"} & modules) == [], args


def test_a_transition_with_no_configuration_layer_loads_no_configuration_records(
    root: Path,
) -> None:
    """Issue 26, start-up: with no configuration file, variable or ``--set``, ``task done``
    takes the built-in policy (``policy.default_policy``) without loading ``config`` (its
    records are a twentieth of ``import click, orjson``); a layer brings it back (that the
    policy is then the configuration's: ``test_catalogue_source``)."""
    wave_of(root, 3, "hot")
    proc, modules = _imported_bare(root, ["task", "done", "t0", "--force"], site=True)
    assert proc.returncode == 0, proc.stderr
    assert "agents_state.engine.phases" in modules
    assert "agents_state.config" not in modules
    (root / ".agents" / "config.json").write_text('{"retries": {"maxPerTask": 1}}\n')
    proc, modules = _imported_bare(root, ["task", "done", "t1", "--force"], site=True)
    assert proc.returncode == 0, proc.stderr
    assert "agents_state.config" in modules


# Issue 26: a one-shot command cannot amortise code generated at run time (a ``compile`` costs
# 0.1 to 0.9 ms): which module each compiled text comes from, the one that called the standard
# library's code generators (dataclasses, namedtuple) or compiled it itself
_AUDIT = """
import json, sys
seen = []
HELPERS = ("dataclasses", "collections", "typing", "functools")
def hook(event, args):
    if event == "compile":
        f = sys._getframe(1)
        while f is not None and f.f_globals.get("__name__", "") in HELPERS:
            f = f.f_back
        seen.append(f.f_globals["__name__"] if f is not None else "")
sys.addaudithook(hook)
from agents_state.__main__ import main
try:
    main()
finally:
    sys.stderr.write("\\n" + json.dumps(seen) + "\\n")
"""


def _compiled_by(root: Path, *args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _AUDIT, *args],
        capture_output=True,
        text=True,
        cwd=root,
        env={k: v for k, v in os.environ.items() if k not in _COVERAGE},
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    origins: list[str] = json.loads(proc.stderr.splitlines()[-1])
    return origins


def test_task_done_compiles_only_the_event_it_makes(
    root: Path,
) -> None:
    """The records' straight-line functions are generated only for a class used a thousand
    times (``records.codegen.HOT``): a state's 25 phases, its stages and waves never pay for a
    ``compile``; the engine's ``Ctx`` and ``Outcome`` are plain classes (a frozen dataclass
    compiles six methods each); of the 21 events only the one made becomes a dataclass; a
    trusted read and the store compile nothing."""
    wave_of(root, 2, "hot")
    origins = _compiled_by(root, "task", "done", "t0", "--force")
    # the events are dataclasses made on first use: TaskDone's ``__init__`` and its base's only
    assert origins.count("agents_state.engine.events") == 2, origins
    ours = {"agents_state.engine.context", "agents_state.records.codegen"}
    assert sorted(m for m in origins if m in ours or m.startswith("agents_state.store")) == []


def test_task_done_loads_no_next_action_code(root: Path) -> None:
    """Issue 26: a transition reports what it did; the next action's decision code (and the
    scoring, ledger and agent tables it reads) loads only for ``next`` and ``status``."""
    wave_of(root, 2, "hot")
    modules, stdout = _imported(root, "task", "done", "t0", "--force")
    assert "t0 completed" in stdout
    assert "agents_state.engine.phases" in modules
    next_code = (".scoring", ".nexttasks", "engine.decision")
    assert sorted(m for m in modules if "nextaction" in m or m.endswith(next_code)) == []


# Issue 26, start-up: nor re, json, enum or functools (about 7 ms of the hook's 11 on a quiet
# machine): the hooks call json's C parser and encoder (hooks/hookjson.py) and compile a regular
# expression only for a name or a pattern that needs one.  Judged with the plugin's agent files
# (their ``profile:`` line), without a workflow (issue 23), and for the main conversation.
NO_REGEX_HOOK = ("re", "json", "enum", "functools", "collections", *LEAN_HOOK)


@pytest.mark.parametrize(
    ("tool", "tool_input", "agent", "workflow", "decided"),
    [
        ("Read", {"file_path": "README.md"}, "subagents:explore-agent", True, ""),
        ("Write", {"file_path": "a.py", "content": "x"}, "subagents:explore-agent", True, "deny"),
        ("Bash", {"command": "ls"}, "subagents:explore-agent", True, "deny"),
        ("Read", {"file_path": "README.md"}, "subagents:task-agent", True, ""),
        ("Read", {"file_path": "README.md"}, "subagents:explore-agent", False, ""),
        ("Write", {"file_path": "a.py", "content": "x"}, "", True, ""),
    ],
    ids=["read", "write-denied", "bash-denied", "task-agent", "no-workflow", "main"],
)
def test_the_hook_loads_no_re_json_or_functools(
    root: Path, tool: str, tool_input: dict[str, str], agent: str, workflow: bool, decided: str
) -> None:
    root.mkdir(parents=True, exist_ok=True)
    if workflow:
        assert run_cli(root, "dispatch", "x").returncode == 0
    payload: dict[str, object] = {
        "tool_name": tool,
        "tool_input": tool_input,
        "hook_event_name": "PreToolUse",
        "cwd": str(root),
    }
    if agent:
        payload |= {"agent_id": "a1", "agent_type": agent}
    src = str(Path(__file__).resolve().parent.parent)
    boot = (
        f"import sys; sys.path.insert(0, {src!r}); from agents_state.__main__ import main; main()"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", boot, "hook", "pre-tool-use"],
        capture_output=True,
        text=True,
        input=json.dumps(payload),
        cwd=root,
        env={**os.environ, "CLAUDE_PLUGIN_ROOT": src, "HOME": str(root)},
        check=False,
        timeout=60,
    )
    lines = proc.stderr.splitlines()
    assert [ln for ln in lines if not ln.startswith("import time:")] == []
    assert proc.returncode == 0
    assert (f'"permissionDecision":"{decided}"' in proc.stdout) if decided else not proc.stdout
    modules = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    judged = "agents_state.hooks.agentmap" in modules
    assert judged is bool(agent)  # the call was (or, for the main conversation, was not) judged
    assert sorted(m for m in NO_REGEX_HOOK if m in modules) == []


def _hook_modules(root: Path, event: str, payload: dict[str, object]) -> set[str]:
    """What ``hook <event>`` imports, run from the source tree without site-packages (-S)."""
    src = str(Path(__file__).resolve().parent.parent)
    boot = (
        f"import sys; sys.path.insert(0, {src!r}); from agents_state.__main__ import main; main()"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", boot, "hook", event],
        capture_output=True,
        text=True,
        input=json.dumps(payload),
        cwd=root,
        env={k: v for k, v in os.environ.items() if k != "AGENTS_STATE_STORE"},
        check=False,
        timeout=60,
    )
    lines = proc.stderr.splitlines()
    assert [ln for ln in lines if not ln.startswith("import time:")] == []
    assert proc.returncode == 0 and proc.stdout == ""
    return {line.split("|")[-1].strip() for line in lines}


def test_the_post_tool_use_hook_loads_no_re_json_or_typing(root: Path) -> None:
    """PostToolUse runs on every tool call too: counting it loads neither ``re`` nor ``json``,
    nor the store's typed seam (``store.api``: ``typing``, ``errors``' ``enum``) unless
    ``AGENTS_STATE_STORE`` names a server."""
    assert run_cli(root, "dispatch", "x").returncode == 0
    (root / "t.jsonl").write_text("")
    base: dict[str, object] = {
        "hook_event_name": "PostToolUse",
        "cwd": str(root),
        "transcript_path": "t.jsonl",
    }
    read: dict[str, object] = {"tool_name": "Read", "tool_input": {"file_path": "README.md"}}
    agent: dict[str, object] = {"agent_id": "a1", "agent_type": "subagents:explore-agent"}
    _hook_modules(root, "post-tool-use", {**base, **read})  # remembers the transcript once
    for payload in ({**base, **read, **agent}, {**base, **read}):
        modules = _hook_modules(root, "post-tool-use", payload)
        assert "agents_state.store.toolcalls" in modules  # the call was counted
        assert sorted(m for m in (*NO_REGEX_HOOK, "agents_state.store.api") if m in modules) == []
    log = (root / ".agents" / "toolcalls.log").read_text().splitlines()
    assert log == ["main", "a1", "main"]
