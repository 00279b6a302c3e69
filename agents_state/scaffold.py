"""Design 003's ``.claude/sub-agents/`` layout, generated from the engine's own definitions (pure).

``scaffold_files()`` returns ``{relative path: text}``: the README (how to create a new sub-agent,
NFR-3), the templates (design 001's researcher / writer / validator / parallel-executor, REQ-1.1 ..
1.5, and design 000's consolidated set), the permission profiles (REQ-3.5), and the protocols: the
handoff JSON schemas (REQ-2.1, 2.2) and the three orchestration patterns with pseudocode (REQ-4.4,
4.5).  Everything comes from ``chains``, ``profiles`` and ``handoff_models``, so it cannot drift.
"""

from __future__ import annotations

import json
from typing import Any

from agents_state.chains.catalogue import CHAINS, PATTERNS, TEMPLATES, Template
from agents_state.handoff import models as hm
from agents_state.handoff.tokens import SUMMARY_TOKEN_LIMIT
from agents_state.profiles import DEFAULT_AGENT_PROFILES, PROFILES, Profile, get_profile
from agents_state.records.schema import json_schema

__all__ = ["BASE", "GENERIC", "OUTPUTS", "OUTPUT_KIND", "scaffold_files"]

BASE = ".claude/sub-agents"
# design 001's generic templates and the consolidated template each one is
GENERIC = {
    "researcher": "domain-researcher",
    "writer": "domain-writer",
    "validator": "quality-validator",
}

_SUMMARY = "Found JWT auth in src/lib/auth.ts. Pattern: bearer tokens. No conflicts."
OUTPUT_KIND = {
    "domain-researcher": "researcher",
    "code-analyzer": "code-analyzer",
    "spec-analyzer": "spec-analyzer",
    "domain-writer": "writer",
    "git-content-generator": "git-content",
    "quality-checker": "checker",
}
OUTPUTS: dict[str, dict[str, Any]] = {
    "researcher": {
        "decision": "PROCEED",
        "findings": {
            "existing_implementations": ["src/lib/auth.ts"],
            "conflicts": [],
            "patterns_found": ["bearer tokens"],
            "consolidation_opportunities": [],
        },
        "context_summary": _SUMMARY,
        "questions": [],
    },
    "writer": {
        "status": "complete",
        "files_changed": [{"path": "src/routes/auth.ts", "action": "created"}],
        "tests_written": [{"path": "tests/auth.test.ts", "count": 5}],
        "context_summary": "Added /auth/login with JWT middleware. Tests pass.",
    },
    "validator": {
        "decision": "PROCEED",
        "checks": {
            "types": {"passed": True, "errors": []},
            "lint": {"passed": True, "errors": []},
            "tests": {"passed": True, "failed": []},
        },
        "errors": [],
        "context_summary": "All checks passed.",
    },
    "checker": {
        "check_type": "lint",
        "status": "pass",
        "output": "0 problems",
        "duration_ms": 1234,
    },
    "spec-analyzer": {
        "mode": "review",
        "findings": {"missing": []},
        "recommendations": [],
        "context_summary": "The spec is complete; EARS format respected.",
    },
    "code-analyzer": {
        "mode": "workflow",
        "analysis": {
            "complexity": "simple",
            "files": 1,
            "tasks": 1,
            "modules": 1,
            "effort": "small",
        },
        "recommendations": [],
        "context_summary": "One file, one task: the writer alone.",
    },
    "git-content": {
        "content_type": "commit",
        "title": "Add /auth/login",
        "body": "JWT middleware and tests.",
        "metadata": {},
    },
}
_BEHAVIOUR = {
    "research": [
        "Search for existing implementations of the task.",
        "Check for naming and pattern conflicts.",
        "Find reusable patterns and consolidation opportunities.",
        "Decide PROCEED, STOP (a conflict; give the reason) or CLARIFY (give questions).",
        f"Summarise in context_summary (at most {SUMMARY_TOKEN_LIMIT} tokens): file "
        "paths, patterns, conflicts, the reason; no search logs, no file contents.",
    ],
    "write": [
        "Read context.previous_findings (the research summary), never raw research.",
        "Read the spec if context.spec_path names one.",
        "Write tests first (TDD for code and ui), then the change; functions under 30 lines.",
        "On a retry, fix every failure in context.retry_context first.",
        "List every changed file; summarise the change for the validator.",
    ],
    "validate": [
        "Run the checks (typecheck, lint, tests, build, or your one mode).",
        "Never fix anything yourself.",
        "PROCEED if every check passes; STOP with the failures otherwise: the writer "
        "runs again with them (at most twice).",
    ],
}


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _uses(name: str) -> list[str]:
    return [c.name for c in CHAINS.values() if any(s.agent == name for s in c.steps)]


