"""Typed records: the state and configuration models without pydantic's start-up cost (issue 8).

Importing pydantic takes about 70 ms and building our models about 45 ms more, several times a
bare interpreter's start-up, on a path that runs for every task transition.  A record declares its
fields as annotations, like a pydantic model, and validates like pydantic's lax mode for the types
used here (``str``, ``int``, ``bool``, ``Any``, ``Literal``, ``X | None``, ``list``, ``dict``,
nested records, ``Annotated[..., Before(f), After(f)]``, ``field(ge=, le=)``), with pydantic's error
types and messages, so error texts read the same.  ``tests/test_record.py`` checks both agree.

The method names are pydantic's (``model_validate``, ``model_dump``, ``model_copy``,
``model_extra``, ``model_fields``) so that code reads the same for both kinds of model.  The checks
of each type are in ``record_checks``, the generated build and dump functions in ``record_codegen``
and the JSON Schema in ``record_schema`` (only ``agents-state schema`` needs it).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any, ClassVar, Self, dataclass_transform

from agents_state.records.checks import (
    After,
    Before,
    Invalid,
    bounded,
    compile_type,
    fast_values,
    record_check,
)
from agents_state.records.codegen import MISSING, build_source, dump_source, generate

__all__ = ["After", "Before", "FieldSpec", "Record", "RecordError", "field"]


class _FieldInfo:
    __slots__ = ("annotation", "default", "factory", "ge", "le", "module")

    def __init__(
        self, default: Any, factory: Callable[[], Any] | None, ge: int | None, le: int | None
    ) -> None:
        self.default, self.factory, self.ge, self.le = default, factory, ge, le
        self.annotation: Any = None
        self.module = ""


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    ge: int | None = None,
    le: int | None = None,
) -> Any:
    """A field's default (or a factory of fresh defaults) and inclusive bounds for an ``int``."""
    return _FieldInfo(default, default_factory, ge, le)


class RecordError(ValueError):
    """Validation failed; ``errors()`` lists the problems as pydantic does."""

    def __init__(self, title: str, errors: list[dict[str, Any]]) -> None:
        self.title, self._errors = title, errors
        first = errors[0] if errors else {"loc": (), "msg": "invalid"}
        loc = ".".join(str(p) for p in first["loc"])
        super().__init__(
            f"{len(errors)} validation error(s) for {title}: "
            f"{loc + ': ' if loc else ''}{first['msg']}"
        )

    def errors(self) -> list[dict[str, Any]]:
        return self._errors


# -- records ----------------------------------------------------------------------------------


class FieldSpec:
    """One field of a record: its name, annotation, check, default and bounds."""

    __slots__ = ("annotation", "check", "default", "factory", "fast", "ge", "le", "name")

    def __init__(self, name: str, annotation: Any, info: _FieldInfo) -> None:
        self.name, self.annotation = name, annotation
        self.default, self.factory, self.ge, self.le = info.default, info.factory, info.ge, info.le
        check = compile_type(annotation)
        has_bounds = (info.ge, info.le) != (None, None)
        self.check = bounded(check, info.ge, info.le) if has_bounds else check
        # values the check would return unchanged: taken as they are, without a call
        self.fast = frozenset() if has_bounds else fast_values(annotation)

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.factory is None


class _Spec:
    """A record class's fields, and its build and dump functions generated from them."""

    __slots__ = ("build", "dump", "fields", "names")

    def __init__(self, cls: type[Record], fields: dict[str, FieldSpec]) -> None:
        self.fields = fields
        self.names = frozenset(fields)
        specs = list(fields.values())
        env: dict[str, Any] = {
            "cls": cls,
            "names": self.names,
            "C": [f.check for f in specs],
            "D": [f.default for f in specs],
            "F": [f.factory for f in specs],
        }
        env.update({f"K{i}": f.fast for i, f in enumerate(specs)})
        self.build: Callable[[dict[str, Any]], Any] = generate(
            build_source(cls.extra == "allow", specs), env
        )
        self.dump: Callable[[Any, bool], dict[str, Any]] = generate(
            dump_source(specs), {"LEAVES": _LEAVES, "dump_value": _dump}
        )


def _resolve(info: _FieldInfo) -> Any:
    ann = info.annotation
    return eval(ann, vars(sys.modules[info.module])) if isinstance(ann, str) else ann


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
class Record:
    """Base of the records; subclasses set ``extra`` to ``"allow"`` (kept) or ``"forbid"``."""

    extra: ClassVar[str] = "allow"
    _infos: ClassVar[dict[str, _FieldInfo]] = {}
    _spec: ClassVar[_Spec | None] = None
    model_extra: dict[str, Any] | None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        infos: dict[str, _FieldInfo] = {}
        for base in reversed(cls.__mro__[1:]):
            infos.update(getattr(base, "_infos", {}))
        for name, ann in inspect.get_annotations(cls).items():
            if "ClassVar" in str(ann):
                continue
            value = cls.__dict__.get(name, MISSING)
            info = value if isinstance(value, _FieldInfo) else _FieldInfo(value, None, None, None)
            info.annotation, info.module = ann, cls.__module__
            infos[name] = info
            if value is not MISSING:
                delattr(cls, name)
        cls._infos = infos
        cls._spec = None

    @classmethod
    def _compiled(cls) -> _Spec:
        """The fields and generated functions, made on first use (class creation stays cheap)."""
        spec = cls.__dict__.get("_spec")
        if spec is None:
            spec = _Spec(
                cls, {n: FieldSpec(n, _resolve(info), info) for n, info in cls._infos.items()}
            )
            cls._spec = spec
        return spec

    @classmethod
    def model_fields(cls) -> dict[str, FieldSpec]:
        return cls._compiled().fields

    @classmethod
    def _build(cls, data: dict[str, Any]) -> Self:
        return cls._compiled().build(data)  # type: ignore[no-any-return]

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        try:
            return record_check(cls)(data)  # type: ignore[no-any-return]
        except Invalid as e:
            raise RecordError(
                cls.__name__,
                [
                    {"type": kind, "loc": loc, "msg": msg, "input": value}
                    for loc, kind, msg, value in e.problems
                ],
            ) from None

    def __init__(self, **data: Any) -> None:
        object.__setattr__(self, "__dict__", self.model_validate(data).__dict__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.__dict__ == self.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={self.__dict__[n]!r}" for n in self._compiled().fields)
        return f"{type(self).__name__}({fields})"

    def model_copy(self, *, deep: bool = False) -> Self:
        if deep:
            import copy

            return copy.deepcopy(self)
        values = dict(self.__dict__)
        if values["model_extra"] is not None:
            values["model_extra"] = dict(values["model_extra"])
        obj = object.__new__(type(self))
        object.__setattr__(obj, "__dict__", values)
        return obj

    def model_dump(self, *, mode: str = "json", exclude_none: bool = False) -> dict[str, Any]:
        """Plain JSON data (fresh lists and dicts): fields in order, then the extra ones."""
        return self._compiled().dump(self, exclude_none)


_LEAVES = frozenset((str, int, bool, float, type(None)))


def _dump(v: Any, exclude_none: bool) -> Any:
    if isinstance(v, Record):
        return v.model_dump(exclude_none=exclude_none)
    if type(v) is list or type(v) is tuple:
        return [x if type(x) in _LEAVES else _dump(x, exclude_none) for x in v]
    if type(v) is dict:
        return {k: x if type(x) in _LEAVES else _dump(x, exclude_none) for k, x in v.items()}
    return v
