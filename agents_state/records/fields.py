"""A record's fields, checked when the class is defined (issue 18).

Everything about a field that can be wrong is found here, at import, with the record and the
field named: an annotation that does not evaluate, a type records do not support, bounds on a
field that is not an ``int``, a default that its own check refuses or would change, a mutable
default (shared by every record, as ``dataclasses`` refuses too), a name that would hide one of
``Record``'s methods.  What stays lazy (``record_codegen``: the generated build and dump
functions, about two thirds of the cost) is made of these checked parts and cannot fail.

An annotation naming a record defined later in the module (a forward reference) raises
``NameError``: ``field_spec`` answers ``None`` and the record retries when the module defines
its next record, or at the latest on first use (see ``Record``).
"""

from __future__ import annotations

import builtins
import functools
import operator
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

from agents_state.records.checks import Invalid, bounded, compile_type, fast_values
from agents_state.records.codegen import MISSING

__all__ = ["FieldInfo", "FieldSpec", "RecordDefinitionError", "field", "field_spec"]


class RecordDefinitionError(TypeError):
    """A record class declares a field that cannot work; raised when the class is defined."""

    def __init__(self, record: str, name: str, problem: str) -> None:
        self.record, self.name, self.problem = record, name, problem
        super().__init__(f"record {record}, field {name!r}: {problem}")


class FieldInfo:
    """What a class body says about a field; ``field_spec`` turns it into a ``FieldSpec``."""

    __slots__ = ("annotation", "default", "factory", "ge", "le", "module", "owner", "spec")

    def __init__(
        self, default: Any, factory: Callable[[], Any] | None, ge: int | None, le: int | None
    ) -> None:
        self.default, self.factory, self.ge, self.le = default, factory, ge, le
        self.annotation: Any = None
        self.module = self.owner = ""
        self.spec: FieldSpec | None = None  # made once, when the annotation resolves


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    ge: int | None = None,
    le: int | None = None,
) -> Any:
    """A field's default (or a factory of fresh defaults) and inclusive bounds for an ``int``."""
    return FieldInfo(default, default_factory, ge, le)


class _Typed:
    """What a field's annotation gives, whatever the field: made once per annotation text."""

    __slots__ = ("annotation", "check", "fast", "plain_check")

    def __init__(self, annotation: Any) -> None:
        self.annotation = annotation
        self.check = compile_type(annotation)
        # values the check would return unchanged: taken as they are, without a call
        self.fast = fast_values(annotation)
        plain = _plain(annotation)
        self.plain_check = self.check if plain is annotation else compile_type(plain)


class FieldSpec:
    """One field of a record: its name, annotation, check, default and bounds."""

    __slots__ = ("annotation", "check", "default", "factory", "fast", "ge", "le", "name")

    def __init__(self, name: str, typed: _Typed, info: FieldInfo) -> None:
        self.name, self.annotation = name, typed.annotation
        self.default, self.factory, self.ge, self.le = info.default, info.factory, info.ge, info.le
        has_bounds = (info.ge, info.le) != (None, None)
        self.check = bounded(typed.check, info.ge, info.le) if has_bounds else typed.check
        self.fast = frozenset() if has_bounds else typed.fast

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.factory is None


# (module, annotation text) -> its checks: the same few texts ("str | None", "Status") recur
_TYPED: dict[tuple[str, str], _Typed] = {}


def _evaluate(info: FieldInfo, local: dict[str, Any]) -> Any:
    """The value of the annotation text, as ``eval`` gives it; names and ``A | B`` of names (most
    annotations) are looked up without compiling the text, which costs ~30 us each."""
    value: Any = info.annotation
    module = vars(sys.modules[info.module])
    while isinstance(value, str):  # again for a quoted annotation under future annotations
        value = _evaluate_text(value, module, local)
    return value


