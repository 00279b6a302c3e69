"""Typed records: the state and configuration models without pydantic's start-up cost (issue 8).

Importing pydantic takes about 70 ms and building our models about 45 ms more, several times a
bare interpreter's start-up, on a path that runs for every task transition.  A record declares its
fields as annotations, like a pydantic model, and validates like pydantic's lax mode for the types
used here (``str``, ``int``, ``bool``, ``Any``, ``Literal``, ``X | None``, ``list``, ``dict``,
nested records, ``Annotated[..., Before(f), After(f)]``, ``field(ge=, le=)``), with pydantic's error
types and messages, so error texts read the same.  ``tests/test_record.py`` checks both agree.

The method names are pydantic's (``model_validate``, ``model_dump``, ``model_copy``,
``model_extra``, ``model_fields``) so that code reads the same for both kinds of model.  The checks
of each type are in ``checks``, the fields (checked when the class is defined) in ``fields``, the
generated build and dump functions in ``codegen``, the JSON Schema in ``schema`` (only
``agents-state schema`` needs it) and the flattening of errors in ``problems``.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar, Self, dataclass_transform

from agents_state.records.checks import After, Before, Invalid, record_check
from agents_state.records.codegen import LEAVES, MISSING, Compiled
from agents_state.records.fields import (
    FieldInfo,
    FieldSpec,
    RecordDefinitionError,
    field,
    field_spec,
    unresolved,
)

__all__ = [
    "After",
    "Before",
    "FieldSpec",
    "Record",
    "RecordDefinitionError",
    "RecordError",
    "field",
    "pending_records",
]


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

    def errors(self, *, include_url: bool = True) -> list[dict[str, Any]]:
        """The problems, as pydantic's ``ValidationError.errors`` lists them (no URLs)."""
        return self._errors


# -- records ----------------------------------------------------------------------------------


# module -> its records whose annotations name something not defined yet (forward references)
_PENDING: dict[str, list[type[Record]]] = {}


def pending_records() -> list[str]:
    """Records still waiting for a name (``module.Class``); none once their modules are loaded."""
    return [f"{m}.{c.__qualname__}" for m, classes in _PENDING.items() for c in classes]


def _check_fields(cls: type[Record], local: dict[str, Any]) -> bool:
    """Check every field (``RecordDefinitionError`` at the first bad one); False while one
    names something not defined yet.  All fields are checked even then."""
    fields: dict[str, FieldSpec] = {}
    for name, info in cls._infos.items():
        spec = field_spec(name, info, local)
        if spec is not None:
            fields[name] = spec
    if len(fields) < len(cls._infos):
        return False
    cls._fields = fields
    return True


def _define(cls: type[Record]) -> None:
    """Run when a record class is defined: check its fields now, or when its names exist."""
    if cls.extra not in ("allow", "forbid"):
        raise RecordDefinitionError(
            cls.__qualname__, "extra", f"is {cls.extra!r}; use 'allow' or 'forbid'"
        )
    for name in cls._infos:
        if hasattr(Record, name) or name == "model_extra":
            raise RecordDefinitionError(
                cls.__qualname__, name, "hides an attribute of Record; rename the field"
            )
    waiting = _PENDING.get(cls.__module__, [])
    # the new class is not yet bound in its module: earlier records naming it find it here
    for other in list(waiting):
        if _check_fields(other, {other.__name__: other, cls.__name__: cls}):
            waiting.remove(other)
    if not _check_fields(cls, {cls.__name__: cls}):
        _PENDING.setdefault(cls.__module__, []).append(cls)


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
class Record:
    """Base of the records; subclasses set ``extra`` to ``"allow"`` (kept) or ``"forbid"``.

    A subclass's fields are checked when it is defined (``RecordDefinitionError``); its build
    and dump functions are made on first use from the checked fields (``_compiled``): loops
    over the fields at first, generated straight-line code once the class is hot.
    """

    extra: ClassVar[str] = "allow"
    _infos: ClassVar[dict[str, FieldInfo]] = {}
    _fields: ClassVar[dict[str, FieldSpec] | None] = None
    _spec: ClassVar[Compiled | None] = None
    model_extra: dict[str, Any] | None

    def __init_subclass__(cls, deferred: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if deferred:  # the stand-in of a record built on first use (``records.trusted``)
            return
        infos: dict[str, FieldInfo] = {}
        for base in reversed(cls.__mro__[1:]):
            infos.update(getattr(base, "_infos", {}))
        for name, ann in inspect.get_annotations(cls).items():
            if "ClassVar" in str(ann):
                continue
            value = cls.__dict__.get(name, MISSING)
            info = value if isinstance(value, FieldInfo) else FieldInfo(value, None, None, None)
            info.annotation, info.module, info.owner = ann, cls.__module__, cls.__qualname__
            infos[name] = info
            if value is not MISSING:
                delattr(cls, name)
        cls._infos = infos
        cls._fields = None
        cls._spec = None
        _define(cls)

    @classmethod
    def _checked(cls) -> dict[str, FieldSpec]:
        """The checked fields; a name still undefined when the record is first used fails here."""
        fields = cls.__dict__.get("_fields")
        if fields is None:
            local = {cls.__name__: cls}
            if not _check_fields(cls, local):
                name, info = next((n, i) for n, i in cls._infos.items() if i.spec is None)
                raise unresolved(name, info, local)
            _PENDING.get(cls.__module__, []).remove(cls)
            fields = cls._fields
            assert fields is not None
        return fields

    @classmethod
    def _compiled(cls) -> Compiled:
        """The build and dump functions, made on first use from the checked fields (they cannot
        fail; see ``codegen`` for why they are not generated at import)."""
        spec = cls.__dict__.get("_spec")
        if spec is None:
            spec = cls._spec = Compiled(cls, cls._checked(), _dump)
        return spec

    @classmethod
    def model_fields(cls) -> dict[str, FieldSpec]:
        return cls._checked()

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
        fields = ", ".join(f"{n}={self.__dict__[n]!r}" for n in self._checked())
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


def _dump(v: Any, exclude_none: bool) -> Any:
    if isinstance(v, Record):
        return v.model_dump(exclude_none=exclude_none)
    if type(v) is list or type(v) is tuple:
        return [x if type(x) in LEAVES else _dump(x, exclude_none) for x in v]
    if type(v) is dict:
        return {k: x if type(x) in LEAVES else _dump(x, exclude_none) for k, x in v.items()}
    return v
