"""Records from data this engine validated and wrote itself, without checking it again (issue 26).

A state file the store wrote is the dump of a validated record (``encode_state``), so building it
again through the checks gives back exactly that data: every check and normaliser is the
identity on it.  ``build_trusted`` makes the same records (defaults for the fields a dump leaves
out, the extra keys in ``model_extra``, nested records built) without the checks, about half the
time of a first ``model_validate`` at 1,000 tasks.  Only the store calls it, and only for bytes it
can show it wrote (``store.stamp``); anything else goes through ``model_validate``.
``tests/test_record_trusted.py`` checks that both give equal records.

``lazy`` names record classes built on first use instead (``deferred``): an update reads every
task of the state but touches the few of one wave, and the others are written back from the
bytes read (``store.codec``), so at 1,000 tasks building them was a tenth of ``task done``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["build_trusted", "deferred"]

Nested = Callable[[Any], Any]

# class -> (field names, the fields holding records, the defaults of the others, the fields made
# by a factory, extra keys allowed)
_Plan = tuple[frozenset[str], list[tuple[str, Nested]], dict[str, Any], list[tuple[str, Any]], bool]
_PLANS: dict[tuple[type, frozenset[type]], _Plan] = {}
_NONE: frozenset[type] = frozenset()


def _nested(tp: Any, lazy: frozenset[type]) -> Nested | None:
    """How the JSON value of a field of type ``tp`` becomes its value: ``None`` when it is kept
    as it is (no record inside)."""
    if isinstance(tp, type) and callable(getattr(tp, "_build", None)):
        if tp in lazy:
            return lambda v: deferred(tp, v)
        return lambda v: build_trusted(tp, v, lazy)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _nested(args[0], lazy)
    if origin is typing.Union or origin is types.UnionType:
        inner = [
            f for f in (_nested(a, lazy) for a in args if a is not type(None)) if f is not None
        ]
        if not inner:
            return None
        if len(inner) > 1:
            raise TypeError(f"build_trusted does not support a union of records: {tp!r}")
        one = inner[0]
        return lambda v: None if v is None else one(v)
    if origin is list and args:
        item = _nested(args[0], lazy)
        return None if item is None else lambda v: [item(x) for x in v]
    if origin is dict and len(args) == 2:
        value = _nested(args[1], lazy)
        return None if value is None else lambda v: {k: value(x) for k, x in v.items()}
    return None


def _plan(cls: Any, lazy: frozenset[type]) -> _Plan:
    fields = cls.model_fields()
    nested = [
        (f.name, n) for f in fields.values() if (n := _nested(f.annotation, lazy)) is not None
    ]
    defaults = {f.name: f.default for f in fields.values() if f.factory is None}
    factories = [(f.name, f.factory) for f in fields.values() if f.factory is not None]
    plan = (frozenset(fields), nested, defaults, factories, cls.extra == "allow")
    _PLANS[cls, lazy] = plan
    return plan


def build_trusted(cls: Any, data: dict[str, Any], lazy: frozenset[type] = _NONE) -> Any:
    """The record ``cls.model_validate(data)`` would give, for ``data`` that is the dump of a
    validated ``cls`` (the lists and dicts of ``data`` are used, not copied).  The defaults are
    laid down first and the data over them (one merge, not a test per field: a task's dump
    leaves out 13 of its 20 fields).  Records of the classes in ``lazy`` inside it are
    ``deferred``."""
    names, nested, defaults, factories, allow_extra = _PLANS.get((cls, lazy)) or _plan(cls, lazy)
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


def deferred(cls: Any, data: dict[str, Any]) -> Any:
    """The record ``build_trusted(cls, data)`` gives, built on first use: reading a field,
    comparing, copying, showing or dumping it.  Until then it is an instance of a stand-in
    subclass holding ``data`` only; building it sets the fields and makes it a ``cls`` (the same
    object, so the store still knows it as the task it read).  A stand-in, not a
    ``__getattr__`` on every record: that would slow each field read of every record."""
    obj: Any = object.__new__(_STAND_INS.get(cls) or _stand_in(cls))
    object.__setattr__(obj, "__dict__", {_DATA: data})
    return obj


_DATA = "(data to build)"  # not an identifier: never a field's name
_STAND_INS: dict[type, type] = {}


def _build_now(obj: Any) -> None:
    cls = type(obj).__mro__[1]
    values = obj.__dict__
    data = values.pop(_DATA)
    set_meanwhile = dict(values)  # fields set on the stand-in (none today: the engine copies)
    values.update(build_trusted(cls, data).__dict__)
    values.update(set_meanwhile)
    object.__setattr__(obj, "__class__", cls)


def _stand_in(cls: Any) -> type:
    class Deferred(cls, deferred=True):  # type: ignore[misc, call-arg]
        _fields, _spec = cls._checked(), cls._compiled()  # as ``cls``'s, if asked through it

        def __getattr__(self, name: str) -> Any:
            if _DATA not in self.__dict__:  # one being made (``copy.copy``): nothing to build
                raise AttributeError(name)
            _build_now(self)
            return getattr(self, name)

        def __eq__(self, other: object) -> bool:
            _build_now(self)
            if type(other) in _STAND_INS.values():
                _build_now(other)
            return bool(self == other)

        def __repr__(self) -> str:
            _build_now(self)
            return repr(self)

        def model_copy(self, *, deep: bool = False) -> Any:
            _build_now(self)
            return self.model_copy(deep=deep)

        def model_dump(self, *, mode: str = "json", exclude_none: bool = False) -> Any:
            _build_now(self)
            return self.model_dump(mode=mode, exclude_none=exclude_none)

    Deferred.__name__, Deferred.__qualname__ = cls.__name__, cls.__qualname__
    _STAND_INS[cls] = Deferred
    return Deferred
