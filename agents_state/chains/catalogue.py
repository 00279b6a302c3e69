"""The orchestrator chains of designs 000 / 001 / 002, declared once as data (pure).

Design 000 turns each monolithic agent (plan, code, ui, docs, eval, check, git) into an
orchestrator over isolated sub-agents built from eleven consolidated templates.  Design 004 adds
the host's constraint: a sub-agent cannot start sub-agents, so the orchestrator is the main
conversation, and agents-state keeps the chain's state so that a compacted conversation can pick
it up again.

- ``TEMPLATES``: the consolidated sub-agent templates (model and profile per design 000).
- ``PATTERNS``: design 001's three orchestration patterns (sequential chain, parallel executor,
  conditional branch), with the pseudocode the scaffold writes into ``orchestration.md``.
- ``CHAINS``: the seven orchestrators; ``plan_steps`` turns one into its concrete steps for a
  sizing (design 000's ``determineSubAgentCount``) and a design 002 sub-mode.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agents_state.engine.scoring import Sizing, score_task, size_chain
from agents_state.handoff.constants import CHECK_MODES, MAX_WRITER_RETRIES
from agents_state.profiles import DEFAULT_AGENT_PROFILES

__all__ = [
    "CHAINS",
    "DOMAIN_SUBMODES",
    "MAX_WRITER_RETRIES",
    "PATTERNS",
    "TEMPLATES",
    "ChainDef",
    "Pattern",
    "Step",
    "Template",
    "get_chain",
    "plan_steps",
    "size_feature",
]


@dataclass(frozen=True)
class Template:
    name: str  # the plugin agent file agents/<name>.md, addressed as subagents:<name>
    model: str  # design 000's model for the template
    modes: tuple[str, ...]
    role: str  # research | write | validate: the handoff phase it answers
    does: str

    @property
    def profile(self) -> str:
        """Its tool profile (a ``profiles.get_profile`` spec), from the one table of agent
        profiles, ``profiles.DEFAULT_AGENT_PROFILES``, which the hook also reads."""
        return DEFAULT_AGENT_PROFILES[self.name]


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template(
            "domain-researcher",
            "opus",
            ("plan", "code", "ui", "docs", "eval"),
            "research",
            "Finds existing implementations, conflicts and reusable patterns",
        ),
        Template(
            "domain-writer",
            "sonnet",
            ("code", "ui", "docs", "eval", "plan"),
            "write",
            "Implements from the research summary only (TDD for code and ui)",
        ),
        Template(
            "quality-validator",
            "haiku",
            (),
            "validate",
            "Runs typecheck, lint, tests and build; PASS or FAIL with the errors",
        ),
        Template(
            "quality-checker",
            "haiku",
            ("build", "type", "lint", "test", "security"),
            "validate",
            "Runs one check; launched in parallel, one mode each",
        ),
        Template(
            "spec-analyzer",
            "opus",
            ("analyze", "review", "format", "reconcile"),
            "validate",
            "Analyzes or reviews a spec for completeness and the EARS format",
        ),
        Template(
            "git-content-generator",
            "sonnet",
            ("commit", "pr", "general"),
            "write",
            "Writes the commit message or PR description from the changes",
        ),
        Template(
            "code-analyzer",
            "opus",
            ("workflow", "debug", "refactor", "fix"),
            "research",
            "Analyzes complexity, failures or refactoring opportunities",
        ),
        Template(
            "git-executor",
            "haiku",
            (),
            "validate",
            "Runs the git commands with validation",
        ),
        Template("pr-reviewer", "opus", (), "validate", "Reviews a pull request in depth"),
        Template(
            "security-scanner",
            "haiku",
            (),
            "validate",
            "Detects security patterns (secrets, injections)",
        ),
        Template(
            "parallel-executor",
            "haiku",
            (),
            "validate",
            "Runs independent commands concurrently and reports each one's result",
        ),
    )
}


@dataclass(frozen=True)
class Pattern:
    name: str
    title: str
    when: str
    flow: str
    pseudocode: str


PATTERNS: dict[str, Pattern] = {
    p.name: p
    for p in (
        Pattern(
            "sequential",
            "Sequential chain",
            "dependent phases, each building on the previous",
            "researcher -> writer -> validator; each receives only the previous context_summary",
            """\
