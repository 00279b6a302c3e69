"""Issue 27, item 4: one story, checked.  Every agent name, Agent model, severity scale, command and
flag that a next action, a skill, a command file or an agent file gives must agree with the
engine: its agents/ folder, the Agent tool's models, the review reader's scale and the real
Click command tree.  The actions are collected by walking whole workflows under configurations
that reach every kind of step; the checker is proven to fail on a planted disagreement.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
from clitools import invoke
from pluginfiles import PLUGIN_ROOT

from agents_state.cli import cli
from agents_state.engine.nextaction import AGENT_TOOL_MODELS
from agents_state.engine.review import SEVERITIES

AGENTS = {p.stem for p in (PLUGIN_ROOT / "agents").glob("*.md")}
COMMANDS = {p.stem for p in (PLUGIN_ROOT / "commands").glob("*.md")}
SKILLS = {p.name for p in (PLUGIN_ROOT / "skills").iterdir() if (p / "SKILL.md").is_file()}
# the plugin's workflows by their meta name (issue 25: `subagents:fanout`)
WORKFLOWS = {
    m.group(1)
    for p in (PLUGIN_ROOT / "workflows").glob("*.js")
    for m in [re.search(r'\bname:\s*"([a-z][a-z0-9-]*)"', p.read_text(encoding="utf-8"))]
    if m
}
# words that are severities on some scale: any of them outside the engine's scale disagrees
SEVERITY_WORDS = {"blocking", "blocker", "minor", "major", "info", "warning", "nit", *SEVERITIES}


@dataclass
class Corpus:
    texts: dict[str, str]  # where -> text (skills, commands, agents, rendered actions)
    actions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # where -> JSON


# -- the engine side: the Click command tree --------------------------------------------------


def _command(words: list[str]) -> tuple[click.Command | None, list[str], set[str]]:
    """The command ``words`` name (None if unknown), the words used, and its option names (the
    root's global options included)."""
    ctx = click.Context(cli)
    options = {o for p in cli.params for o in getattr(p, "opts", [])}
    cmd: click.Command = cli
    used: list[str] = []
    for w in words:
        if not isinstance(cmd, click.Group):
            break
        sub = cmd.get_command(ctx, w)
        if sub is None:
            return None, [*used, w], options
        cmd, used = sub, [*used, w]
    options |= {o for p in cmd.params for o in (*getattr(p, "opts", []), *p.secondary_opts)}
    options |= {"-h", "--help"}
    return cmd, used, options


_CALL = re.compile(r"agents-state((?:[ \t]+[a-z][a-z0-9-]*)+)([^`\n|;&)]*)")


def _calls(text: str) -> Iterator[tuple[str, str]]:
    """(subcommand words, the rest of the call) for each ``agents-state ...`` in a text."""
    for m in _CALL.finditer(text):
        yield m.group(1), m.group(2)


def command_problems(where: str, text: str) -> list[str]:
    out = []
    for words_text, rest in _calls(text):
        words = words_text.split()
        cmd, used, options = _command(words)
        if cmd is None:
            out.append(f"{where}: `agents-state {' '.join(used)}`: no such command")
            continue
        if isinstance(cmd, click.Group) and len(used) == len(words) and not rest.strip():
            continue  # the group itself, named in prose
        tail = " ".join(words[len(used) :]) + " " + rest
        for flag in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", tail):
            if flag not in options:
                out.append(f"{where}: `agents-state {' '.join(used)}` has no option {flag}")
    return out


# -- the other checks ---------------------------------------------------------------------------

_SUB = re.compile(r"(/?)subagents:([a-z][a-z0-9-]*)")
# an Agent model as the texts pass it: `model "opus"`, `model: "opus"` (not a JSON key: that is
# the configured model), `"agentModel": "opus"`, an agent file's `model: opus`
_MODEL = re.compile(
    r'(?:(?<![\w"])model:?[ \t]+"|"agentModel":[ \t]*")([A-Za-z0-9.\-]+)"'
    r"|^model:[ \t]*([A-Za-z0-9.\-]+)[ \t]*$",
    re.M,
)


def name_problems(where: str, text: str) -> list[str]:
    out = []
    for slash, name in _SUB.findall(text):
        if slash and name not in COMMANDS:
            out.append(f"{where}: /subagents:{name}: no such command file")
        elif not slash and name not in AGENTS | SKILLS | WORKFLOWS:
            out.append(f"{where}: subagents:{name}: no such agent or skill")
    return out


def model_problems(where: str, text: str) -> list[str]:
    return [
        f'{where}: Agent model "{m}" is not one of {", ".join(AGENT_TOOL_MODELS)}'
        for pair in _MODEL.findall(text)
        for m in filter(None, pair)
        if m not in AGENT_TOOL_MODELS
    ]


def severity_problems(where: str, text: str) -> list[str]:
    out = []
    for m in re.finditer(r"\"severity\"\s*:\s*\"([^\"]+)\"", text):
        for word in m.group(1).split("|"):
            if word.strip().lower() not in SEVERITIES:
                out.append(f"{where}: severity {word.strip()!r} is not on the engine's scale")
    for sentence in re.split(r"(?<=[.;])\s|\n\n", text):
        if "severit" not in sentence.lower():
            continue
        for word in re.findall(r"`([a-z]+)`", sentence):
            if word in SEVERITY_WORDS and word not in SEVERITIES:
                out.append(f"{where}: severity `{word}` is not on the engine's scale")
    return out


def action_problems(where: str, a: dict[str, Any]) -> list[str]:
    out = []
    for agents in [a.get("agents") or {}, *(a.get("tasks") or [])]:
        sub = agents.get("subagentType")
        if sub and sub.removeprefix("subagents:") not in AGENTS:
            out.append(f"{where}: agent {sub}: no such agent file")
        fallback = agents.get("fallback") or {}
        for key, value in [("agentModel", agents.get("agentModel")), *fallback.items()]:
            if key == "agentModel" and value is not None and value not in AGENT_TOOL_MODELS:
                out.append(f"{where}: agentModel {value!r} is not an Agent model")
            if key == "subagentType" and value.removeprefix("subagents:") not in AGENTS:
                out.append(f"{where}: fallback agent {value}: no such agent file")
        if "agentModel" in agents and agents["agentModel"] is None and not fallback:
            out.append(f"{where}: a model no agent can run, and no fallback")
    if a.get("tasks") and any(t.get("agentModel") is None for t in a["tasks"]):
        out.append(f"{where}: a task without an Agent model (no agent to run its task done)")
    phase, sub = a.get("phase"), (a.get("agents") or {}).get("subagentType")
    for agent in filter(
        None, [sub, ((a.get("agents") or {}).get("fallback") or {}).get("subagentType")]
    ):
        body = (PLUGIN_ROOT / "agents" / f"{agent.removeprefix('subagents:')}.md").read_text()
        if phase and not re.search(rf"phase {re.escape(phase)}\b", body):
            out.append(f"{where}: {agent} is sent for phase {phase}; its file never says so")
    if a["kind"] in ("dispatch_agents", "review") and re.search(
        r"agent[^.]*\bwrites? the artifact", a["instructions"]
    ):
        out.append(
            f"{where}: the agent is told to write the artifact (agents never write .agents/)"
        )
    run = a["kind"] == "run_commands" and a["command"].startswith("agents-state phase run")
    if run and a.get("write"):
        out.append(f"{where}: phase run carries a write path (the engine writes it)")
    return out


def problems(corpus: Corpus) -> list[str]:
    out: list[str] = []
    for where, text in corpus.texts.items():
        out += name_problems(where, text)
        out += model_problems(where, text)
        out += severity_problems(where, text)
        out += command_problems(where, text)
    for where, a in corpus.actions:
        out += action_problems(where, a)
    return out


# -- the corpus: files, and actions from whole walks ---------------------------------------------


def plugin_texts() -> dict[str, str]:
    files = [
        *sorted((PLUGIN_ROOT / "skills").glob("*/SKILL.md")),
        *sorted((PLUGIN_ROOT / "commands").glob("*.md")),
        *sorted((PLUGIN_ROOT / "agents").glob("*.md")),
    ]
    return {str(p.relative_to(PLUGIN_ROOT)): p.read_text() for p in files}


TASKS = {
    "tasks": [
        {"id": "easy-1", "title": "E", "complexity": "easy"},
        {"id": "med-1", "title": "M", "complexity": "medium", "dependencies": ["easy-1"]},
        {"id": "hard-1", "title": "H", "complexity": "hard", "dependencies": ["easy-1"]},
    ]
}
CONFIGS: dict[str, dict[str, Any]] = {
    "defaults": {},  # Codex reviews, complexity scoring with a Codex hard model
    "agents everywhere": {
        "defaults": {"model": "haiku"},
        "stages": {
            "EXPLORE": {"model": "codex-high"},
            "PLAN": {
                "brainstorm": {"inline": False},
                "planning": {"mode": "single"},
                "review": {"tool": "sonnet"},
            },
            "IMPLEMENT": {"simplify": {"inline": False}, "review": {"tool": "opus"}},
            "TEST": {"commands": {"test": "true"}, "review": {"tool": "inherit"}},
            "FINAL": {"review": {"tool": "claude-sonnet-4-5-20250929"}},
        },
    },
}


def _run(root: Path, *args: str) -> str:
    r = invoke(["--root", str(root), *args])
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def walk_actions(root: Path, config: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(label, action, rendered text) of every step of a whole workflow, followed literally."""
    (root / ".agents").mkdir(parents=True)
    (root / ".agents/config.json").write_text(json.dumps(config))
    _run(root, "dispatch", "Add OAuth login")
    for i in range(80):
        a = json.loads(_run(root, "next", "--json"))
        label = f"{a['phase']} {a['kind']} #{i}"
        yield label, a, _run(root, "next")
        if a["kind"] in ("done", "ask_user", "blocked"):
            return
        cmd = a["command"]
        if a["kind"] == "compact":
            _run(root, "compact")
        elif a.get("tasks"):
            first = a["tasks"][0]["id"]
            _run(root, "task", "claim", first, "--agent", "w1")
            w = json.loads(_run(root, "next", "--json"))
            yield f"{label} claimed", w, _run(root, "next")
            yield f"{label} resume", {"kind": "resume", "instructions": ""}, _run(root, "resume")
            for t in a["tasks"]:
                _run(root, "task", "done", t["id"], "--summary", "done", "--force")
        elif cmd.startswith("agents-state tasks load"):
            (root / a["write"]).write_text(json.dumps(TASKS))
            _run(root, *shlex.split(cmd)[1:])
        else:
            if a.get("write"):
                body = (
                    '{"commands": [{"name": "test", "command": "true", "exitCode": 0}]}'
                    if a["write"].endswith("3.1-test-results.json")
                    else '{"issues": []}'
                    if a["write"].endswith(".json")
                    else "# notes\n"
                )
                (root / a["write"]).write_text(body)
            _run(root, *shlex.split(cmd)[1:])
    raise AssertionError("the walk did not end")


def edge_actions(root: Path) -> Iterator[tuple[str, dict[str, Any], str]]:
    """No workflow, a retry's wait, a failure that asks the user, a stop."""
    root.mkdir(parents=True, exist_ok=True)

    def now(label: str) -> tuple[str, dict[str, Any], str]:
        return label, json.loads(_run(root, "next", "--json")), _run(root, "next")

    yield now("no workflow")
    _run(root, "dispatch", "Add OAuth login")
    _run(root, "phase", "fail", "0", "--error", "boom")
    yield now("retry wait")
    _run(root, "phase", "fail", "0", "--error", "boom", "--set", "retries.maxPerPhase=0")
    yield now("failed")
    yield "failed resume", {"kind": "resume", "instructions": ""}, _run(root, "resume")
    _run(root, "resume", "--retry")
    _run(root, "stop")
    yield now("stopped")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    c = Corpus(plugin_texts())
    walks = [
        (name, walk_actions(tmp_path_factory.mktemp("walk"), cfg)) for name, cfg in CONFIGS.items()
    ]
    walks.append(("edges", edge_actions(tmp_path_factory.mktemp("edges") / "w")))
    for name, walk in walks:
        for label, a, text in walk:
            where = f"next action ({name}) {label}"
            # an Agent-path task prompt is text with lines of its own: checked as such, not as
            # one JSON string whose escaped newlines would join its commands (issue 33)
            prompts = [t.pop("prompt") for t in a.get("tasks") or [] if "prompt" in t]
            c.texts[where] = "\n".join((text, json.dumps(a), *prompts))
            if a["kind"] != "resume":
                c.actions.append((where, a))
    return c


def test_the_walks_reach_every_kind_of_step(corpus: Corpus) -> None:
    kinds = {a["kind"] for _w, a in corpus.actions}
    assert {
        "dispatch_agents",
        "work_inline",
        "run_commands",
        "review",
        "compact",
        "wait",
        "ask_user",
        "blocked",
        "done",
        "start",
    } <= kinds
    assert any((a.get("agents") or {}).get("fallback") for _w, a in corpus.actions)
    assert any(t.get("codexConsult") for _w, a in corpus.actions for t in a.get("tasks") or [])
    phases = {a["phase"] for _w, a in corpus.actions}
    assert {"0", "1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "3.1", "3.3", "4.1", "4.2"} <= phases


def test_every_text_and_action_tells_one_story(corpus: Corpus) -> None:
    assert problems(corpus) == []


# -- proven to fail: each planted disagreement is found -------------------------------------------

Plant = Callable[[Corpus], None]


def _edit(where: str, old: str, new: str) -> Plant:
    def plant(c: Corpus) -> None:
        assert old in c.texts[where], (where, old)
        c.texts[where] = c.texts[where].replace(old, new, 1)

    return plant


def _action(
    change: Callable[[dict[str, Any]], None], pick: Callable[[dict[str, Any]], bool]
) -> Plant:
    def plant(c: Corpus) -> None:
        i, (where, a) = next((i, x) for i, x in enumerate(c.actions) if pick(x[1]))
        a = json.loads(json.dumps(a))
        change(a)
        c.actions[i] = (where, a)

    return plant


PLANTS: list[tuple[str, Plant, str]] = [
    (
        "old severity scale",
        _edit("agents/pr-reviewer.md", '"severity": "high"', '"severity": "blocking"'),
        "agents/pr-reviewer.md: severity 'blocking' is not on the engine's scale",
    ),
    (
        "severity words in prose",
        _edit("agents/pr-reviewer.md", "(`critical`, `high`", "(`blocking`, `high`"),
        "agents/pr-reviewer.md: severity `blocking` is not on the engine's scale",
    ),
    (
        "an agent that does not exist",
        _edit("skills/workflow/SKILL.md", "subagents:pr-reviewer", "subagents:code-reviewer"),
        "skills/workflow/SKILL.md: subagents:code-reviewer: no such agent or skill",
    ),
    (
        "a command that does not exist",
        _edit(
            "skills/workflow/SKILL.md",
            "`agents-state task start <id>`",
            "`agents-state task finish <id>`",
        ),
        "skills/workflow/SKILL.md: `agents-state task finish`: no such command",
    ),
    (
        "a flag that does not exist",
        _edit("skills/workflow/SKILL.md", "phase fail <ID> --error", "phase fail <ID> --reason"),
        "skills/workflow/SKILL.md: `agents-state phase fail` has no option --reason",
    ),
    (
        "a versioned id as Agent model",
        _edit("agents/pr-reviewer.md", "model: opus", 'model: "opus-4.5"'),
        'agents/pr-reviewer.md: Agent model "opus-4.5" is not one of sonnet, opus, haiku, inherit',
    ),
    (
        "a review without fallback",
        _action(lambda a: a["agents"].pop("fallback"), lambda a: a["phase"] == "1.3"),
        "a model no agent can run, and no fallback",
    ),
    (
        "a hard task without an agent model",
        _action(lambda a: a["tasks"][-1].update(agentModel=None), lambda a: bool(a.get("tasks"))),
        "a task without an Agent model (no agent to run its task done)",
    ),
    (
        "phase run with a write",
        _action(
            lambda a: a.update(write=".agents/phases/3.1-test-results.json"),
            lambda a: (a["command"] or "").startswith("agents-state phase run"),
        ),
        "phase run carries a write path (the engine writes it)",
    ),
    (
        "an agent sent for a phase its file does not serve",
        _action(
            lambda a: a["agents"].update(subagentType="subagents:spec-analyzer"),
            lambda a: a["phase"] == "3.3",
        ),
        "subagents:spec-analyzer is sent for phase 3.3; its file never says so",
    ),
    (
        "the agent told to write the artifact",
        _action(
            lambda a: a.update(instructions="One agent does it and writes the artifact."),
            lambda a: a["phase"] == "2.2" and a["kind"] == "dispatch_agents",
        ),
        "the agent is told to write the artifact (agents never write .agents/)",
    ),
]


@pytest.mark.parametrize(("_name", "plant", "found"), PLANTS, ids=[p[0] for p in PLANTS])
def test_a_planted_disagreement_is_found(
    corpus: Corpus, _name: str, plant: Plant, found: str
) -> None:
    c = Corpus(dict(corpus.texts), list(corpus.actions))
    plant(c)
    found_now = problems(c)
    assert any(found in p for p in found_now), found_now
