"""The next action as data: ``Decision`` (kind, phase, words, command, files, agents and the
fields some kinds add), the kinds, and what the decisions share.  ``engine.nextaction`` decides
a workflow's step, ``engine.nexttasks`` phase 2.1's, ``views.nextaction`` words them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents_state.workflow import get_phase

if TYPE_CHECKING:
    from agents_state.models import State
    from agents_state.workflow import Phase

__all__ = ["BUDGET_QUESTION", "KINDS", "Decision", "Note", "Words", "no_workflow", "reads"]

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


class Decision:
    """The next step, every field but its words' text (a plain class: ``next`` and ``status``
    build one per call).  ``extra`` holds the fields only some kinds have (``until``,
    ``options``, ``tasks`` ...), in the order ``--json`` prints them."""

    __slots__ = ("agents", "command", "extra", "kind", "phase", "read", "words", "write")

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

    def __repr__(self) -> str:
        return f"Decision({self.kind!r}, {self.phase.id if self.phase else None!r}, {self.words!r})"


def no_workflow() -> Decision:
    return Decision("start", None, ("no_workflow", {}), 'agents-state dispatch "<task>"')


def reads(state: State, phase: Phase) -> list[str]:
    files = [state.files.get(get_phase(i).file_key) for i in phase.inputs]
    return [f for f in files if f]
