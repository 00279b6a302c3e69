"""The next action as data: ``Decision`` (kind, phase, words, command, files, agents and the
fields some kinds add), the kinds, and what the decisions share.  ``engine.nextaction`` decides
a workflow's step, ``engine.nexttasks`` phase 2.1's, ``views.nextaction`` words them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents_state.workflow import get_phase

if TYPE_CHECKING:
    from agents_state.models import State
    from agents_state.workflow import Phase

__all__ = [
    "BUDGET_QUESTION",
    "KINDS",
    "Decision",
    "Note",
    "Refusals",
    "Refused",
    "Words",
    "no_workflow",
    "reads",
]

KINDS = (
    "dispatch_agents",
    "work_inline",
    "run_commands",
    "review",
    "compact",
    "wait",
    "ask_user",
    "done",
    "blocked",
    "start",
)

# asked by ``engine.budget`` when a budget is spent; its answers say nothing to the agents
BUDGET_QUESTION = "The token budget is spent: raise it, go on once, or stop?"

Words = tuple[str, dict[str, Any]]  # a sentence's key in ``views.nextaction`` and its facts
Note = Words  # one of the notes that follow a phase's instructions


class Refused:
    """One permission rule a refused call needs, from the newest call refused for it: the tool,
    what it was called on (None for a Bash call that a rule names), who called it (the agent's
    type and id; none: the orchestrator), the rule and whether it is a person's decision (no
    rule lets a model take it)."""

    __slots__ = ("agent", "agent_type", "person", "rule", "target", "tool")

    def __init__(
        self,
        tool: str,
        target: str | None,
        agent_type: str | None,
        agent: str | None,
        rule: str,
        person: bool,
    ) -> None:
        self.tool, self.target, self.agent_type, self.agent = tool, target, agent_type, agent
        self.rule, self.person = rule, person

    def __repr__(self) -> str:
        return f"Refused({self.tool!r}, {self.target!r}, {self.rule!r})"


class Refusals:
    """The host's refusals of a blocked or failed step: ``calls`` as recorded (oldest first,
    printed under ``refusals``) and ``rules``, one ``Refused`` per rule to add (issue 27, item
    2; issue 33), in the order of their newest calls."""

    __slots__ = ("calls", "rules")

    def __init__(self, calls: list[dict[str, Any]], rules: list[Refused]) -> None:
        self.calls, self.rules = calls, rules


class Decision:
    """The next step, every field but its words' text (a plain class: ``next`` and ``status``
    build one per call).  ``engine.step.next_step`` makes the whole step, ``views.nextaction``
    renders it.  ``extra`` holds the fields only some kinds have (``until``,
    ``options``, ``tasks`` ...), in the order ``--json`` prints them."""

    __slots__ = (
        "agents",
        "command",
        "extra",
        "kind",
        "phase",
        "read",
        "refusals",
        "words",
        "write",
    )

    def __init__(
        self,
        kind: str,
        phase: Phase | None,
        words: Words,
        command: str | None,
        read: list[str] | None = None,
        write: str | None = None,
        agents: dict[str, Any] | None = None,
        **extra: Any,
    ) -> None:
        self.kind, self.phase, self.words, self.command = kind, phase, words, command
        self.read, self.write, self.agents, self.extra = read or [], write, agents, extra
        self.refusals: Refusals | None = None  # a blocked step's refused calls (engine.step)

    def __repr__(self) -> str:
        return f"Decision({self.kind!r}, {self.phase.id if self.phase else None!r}, {self.words!r})"


def no_workflow() -> Decision:
    return Decision("start", None, ("no_workflow", {}), 'agents-state dispatch "<task>"')


def reads(state: State, phase: Phase) -> list[str]:
    files = [state.files.get(get_phase(i).file_key) for i in phase.inputs]
    return [f for f in files if f]