async function executeSequentialChain(task) {
  const research = await spawnSubAgent(researcher, buildRequest(task, null));
  if (research.decision !== "PROCEED") return handleNonProceed(research); // STOP or CLARIFY
  let failures = null;
  for (let attempt = 1; attempt <= 3; attempt++) {      // the first try + at most 2 retries
    const impl = await spawnSubAgent(writer,
      buildRequest(task, research.context_summary, { retry_context: failures }));
    const qa = await spawnSubAgent(validator, buildRequest(task, impl.context_summary),
                                   { model: "haiku" });
    if (qa.decision === "PROCEED") return qa;
    failures = { failures: qa.failures, attempt: attempt + 1 };
  }
  return escalateToUser(failures);                       // QA failed after 2 retries
}""",
        ),
        Pattern(
            "parallel",
            "Parallel executor",
            "independent tasks that can run concurrently",
            "N sub-agents at once (one quality-checker per mode); results aggregated",
            """\
async function executeParallel(tasks) {
  const results = await Promise.all(tasks.map((t) =>
    spawnSubAgent(t.type, t.handoff, { model: "haiku", run_in_background: true })));
  return aggregateResults(results);
}

function aggregateResults(results) {
  const decisions = results.map((r) => r.decision);
  return {
    decision: decisions.every((d) => d === "PROCEED") ? "PROCEED"
            : decisions.includes("STOP") ? "STOP" : "CLARIFY",
    checks: Object.fromEntries(results.map((r) => [r.phase, r.findings])),
    issues: results.flatMap((r) => r.issues || []),
  };
}""",
        ),
        Pattern(
            "conditional",
            "Conditional branch",
            "workflows that vary with an analysis",
            "an analyzer returns complexity (and files, tasks, modules, effort); the branch "
            "and the number of sub-agents follow from it",
            """\
async function executeConditional(task) {
  const analysis = await spawnSubAgent(codeAnalyzer, buildRequest(task, null));
  const size = determineSubAgentCount(analysis.analysis);   // design 000's sizing
  if (analysis.analysis.complexity === "simple" || size === 1) {
    return spawnSubAgent(writer, buildRequest(task, analysis.context_summary));
  }
  return executeSequentialChain(task, { subAgents: size });
}""",
        ),
    )
}


@dataclass(frozen=True)
class Step:
    """One link of a chain: a template in a mode, run as ``instances`` sub-agents at once."""

    id: str
    agent: str
    mode: str | None = None
    instances: tuple[str, ...] = ()  # a parallel step: one sub-agent per entry (mode or slice)
    submode: str = "full"  # design 002: the sub-mode this step belongs to

    @property
    def role(self) -> str:
        return TEMPLATES[self.agent].role

    @property
    def count(self) -> int:
        return max(1, len(self.instances))


@dataclass(frozen=True)
class ChainDef:
    name: str
    pattern: str
    steps: tuple[Step, ...]
    submodes: tuple[str, ...]  # the leading words the slash command accepts
    summary: str

    @property
    def sized(self) -> bool:
        return self.pattern == "sequential" and self.name != "git"


DOMAIN_SUBMODES = ("research", "implement", "validate")


def _domain(name: str, validator: Step, summary: str) -> ChainDef:
    return ChainDef(
        name,
        "sequential",
        (
            Step("research", "domain-researcher", name, submode="research"),
            Step("write", "domain-writer", name, submode="implement"),
            validator,
        ),
        DOMAIN_SUBMODES,
        summary,
    )


_QA = Step("validate", "quality-validator", submode="validate")

CHAINS: dict[str, ChainDef] = {
    c.name: c
    for c in (
        _domain(
            "plan",
            Step("validate", "spec-analyzer", "review", submode="validate"),
            "Spec creation: research existing specs, write EARS requirements/design/tasks, "
            "review the spec",
        ),
        _domain("code", _QA, "Backend code: research patterns, TDD implementation, quality checks"),
        _domain("ui", _QA, "Frontend code: research components and hooks, TDD, quality checks"),
        _domain("docs", _QA, "Documentation: research existing docs, write, check"),
        _domain("eval", _QA, "Evaluations: research existing suites, EDD, check"),
        ChainDef(
            "check",
            "parallel",
            (Step("check", "quality-checker", instances=CHECK_MODES),),
            CHECK_MODES,
            "Parallel quality checks (build, type, lint, test, security), aggregated",
        ),
        ChainDef(
            "git",
            "sequential",
            (Step("content", "git-content-generator", "commit"), Step("execute", "git-executor")),
            ("commit", "pr", "general"),
            "Commit message or PR description, then the git commands",
        ),
    )
}


def get_chain(name: str) -> ChainDef:
    from agents_state.errors import NotFoundError

    if name not in CHAINS:
        raise NotFoundError(f"no chain {name!r}; chains are {', '.join(CHAINS)}")
    return CHAINS[name]


# -- sizing ------------------------------------------------------------------------------------

# a feature text's complexity level (design 004 signals) stands for these design 000 inputs
_ESTIMATES = {
    "simple": (1, 1, 1, "small"),
    "medium": (3, 3, 1, "medium"),
    "complex": (4, 3, 1, "medium"),
}


def size_feature(
    feature: str, files: int | None, tasks: int | None, modules: int | None, effort: str | None
) -> tuple[Sizing, dict[str, object]]:
    """Design 000's sizing from the given inputs; missing ones estimated from the text."""
    level = score_task(feature, 10).level
    est = _ESTIMATES[level]
    given = (files, tasks, modules, effort)
    inputs = tuple(g if g is not None else e for g, e in zip(given, est, strict=True))
    f, t, m, eff = int(str(inputs[0])), int(str(inputs[1])), int(str(inputs[2])), str(inputs[3])
    sizing = size_chain(f, t, m, eff)
    if any(g is None for g in given):
        guessed = [
            n
            for n, g in zip(("files", "tasks", "modules", "effort"), given, strict=True)
            if g is None
        ]
        sizing = Sizing(
            sizing.count,
            sizing.level,
            [
                f"estimated {', '.join(guessed)} from the feature text ({level}); pass "
                "--files/--tasks/--modules/--effort to size exactly",
                *sizing.reasons,
            ],
        )
    return sizing, {"files": f, "tasks": t, "modules": m, "effort": eff}