def _evaluate_text(text: str, module: dict[str, Any], local: dict[str, Any]) -> Any:
    parts = text.split(" | ")
    if not all(p.isidentifier() for p in parts):
        # the class's own annotation text; ``local``: the record itself, or one defined just now
        return eval(text, module, local)
    values = [_lookup(p, module, local) for p in parts]
    return functools.reduce(operator.or_, values)


def _lookup(name: str, module: dict[str, Any], local: dict[str, Any]) -> Any:
    for scope in (local, module, vars(builtins)):
        if name in scope:
            return scope[name]
    if name == "None":
        return None
    raise NameError(f"name {name!r} is not defined")


def _typed(name: str, info: FieldInfo, local: dict[str, Any]) -> _Typed:
    ann = info.annotation
    key = (info.module, ann) if isinstance(ann, str) else None
    typed = _TYPED.get(key) if key else None
    if typed is not None:
        return typed
    try:
        value = _evaluate(info, local) if key else ann
    except NameError:
        raise
    except Exception as e:
        raise RecordDefinitionError(
            info.owner, name, f"the annotation {ann!r} does not evaluate: {e}"
        ) from None
    try:
        typed = _Typed(value)
    except TypeError as e:
        raise RecordDefinitionError(info.owner, name, str(e)) from None
    if key and not any(n in ann for n in local):  # a local name may mean another class later
        _TYPED[key] = typed
    return typed


def field_spec(name: str, info: FieldInfo, local: dict[str, Any]) -> FieldSpec | None:
    """The field's spec, or ``None`` while a name in its annotation is not defined yet."""
    if info.spec is not None:
        return info.spec
    try:
        typed = _typed(name, info, local)
    except NameError:
        return None
    spec = FieldSpec(name, typed, info)
    problem = _bounds_problem(spec) or _default_problem(spec, typed.plain_check)
    if problem:
        raise RecordDefinitionError(info.owner, name, problem)
    info.spec = spec
    return spec


def unresolved(name: str, info: FieldInfo, local: dict[str, Any]) -> RecordDefinitionError:
    """The error for a field whose annotation still names something undefined."""
    try:
        _evaluate(info, local)
    except NameError as e:
        return RecordDefinitionError(
            info.owner, name, f"the annotation {info.annotation!r} does not resolve: {e}"
        )
    raise AssertionError("resolves")  # pragma: no cover - only called after a NameError


def _bounds_problem(spec: FieldSpec) -> str:
    if (spec.ge, spec.le) == (None, None):
        return ""
    tp = spec.annotation
    if typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return "" if tp is int else f"bounds (ge, le) apply to an int, not to {spec.annotation!r}"


def _default_problem(spec: FieldSpec, check: Callable[[Any], Any]) -> str:
    default = spec.default
    if spec.factory is not None:
        if default is not MISSING:
            return "both a default and a default_factory"
        return "" if callable(spec.factory) else f"default_factory {spec.factory!r} is not callable"
    if default is MISSING:
        return ""
    if type(default) in (list, dict, set):
        return (
            f"the mutable default {default!r} would be shared by every record; "
            "use field(default_factory=...)"
        )
    if (spec.ge, spec.le) != (None, None):
        check = bounded(check, spec.ge, spec.le)
    try:
        value = check(default)
    except Invalid as e:
        return f"the default {default!r} is invalid: {e.problems[0][2]}"
    if value is not default and (type(value) is not type(default) or value != default):
        return f"the default {default!r} is not canonical (it reads as {value!r})"
    return ""


def _plain(tp: Any) -> Any:
    """The type without its ``Before`` / ``After`` functions: a default is checked against the
    type only, since those functions may use names the module defines after the record."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _plain(args[0])
    if origin in (typing.Union, types.UnionType):
        plain = tuple(_plain(a) for a in args)
        return tp if plain == args else typing.Union[plain]  # noqa: UP007 - built from a tuple
    if origin in (list, dict) and args:
        plain = tuple(_plain(a) for a in args)
        return tp if plain == args else origin[plain]
    return tp
