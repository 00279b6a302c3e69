"""Checks of one type each, with pydantic's lax rules, error types and messages (pure).

``compile_type`` turns an annotation into a check: a function that returns the value (perhaps
converted, as pydantic's lax mode converts ``"5"`` to 5) or raises ``Invalid`` with the problems
found, each located relative to the value checked.  ``record`` builds records on these.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, Literal

__all__ = [
    "After",
    "Before",
    "Check",
    "Invalid",
    "bounded",
    "compile_type",
    "fail",
    "fast_values",
    "record_check",
    "under",
]

Check = Callable[[Any], Any]


class Before:
    """``Annotated[T, Before(f)]``: ``f`` normalises the raw value before ``T`` checks it."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn


class After(Before):
    """``Annotated[T, After(f)]``: ``f`` checks (or converts) the value after ``T`` accepted it."""

    __slots__ = ()


class Invalid(Exception):
    """Raised by a check; carries (loc, type, msg, input) with loc relative to the check."""

    def __init__(self, problems: list[tuple[tuple[Any, ...], str, str, Any]]) -> None:
        self.problems = problems


def fail(kind: str, msg: str, value: Any) -> Invalid:
    return Invalid([((), kind, msg, value)])


def under(key: Any, e: Invalid) -> list[tuple[tuple[Any, ...], str, str, Any]]:
    return [((key, *loc), kind, msg, value) for loc, kind, msg, value in e.problems]


# -- checks of one type each ------------------------------------------------------------------


def _str(v: Any) -> Any:
    if type(v) is str:
        return v
    if isinstance(v, str):
        return str(v)
    if isinstance(v, bytes):
        try:
            return v.decode()
        except UnicodeDecodeError:
            pass
    raise fail("string_type", "Input should be a valid string", v)


def _int(v: Any) -> Any:
    t = type(v)
    if t is int:
        return v
    if t is bool:
        return int(v)
    if t is float:
        if v != v or v in (float("inf"), float("-inf")):
            raise fail("finite_number", "Input should be a finite number", v)
        if v.is_integer():
            if abs(v) >= 2.0**63:  # pydantic's limit for a float that stands for an integer
                raise fail(
                    "int_parsing_size",
                    "Unable to parse input string as an integer, exceeded maximum size",
                    v,
                )
            return int(v)
        raise fail(
            "int_from_float",
            "Input should be a valid integer, got a number with a fractional part",
            v,
        )
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            head, dot, tail = v.strip().partition(".")
            if dot and head and tail and not tail.strip("0"):
                try:
                    return int(head)
                except ValueError:
                    pass
        raise fail(
            "int_parsing",
            "Input should be a valid integer, unable to parse string as an integer",
            v,
        )
    raise fail("int_type", "Input should be a valid integer", v)


_TRUE = frozenset(("1", "on", "t", "true", "y", "yes"))
_FALSE = frozenset(("0", "off", "f", "false", "n", "no"))