def _sized_steps(defn: ChainDef, count: int, modules: int) -> tuple[tuple[Step, ...], str]:
    """The steps for ``count`` sub-agents (design 000's table, last column)."""
    research, write, validate = defn.steps
    if count <= 1:
        return (write,), "1 sub-agent: the writer alone"
    if count == 2:
        return (research, write), "2 sub-agents: researcher + writer"
    if count == 3:
        return (research, write, validate), "3 sub-agents: researcher + writer + validator"
    if count == 4:
        analyze = Step("analyze", "code-analyzer", "refactor", submode="research")
        return (
            research,
            analyze,
            write,
            validate,
        ), "4 sub-agents: researcher + analyzer + writer + validator"
    writers = count - 2
    slices = tuple(f"module {i + 1} of {writers}" for i in range(writers))
    split = replace(write, instances=slices)
    return (research, split, validate), (
        f"{count} sub-agents: researcher + {writers} writers split by module boundaries "
        f"({modules} module(s)) + validator"
    )


TRIAGE = Step("triage", "code-analyzer", "workflow", submode="research")


def plan_steps(
    defn: ChainDef,
    sizing: Sizing | None,
    modules: int,
    only: str | None,
    submode: str | None,
    analyze: bool = False,
) -> tuple[tuple[Step, ...], str]:
    """The concrete steps of a chain run and a one-line description of the shape.

    ``analyze`` (design 001's conditional branch): a code-analyzer runs first and its
    complexity sizes the rest of the chain when it answers.
    """
    if analyze:
        return (TRIAGE,), "conditional: code-analyzer first; its complexity picks the branch"
    if defn.name == "check":
        modes = (submode,) if submode else CHECK_MODES
        return (
            replace(defn.steps[0], instances=modes),
        ), f"{len(modes)} quality-checker(s) in parallel: {', '.join(modes)}"
    if defn.name == "git":
        content = replace(defn.steps[0], mode=submode or "commit")
        return (content, defn.steps[1]), "git-content-generator + git-executor"
    assert sizing is not None
    steps, shape = _sized_steps(defn, sizing.count, modules)
    if only:
        kept = tuple(s for s in steps if s.submode == only)
        if not kept:  # e.g. --only validate on a chain sized to the writer alone
            kept = tuple(s for s in defn.steps if s.submode == only)
        return kept, f"{only} only: " + " + ".join(f"{s.count} {s.agent}" for s in kept)
    return steps, shape
