"""The workflow catalogue, declared once as data and checked once at import.

Five stages run in order; each holds phases that run in order.  A phase has a kind that decides
what the orchestrator does in it (dispatch parallel agents, work inline, run commands, review,
run dependency waves of tasks) and one registered artifact under ``.agents/phases/``.  A review
phase names the phase whose work it reviews: blocking issues send the workflow back there.
"""

# No ``from __future__ import annotations`` here: ``NamedTuple`` would compile every field's
# annotation text at import (issue 26, start-up).
import enum
from typing import NamedTuple

__all__ = [
    "COMPLETION_PHASE",
    "PHASES",
    "PHASE_IDS",
    "PHASE_INDEX",
    "REVIEW_PHASES",
    "SIZED_PHASE",
    "SIZING_PHASE",
    "STAGES",
    "TASK_PHASE",
    "TEST_ANALYSIS",
    "TEST_RUN",
    "Phase",
    "PhaseKind",
    "PhaseRole",
    "artifact_path",
    "get_phase",
    "phase_with_role",
    "phases_of",
]


class PhaseKind(enum.StrEnum):
    AGENTS = "agents"  # parallel sub-agents, results merged into the artifact
    INLINE = "inline"  # the orchestrator works itself
    REVIEW = "review"  # a review tool reads the work and returns issues (JSON)
    COMMANDS = "commands"  # shell commands (tests, lint, git)
    TASKS = "tasks"  # dependency waves of task agents


class PhaseRole(enum.StrEnum):
    """A part one phase plays in the engine's rules; each role is held by exactly one phase."""

    SIZES_NEXT = "sizes_next"  # its completion may size the next phase's agent count
    TEST_RUN = "test_run"  # runs the tests; the TEST gate's verdict
    TEST_ANALYSIS = "test_analysis"  # analyses and fixes failing tests, then the run repeats
    COMPLETION = "completion"  # the last step: commit (and PR)


class Phase(NamedTuple):
    """One phase of the catalogue.  A ``NamedTuple``: every command loads this module, and a
    frozen dataclass costs ~1.5 ms to define."""

    id: str
    stage: str
    name: str
    kind: PhaseKind
    artifact: str  # file name under .agents/phases/
    file_key: str  # key in state.files
    agent_type: str | None = None  # sub-agent type for AGENTS / TASKS phases
    reviews: str | None = None  # for REVIEW phases: the phase whose work is reviewed
    inputs: tuple[str, ...] = ()  # earlier phases whose artifacts this phase reads
    instructions: str = ""
    role: PhaseRole | None = None

    @property
    def is_json(self) -> bool:
        return self.artifact.endswith(".json")


STAGES: tuple[str, ...] = ("EXPLORE", "PLAN", "IMPLEMENT", "TEST", "FINAL")

PHASES: tuple[Phase, ...] = (
    Phase(
        "0",
        "EXPLORE",
        "Parallel Explore",
        PhaseKind.AGENTS,
        "0-explore.md",
        "explore",
        agent_type="explore",
        instructions="Each explore agent maps one area of the codebase relevant to the task; "
        "merge their findings into the artifact.",
    ),
    Phase(
        "1.1",
        "PLAN",
        "Brainstorm",
        PhaseKind.INLINE,
        "1.1-brainstorm.md",
        "brainstorm",
        inputs=("0",),
        role=PhaseRole.SIZES_NEXT,
        instructions="Read the explore findings and decide the approach and the plan areas.",
    ),
    Phase(
        "1.2",
        "PLAN",
        "Parallel Plan",
        PhaseKind.AGENTS,
        "1.2-plan.md",
        "plan",
        agent_type="plan",
        inputs=("0", "1.1"),
        instructions="Each plan agent plans one area (db, api, ui, tests, ...); merge the "
        "plans into one implementation plan.",
    ),
    Phase(
        "1.3",
        "PLAN",
        "Plan Review",
        PhaseKind.REVIEW,
        "1.3-plan-review.json",
        "planReview",
        reviews="1.2",
        inputs=("1.2",),
        instructions="Review the plan; write the issues found as JSON.",
    ),
    Phase(
        "2.1",
        "IMPLEMENT",
        "Parallel Task Execution",
        PhaseKind.TASKS,
        "2.1-tasks.json",
        "tasks",
        agent_type="task",
        inputs=("1.2",),
        instructions="Task agents implement the plan in dependency waves.",
    ),
    Phase(
        "2.2",
        "IMPLEMENT",
        "Simplify",
        PhaseKind.INLINE,
        "2.2-simplify.md",
        "simplify",
        inputs=("1.2", "2.1"),
        instructions="Simplify the implementation: remove duplication and dead code.",
    ),
    Phase(
        "2.3",
        "IMPLEMENT",
        "Implementation Review",
        PhaseKind.REVIEW,
        "2.3-impl-review.json",
        "implReview",
        reviews="2.2",
        inputs=("1.2", "2.2"),
        instructions="Review the implementation against the plan; write the issues as JSON.",
    ),
    Phase(
        "3.1",
        "TEST",
        "Run Tests",
        PhaseKind.COMMANDS,
        "3.1-test-results.json",
        "testResults",
        role=PhaseRole.TEST_RUN,
        instructions="Run the configured lint and test commands and record the results.",
    ),
    Phase(
        "3.2",
        "TEST",
        "Analyze Failures",
        PhaseKind.INLINE,
        "3.2-analysis.md",
        "testAnalysis",
        inputs=("3.1",),
        role=PhaseRole.TEST_ANALYSIS,
        instructions="Analyze failing tests and fix them; note what was fixed.",
    ),
    Phase(
        "3.3",
        "TEST",
        "Test Review",
        PhaseKind.REVIEW,
        "3.3-test-review.json",
        "testReview",
        reviews="3.2",
        inputs=("3.1", "3.2"),
        instructions="Review the test results and fixes; write the issues as JSON.",
    ),
    Phase(
        "4.1",
        "FINAL",
        "Documentation Updates",
        PhaseKind.INLINE,
        "4.1-docs.md",
        "docs",
        inputs=("1.2", "2.2"),
        instructions="Update the documentation for the change; list what was updated.",
    ),
    Phase(
        "4.2",
        "FINAL",
        "Final Review",
        PhaseKind.REVIEW,
        "4.2-final-review.json",
        "finalReview",
        reviews="4.1",
        inputs=("1.2", "4.1", "3.1"),
        instructions="Final review of the whole change; write the issues as JSON.",
    ),
    Phase(
        "4.3",
        "FINAL",
        "Completion",
        PhaseKind.COMMANDS,
        "4.3-completion.md",
        "completion",
        inputs=("4.1", "4.2"),
        role=PhaseRole.COMPLETION,
        instructions="Commit the change (and open a PR if configured); record what was done.",
    ),
)

