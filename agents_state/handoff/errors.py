"""Turn pydantic validation errors into short, path-naming problems a model can act on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from agents_state.handoff import models as hm
from agents_state.records.problems import FieldProblem, field_problems
from agents_state.strictkeys import closest

__all__ = ["Problem", "pydantic_problems"]


@dataclass(frozen=True)
class Problem:
    path: str  # dotted field path, "" for the document itself
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def _field_names() -> frozenset[str]:
    names: set[str] = set()
    for obj in vars(hm).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not BaseModel:
            names.update(obj.model_fields)
    return frozenset(names)


_KNOWN = _field_names()


def _kind_of(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }.get(type(value), "a value")


def _one_of(expected: str) -> str:
    # pydantic writes "'PROCEED', 'STOP' or 'CLARIFY'"
    return expected.replace("'", "").replace(" or ", ", ")


def _num(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _message(problem: FieldProblem) -> str:
    kind, ctx, value = problem.kind, problem.ctx, problem.input
    got = f" (got {_kind_of(value)})"
    simple = {
        "missing": "required field missing",
        "string_type": "must be a string" + got,
        "list_type": "must be a list" + got,
        "dict_type": "must be an object" + got,
        "model_type": "must be an object" + got,
        "model_attributes_type": "must be an object" + got,
        "bool_type": "must be true or false" + got,
        "bool_parsing": "must be true or false" + got,
        "int_type": "must be a whole number" + got,
        "int_parsing": "must be a whole number" + got,
        "int_from_float": "must be a whole number" + got,
        "float_type": "must be a number" + got,
        "float_parsing": "must be a number" + got,
        "string_too_short": "must not be empty",
    }
    if kind in simple:
        return simple[kind]
    if kind == "literal_error":
        return f"must be one of {_one_of(str(ctx.get('expected', '')))} (got {value!r})"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind in ("greater_than_equal", "greater_than"):
        op = ">=" if kind == "greater_than_equal" else ">"
        return f"must be {op} {_num(ctx.get('ge', ctx.get('gt')))} (got {value!r})"
    if kind in ("less_than_equal", "less_than"):
        op = "<=" if kind == "less_than_equal" else "<"
        return f"must be {op} {_num(ctx.get('le', ctx.get('lt')))} (got {value!r})"
    return problem.msg


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation can hold (``X | None``, ``list[X]``, ``Annotated[X, ...]`` ...)."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _fields_at(title: str, loc: tuple[Any, ...]) -> frozenset[str] | None:
    """The fields allowed where ``loc`` ends, walking from the model named ``title``; None when
    the walk loses its way (a dict of anything, a union of two models)."""
    top = getattr(hm, title, None)
    models = [top] if isinstance(top, type) and issubclass(top, BaseModel) else []
    for part in loc:
        if isinstance(part, int):
            continue  # an item of a list: the same models
        found = [m.model_fields[part] for m in models if part in m.model_fields]
        models = [m for f in found for m in _models_in(f.annotation)]
        if not models:
            return None
    if len(models) != 1:
        return None
    return frozenset(models[0].model_fields)


def _did_you_mean(title: str, loc: tuple[Any, ...]) -> str:
    """Issue 27: matched against the fields allowed where the key stands (all known fields when
    the walk loses its way); ``closest`` never suggests the name itself."""
    known = _fields_at(title, loc[:-1])
    close = closest(str(loc[-1]), known if known is not None else _KNOWN)
    return f" (did you mean {close}?)" if close else ""


def pydantic_problems(exc: ValidationError) -> list[Problem]:
    out: list[Problem] = []
    seen: set[str] = set()
    for problem in field_problems(exc):
        path = problem.path
        message = _message(problem)
        if problem.kind == "extra_forbidden" and problem.loc:
            message += _did_you_mean(exc.title, tuple(problem.loc))
        key = f"{path}\0{message}"
        if key not in seen:
            seen.add(key)
            out.append(Problem(path, message))
    return out
