"""The one error flattener: a failed validation, of a record or of a pydantic model, as a list of
problems with dotted field paths (``stages.PLAN.phases.1.2.status``), pure.

Records (the state, the configuration) and pydantic models (handoffs, chains) report errors in
the same shape (``errors()``: ``type``, ``loc``, ``msg``, ``input``, ``ctx``), so both go through
``field_problems``; each reader then words its one-line message from these problems (the state
file's, the configuration's, the chain file's, the handoff's), as it did before.  pydantic is not
imported here: the hot commands read the state without it.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["FieldProblem", "ValidationFailure", "field_problems", "got", "summary"]


class ValidationFailure(Protocol):
    """``RecordError`` or ``pydantic.ValidationError``."""

    def errors(self, *, include_url: bool = ...) -> list[Any]: ...


class FieldProblem:
    """One problem of a validation: where (``loc`` and its dotted ``path``), what and the input."""

    __slots__ = ("ctx", "input", "kind", "loc", "msg", "path")

    def __init__(self, error: Any) -> None:
        self.loc: tuple[Any, ...] = tuple(error["loc"])
        self.path = ".".join(str(p) for p in self.loc)
        self.kind: str = error["type"]
        self.msg: str = str(error["msg"])
        self.input: Any = error.get("input")
        self.ctx: dict[str, Any] = error.get("ctx") or {}

    def __repr__(self) -> str:
        return f"FieldProblem({self.path!r}, {self.kind!r}, {self.msg!r})"


def field_problems(failure: ValidationFailure) -> list[FieldProblem]:
    """Every problem of a failed validation, in the validator's order."""
    return [FieldProblem(e) for e in failure.errors(include_url=False)]


def got(value: Any) -> str:
    """`` (got 'x')`` for a scalar input; nothing for an object or a list (too long to show)."""
    return "" if isinstance(value, dict | list) else f" (got {value!r})"


def summary(failure: ValidationFailure, limit: int = 3) -> tuple[str, str]:
    """(first field path, one-line message of the first ``limit`` problems), e.g.
    ``stages.PLAN.status: Input should be ... (got 'x'); and 2 more``."""
    problems = field_problems(failure)
    parts = [
        f"{p.path}: {p.msg}{got(p.input)}" if p.path else f"{p.msg}{got(p.input)}"
        for p in problems[:limit]
    ]
    first = next((p.path for p in problems[:limit] if p.path), "")
    more = len(problems) - limit
    return first, "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