PHASE_IDS: tuple[str, ...] = tuple(p.id for p in PHASES)
PHASE_INDEX: dict[str, int] = {p.id: i for i, p in enumerate(PHASES)}
_BY_ID: dict[str, Phase] = {p.id: p for p in PHASES}


def _the_one(ids: list[str], what: str) -> str:
    if len(ids) != 1:
        raise RuntimeError(
            f"workflow catalogue: exactly one phase must be {what}; "
            f"found: {', '.join(ids) or 'none'}"
        )
    return ids[0]


def phase_with_role(role: PhaseRole) -> str:
    """The id of the one phase that plays ``role``."""
    return _the_one([p.id for p in PHASES if p.role is role], f"role {role.value}")


TASK_PHASE: str = _the_one([p.id for p in PHASES if p.kind is PhaseKind.TASKS], "of kind tasks")
"""The one phase whose work runs as dependency waves of tasks."""
TEST_RUN: str = phase_with_role(PhaseRole.TEST_RUN)
TEST_ANALYSIS: str = phase_with_role(PhaseRole.TEST_ANALYSIS)
COMPLETION_PHASE: str = phase_with_role(PhaseRole.COMPLETION)
SIZING_PHASE: str = phase_with_role(PhaseRole.SIZES_NEXT)
"""Its completion may size the next phase (the brainstorm sizes the planning agents)."""
SIZED_PHASE: str = PHASE_IDS[PHASE_IDS.index(SIZING_PHASE) + 1]
REVIEW_PHASES: tuple[str, ...] = tuple(p.id for p in PHASES if p.kind is PhaseKind.REVIEW)


def get_phase(phase_id: str) -> Phase:
    """The catalogue entry, or ``KeyError`` for an id that is not in the catalogue."""
    return _BY_ID[phase_id]


def phases_of(stage: str) -> tuple[Phase, ...]:
    return tuple(p for p in PHASES if p.stage == stage)


def artifact_path(phase_id: str) -> str:
    """The artifact's path relative to the root, as stored in ``state.files``."""
    return f".agents/phases/{get_phase(phase_id).artifact}"


# -- checks, run once at import ---------------------------------------------------------------


def _check_unique(items: list[str], what: str) -> None:
    dupes = sorted({i for i in items if items.count(i) > 1})
    if dupes:
        raise RuntimeError(f"workflow catalogue: duplicate {what}: {', '.join(dupes)}")


def _check_stages_known() -> None:
    bad = [p.id for p in PHASES if p.stage not in STAGES]
    if bad:
        raise RuntimeError(f"workflow catalogue: phases in unknown stages: {', '.join(bad)}")


def _check_stage_order() -> None:
    order = [STAGES.index(p.stage) for p in PHASES]
    if order != sorted(order) or set(order) != set(range(len(STAGES))):
        raise RuntimeError("workflow catalogue: phases out of stage order or a stage has none")


def _check_reviews() -> None:
    bad = [
        p.id
        for p in PHASES
        if (p.kind is PhaseKind.REVIEW) != (p.reviews is not None)
        or (
            p.reviews is not None
            and (p.reviews not in _BY_ID or PHASE_INDEX[p.reviews] >= PHASE_INDEX[p.id])
        )
    ]
    if bad:
        raise RuntimeError(f"workflow catalogue: bad review targets: {', '.join(bad)}")


def _check_inputs() -> None:
    bad = [
        p.id
        for p in PHASES
        for i in p.inputs
        if i not in _BY_ID or PHASE_INDEX[i] >= PHASE_INDEX[p.id]
    ]
    if bad:
        raise RuntimeError(f"workflow catalogue: inputs must be earlier phases: {', '.join(bad)}")


def _check_artifacts() -> None:
    bad = [
        p.id
        for p in PHASES
        if not p.artifact.startswith(p.id + "-")
        or "/" in p.artifact
        or (p.kind is PhaseKind.REVIEW and not p.is_json)
    ]
    if bad:
        raise RuntimeError(f"workflow catalogue: bad artifact names: {', '.join(bad)}")


_check_unique(list(PHASE_IDS), "phase ids")
_check_unique([p.artifact for p in PHASES], "artifacts")
_check_unique([p.file_key for p in PHASES], "file keys")
_check_stages_known()
_check_stage_order()
_check_reviews()
_check_artifacts()
_check_inputs()