def _request(role: str) -> dict[str, Any]:
    return {
        "task_id": f"code-1-{role}-1",
        "phase": role,
        "context": {
            "feature": "Add user authentication",
            "spec_path": None,
            "relevant_files": ["src/lib/auth.ts"],
            "constraints": [],
            "previous_findings": None if role == "research" else _SUMMARY,
        },
        "instructions": "What this sub-agent must do, in one paragraph.",
        "expected_output": {
            "research": "structured_findings",
            "write": "files_changed",
            "validate": "validation_result",
        }[role],
    }


def template_md(t: Template, title: str | None = None) -> str:
    profile = get_profile(t.profile)
    assert profile is not None
    kind = OUTPUT_KIND.get(t.name, "validator")
    modes = ", ".join(f"`{m}`" for m in t.modes) or "none (one behaviour)"
    used = ", ".join(f"`{c}`" for c in _uses(t.name)) or "direct use"
    lines = [
        f"# Sub-agent template: {title or t.name}",
        "",
        f"Generated by `agents-state scaffold` from the engine's definitions "
        f"(template `{t.name}`).",
        "",
        "## Role",
        "",
        f"{t.does}.",
        "",
        "## Model",
        "",
        f"`{t.model}` (design 000)",
        "",
        "## Profile",
        "",
        f"`{profile.name}`: {', '.join(profile.tools)}",
        "",
        "## Modes",
        "",
        modes,
        "",
        "## Used by chains",
        "",
        used,
        "",
        "## Input",
        "",
        "A handoff request (see `protocols/handoff.md`):",
        "",
        "```json",
        _json(_request(t.role)),
        "```",
        "",
        "## Output",
        "",
        "```json",
        _json(OUTPUTS[kind]),
        "```",
        "",
        "## Behaviour",
        "",
    ]
    lines += [f"{i}. {b}" for i, b in enumerate(_BEHAVIOUR[t.role], 1)]
    lines += [
        f"{len(_BEHAVIOUR[t.role]) + 1}. Use only the tools of the `{profile.name}` "
        "profile; never read credential files; never touch `.agents/`.",
        "",
    ]
    return "\n".join(lines)


def profile_md(p: Profile) -> str:
    used = sorted(
        a
        for a, spec in DEFAULT_AGENT_PROFILES.items()
        if spec.split("+")[0] in (p.name, *p.aliases)
    )
    tools = "\n".join(f"  - {t}" for t in p.tools)
    return "\n".join(
        [
            f"# Profile: {p.name}",
            "",
            f"Also named: {', '.join(p.aliases) or '-'}.",
            "",
            "```yaml",
            f"name: {p.name}",
            f"aliases: [{', '.join(p.aliases)}]",
            f"description: {p.description}",
            "tools:",
            tools,
            f"protect_secrets: {str(p.protect_secrets).lower()}",
            "```",
            "",
            f"Used by: {', '.join(used) or '-'}.",
            "",
            "A sub-agent gets only these tools (REQ-3.6): the `PreToolUse` hook denies anything "
            "else (`agents-state profile check`).",
            "",
        ]
    )


def handoff_md() -> str:
    req, resp = json_schema(hm.HandoffRequest), json_schema(hm.HandoffResponse)
    lines = [
        "# Handoff protocol",
        "",
        "Orchestrator -> sub-agent: a request; sub-agent -> orchestrator: a response. "
        f"`context_summary` is capped at {SUMMARY_TOKEN_LIMIT} tokens and is the only "
        "thing the next sub-agent receives from this one (REQ-2.3, REQ-5.6).",
        "",
        "## Request schema (REQ-2.1)",
        "",
        "```json",
        _json(req),
        "```",
        "",
        "## Response schema (REQ-2.2)",
        "",
        "```json",
        _json(resp),
        "```",
        "",
        "## Decisions (REQ-2.4)",
        "",
        "| decision | when | orchestrator |",
        "|---|---|---|",
        "| `PROCEED` | no blockers, work complete | next step |",
        "| `STOP` | critical conflict or error (give `reason` or `issues`) | halt, report "
        "to the user; a validator's STOP re-runs the writer (max 2) |",
        "| `CLARIFY` | ambiguous requirements (give `questions`) | ask the user, re-run "
        "with the answer |",
        "",
        "Role shapes (researcher, writer, validator, checker, analyzers, git content) are "
        "accepted too; check any reply with `agents-state handoff validate FILE`.",
        "",
    ]
    return "\n".join(lines)