def _bool(v: Any) -> Any:
    t = type(v)
    if t is bool:
        return v
    if t is int or t is str:
        key = v.lower() if t is str else str(v)
        if key in _TRUE:
            return True
        if key in _FALSE:
            return False
        raise fail("bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
    if t is float and v in (0.0, 1.0):
        return v == 1.0
    raise fail("bool_type", "Input should be a valid boolean", v)


def _any(v: Any) -> Any:
    return v


def _literal(values: tuple[Any, ...]) -> Check:
    allowed = frozenset(values)
    shown = [repr(x) for x in values]
    msg = "Input should be " + (
        shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    )

    def check(v: Any) -> Any:
        if type(v) is str and v in allowed:
            return v
        raise fail("literal_error", msg, v)

    return check


def _optional(inner: Check) -> Check:
    def check(v: Any) -> Any:
        return None if v is None else inner(v)

    return check


def _list(inner: Check) -> Check:
    plain = inner is _str

    def check(v: Any) -> Any:
        if not isinstance(v, list | tuple):
            raise fail("list_type", "Input should be a valid list", v)
        if plain:
            for x in v:
                if type(x) is not str:
                    break
            else:
                return list(v)
        out, problems = [], []
        for i, item in enumerate(v):
            try:
                out.append(inner(item))
            except Invalid as e:
                problems += under(i, e)
        if problems:
            raise Invalid(problems)
        return out

    return check


def _dict(inner: Check) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not dict:
            raise fail("dict_type", "Input should be a valid dictionary", v)
        if inner is _any:
            return dict(v)
        out, problems = {}, []
        for k, item in v.items():
            try:
                out[_str(k)] = inner(item)
            except Invalid as e:
                problems += under(k, e)
        if problems:
            raise Invalid(problems)
        return out

    return check


def record_check(cls: Any) -> Check:
    """A record (anything with ``_build``) from a dict, or an instance as it is."""
    msg = f"Input should be a valid dictionary or instance of {cls.__name__}"

    def check(v: Any) -> Any:
        if type(v) is dict:
            return cls._build(v)
        if isinstance(v, cls):
            return v
        raise fail("model_type", msg, v)

    return check


def _value_error(fn: Callable[[Any], Any], inner: Check, after: bool) -> Check:
    def check(v: Any) -> Any:
        try:
            out = fn(inner(v) if after else v)
        except ValueError as e:
            raise fail("value_error", f"Value error, {e}", v) from None
        return out if after else inner(out)

    return check


def bounded(inner: Check, ge: int | None, le: int | None) -> Check:
    def check(v: Any) -> Any:
        n = inner(v)
        if ge is not None and n < ge:
            raise fail("greater_than_equal", f"Input should be greater than or equal to {ge}", v)
        if le is not None and n > le:
            raise fail("less_than_equal", f"Input should be less than or equal to {le}", v)
        return n

    return check


_SIMPLE: dict[Any, Check] = {str: _str, int: _int, bool: _bool, Any: _any, object: _any}


def compile_type(tp: Any) -> Check:
    """The check of one annotation; ``TypeError`` for a type records do not support."""
    if tp in _SIMPLE:
        return _SIMPLE[tp]
    if isinstance(tp, type) and callable(getattr(tp, "_build", None)):  # a record
        return record_check(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        check = compile_type(args[0])
        for meta in args[1:]:
            if isinstance(meta, Before):
                check = _value_error(meta.fn, check, isinstance(meta, After))
        return check
    if origin is Literal:
        return _literal(args)
    if origin is typing.Union or origin is types.UnionType:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _optional(compile_type(rest[0]))
    if origin is list:
        return _list(compile_type(args[0]) if args else _any)
    if origin is dict:
        return _dict(compile_type(args[1]) if args else _any)
    if tp is list:
        return _list(_any)
    if tp is dict:
        return _dict(_any)
    raise TypeError(f"records do not support the type {tp!r}")


def fast_values(tp: Any) -> frozenset[Any]:
    """Types (or exact strings, for a literal) whose values ``compile_type(tp)`` keeps as is."""
    if tp in (str, int, bool):
        return frozenset((tp,))
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal and all(type(a) is str for a in args):
        return frozenset(args)
    if origin is typing.Annotated and typing.get_origin(args[0]) is Literal:
        allowed = typing.get_args(args[0])
        fixed = all(_keeps(m.fn, allowed) for m in args[1:] if isinstance(m, Before))
        return fast_values(args[0]) if fixed else frozenset()
    if origin is typing.Union or origin is types.UnionType:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return fast_values(rest[0]) | {type(None)}
    return frozenset()


def _keeps(fn: Callable[[Any], Any], values: tuple[Any, ...]) -> bool:
    """A normaliser (or after-check) that returns each allowed value unchanged."""
    try:
        return all(fn(v) == v for v in values)
    except ValueError:
        return False
