"""Records from data this engine validated and wrote itself, without checking it again (issue 26).

A state file the store wrote is the dump of a validated record (``encode_state``), so building it
again through the checks gives back exactly that data: every check and normaliser is the
identity on it.  ``build_trusted`` makes the same records (defaults for the fields a dump leaves
out, the extra keys in ``model_extra``, nested records built) without the checks, about half the
time of a first ``model_validate`` at 1,000 tasks.  Only the store calls it, and only for bytes it
can show it wrote (``store.stamp``); anything else goes through ``model_validate``.
``tests/test_record_trusted.py`` checks that both give equal records.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["build_trusted"]

Nested = Callable[[Any], Any]

# class -> (field names, the fields holding records, the defaults of the others, the fields made
# by a factory, extra keys allowed)
_Plan = tuple[frozenset[str], list[tuple[str, Nested]], dict[str, Any], list[tuple[str, Any]], bool]
_PLANS: dict[type, _Plan] = {}


def _nested(tp: Any) -> Nested | None:
    """How the JSON value of a field of type ``tp`` becomes its value: ``None`` when it is kept
    as it is (no record inside)."""
    if isinstance(tp, type) and callable(getattr(tp, "_build", None)):
        return lambda v: build_trusted(tp, v)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _nested(args[0])
    if origin is typing.Union or origin is types.UnionType:
        inner = [f for f in (_nested(a) for a in args if a is not type(None)) if f is not None]
        if not inner:
            return None
        if len(inner) > 1:
            raise TypeError(f"build_trusted does not support a union of records: {tp!r}")
        one = inner[0]
        return lambda v: None if v is None else one(v)
    if origin is list and args:
        item = _nested(args[0])
        return None if item is None else lambda v: [item(x) for x in v]
    if origin is dict and len(args) == 2:
        value = _nested(args[1])
        return None if value is None else lambda v: {k: value(x) for k, x in v.items()}
    return None


def _plan(cls: Any) -> _Plan:
    fields = cls.model_fields()
    nested = [(f.name, n) for f in fields.values() if (n := _nested(f.annotation)) is not None]
    defaults = {f.name: f.default for f in fields.values() if f.factory is None}
    factories = [(f.name, f.factory) for f in fields.values() if f.factory is not None]
    plan = _PLANS[cls] = (frozenset(fields), nested, defaults, factories, cls.extra == "allow")
    return plan


def build_trusted(cls: Any, data: dict[str, Any]) -> Any:
    """The record ``cls.model_validate(data)`` would give, for ``data`` that is the dump of a
    validated ``cls`` (the lists and dicts of ``data`` are used, not copied).  The defaults are
    laid down first and the data over them (one merge, not a test per field: a task's dump
    leaves out 13 of its 20 fields)."""
    names, nested, defaults, factories, allow_extra = _PLANS.get(cls) or _plan(cls)
    if data.keys() <= names:
        values = {**defaults, **data}
        extra: dict[str, Any] | None = {} if allow_extra else None
    else:
        values = {**defaults, **{k: v for k, v in data.items() if k in names}}
        extra = {k: v for k, v in data.items() if k not in names} if allow_extra else None
    for name, build in nested:
        if name in data:
            values[name] = build(data[name])
    for name, factory in factories:
        if name not in values:
            values[name] = factory()
    values["model_extra"] = extra
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    return obj