def orchestration_md() -> str:
    lines = [
        "# Orchestration patterns",
        "",
        "The orchestrator is always the main conversation: a sub-agent cannot start "
        "sub-agents. `agents-state chain` keeps each chain's state so that a compacted "
        "conversation picks it up (`agents-state chain next`).",
        "",
    ]
    for i, p in enumerate(PATTERNS.values(), 1):
        lines += [
            f"## Pattern {i}: {p.title}",
            "",
            f"For {p.when}: {p.flow}.",
            "",
            "```typescript",
            p.pseudocode,
            "```",
            "",
        ]
    lines += [
        "## Error handling",
        "",
        "- Timeout: re-run once with a simplified handoff (`agents-state chain timeout "
        "ID`); a second timeout reports the partial results to the user.",
        "- STOP: halt, show the reason, suggest a resolution.",
        "- CLARIFY: ask the user, re-run the step with the answer.",
        "- Validation failure: re-run the writer with the failures, at most 2 times, "
        "then escalate.",
        "",
        "## Chains",
        "",
        "| chain | pattern | steps | sub-modes |",
        "|---|---|---|---|",
    ]
    for c in CHAINS.values():
        steps = " -> ".join(
            f"{s.agent}" + (f" ({s.mode})" if s.mode else "") + f" [{TEMPLATES[s.agent].model}]"
            for s in c.steps
        )
        lines.append(f"| {c.name} | {c.pattern} | {steps} | {', '.join(c.submodes)} |")
    lines += [
        "",
        "Sizing (design 000): 1 + files (0/1/2/3 for 1/<=3/<=7/more) + tasks (0/1/2 "
        "for <=2/<=5/more) + 1 if modules > 1 + 1 if effort large, capped at 7. 1: the "
        "writer alone; 2: researcher + writer; 3: + validator; 4: + analyzer; 5-7: the "
        "writers split by module.",
        "",
    ]
    return "\n".join(lines)


def readme_md() -> str:
    rows = "\n".join(
        f"| `templates/{name}.md` | {t.model} | {t.profile} | {t.does} |"
        for name, t in TEMPLATES.items()
    )
    return "\n".join(
        [
            "# Sub-agents",
            "",
            "Generated by `agents-state scaffold` from the engine's own definitions; regenerate "
            "with `agents-state scaffold --force` after an upgrade.",
            "",
            "- `templates/`: design 001's `researcher`, `writer`, `validator`, `parallel-executor` "
            "and design 000's consolidated templates",
            "- `profiles/`: tool permission profiles",
            "- `protocols/handoff.md`: request and response JSON schemas",
            "- `protocols/orchestration.md`: the three patterns, with pseudocode, and the chains",
            "",
            "| template | model | profile | does |",
            "|---|---|---|---|",
            rows,
            "",
            "## Creating a new sub-agent",
            "",
            "1. Pick the role it plays in a chain: research, write or validate. Copy the closest "
            "template from `templates/`.",
            "2. Choose the smallest profile from `profiles/` that lets it work; list exactly those "
            "tools in its `tools:` front matter.",
            "3. Keep the Input and Output sections: it receives one handoff request and answers "
            "with one handoff response (`protocols/handoff.md`), with a `context_summary` of at "
            f"most {SUMMARY_TOKEN_LIMIT} tokens and a decision PROCEED, STOP or CLARIFY.",
            "4. Save it as `.claude/agents/<name>.md` with `name`, `description`, `tools`, "
            "`model` front matter.",
            "5. Check a sample reply: `agents-state handoff validate reply.json`; check its tools: "
            "`agents-state profile show`.",
            '6. Run it in a chain: `agents-state chain start code "<feature>"` prints each step, '
            "the request to pass and the command that records the reply.",
            "",
        ]
    )


def scaffold_files() -> dict[str, str]:
    files = {f"{BASE}/README.md": readme_md()}
    for generic, name in GENERIC.items():
        files[f"{BASE}/templates/{generic}.md"] = template_md(TEMPLATES[name], generic)
    for name, t in TEMPLATES.items():
        files[f"{BASE}/templates/{name}.md"] = template_md(t)
    for p in PROFILES:
        files[f"{BASE}/profiles/{p.name}.md"] = profile_md(p)
    files[f"{BASE}/protocols/handoff.md"] = handoff_md()
    files[f"{BASE}/protocols/orchestration.md"] = orchestration_md()
    return files
