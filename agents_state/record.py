"""Typed records: the state and configuration models without pydantic's start-up cost (issue 8).

Importing pydantic takes about 70 ms and building our models about 45 ms more, several times a
bare interpreter's start-up, on a path that runs for every task transition.  A record declares its
fields as annotations, like a pydantic model, and validates like pydantic's lax mode for the types
used here (``str``, ``int``, ``bool``, ``Any``, ``Literal``, ``X | None``, ``list``, ``dict``,
nested records, ``Annotated[..., Before(f), After(f)]``, ``field(ge=, le=)``), with pydantic's error
types and messages, so error texts read the same.  ``tests/test_record.py`` checks both agree.

The method names are pydantic's (``model_validate``, ``model_dump``, ``model_copy``,
``model_extra``, ``model_fields``) so that code reads the same for both kinds of model.  The JSON
Schema of a record is in ``record_schema`` (only ``agents-state schema`` needs it).
"""

from __future__ import annotations

import inspect
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Literal, Self, dataclass_transform

__all__ = ["After", "Before", "FieldSpec", "Record", "RecordError", "field"]

_MISSING: Any = object()
Check = Callable[[Any], Any]


class Before:
    """``Annotated[T, Before(f)]``: ``f`` normalises the raw value before ``T`` checks it."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn


class After(Before):
    """``Annotated[T, After(f)]``: ``f`` checks (or converts) the value after ``T`` accepted it."""

    __slots__ = ()


class _FieldInfo:
    __slots__ = ("annotation", "default", "factory", "ge", "le", "module")

    def __init__(self, default: Any, factory: Callable[[], Any] | None, ge: int | None,
                 le: int | None) -> None:
        self.default, self.factory, self.ge, self.le = default, factory, ge, le
        self.annotation: Any = None
        self.module = ""


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None,
          ge: int | None = None, le: int | None = None) -> Any:
    """A field's default (or a factory of fresh defaults) and inclusive bounds for an ``int``."""
    return _FieldInfo(default, default_factory, ge, le)


class RecordError(ValueError):
    """Validation failed; ``errors()`` lists the problems as pydantic does."""

    def __init__(self, title: str, errors: list[dict[str, Any]]) -> None:
        self.title, self._errors = title, errors
        first = errors[0] if errors else {"loc": (), "msg": "invalid"}
        loc = ".".join(str(p) for p in first["loc"])
        super().__init__(f"{len(errors)} validation error(s) for {title}: "
                         f"{loc + ': ' if loc else ''}{first['msg']}")

    def errors(self) -> list[dict[str, Any]]:
        return self._errors


class _Invalid(Exception):
    """Raised by a check; carries (loc, type, msg, input) with loc relative to the check."""

    def __init__(self, problems: list[tuple[tuple[Any, ...], str, str, Any]]) -> None:
        self.problems = problems


def _fail(kind: str, msg: str, value: Any) -> _Invalid:
    return _Invalid([((), kind, msg, value)])


def _under(key: Any, e: _Invalid) -> list[tuple[tuple[Any, ...], str, str, Any]]:
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
    raise _fail("string_type", "Input should be a valid string", v)


def _int(v: Any) -> Any:
    t = type(v)
    if t is int:
        return v
    if t is bool:
        return int(v)
    if t is float:
        if v != v or v in (float("inf"), float("-inf")):
            raise _fail("finite_number", "Input should be a finite number", v)
        if v.is_integer():
            if abs(v) >= 2.0**63:  # pydantic's limit for a float that stands for an integer
                raise _fail("int_parsing_size", "Unable to parse input string as an integer, "
                            "exceeded maximum size", v)
            return int(v)
        raise _fail("int_from_float",
                    "Input should be a valid integer, got a number with a fractional part", v)
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
        raise _fail("int_parsing",
                    "Input should be a valid integer, unable to parse string as an integer", v)
    raise _fail("int_type", "Input should be a valid integer", v)


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
        raise _fail("bool_parsing", "Input should be a valid boolean, unable to interpret input",
                    v)
    if t is float and v in (0.0, 1.0):
        return v == 1.0
    raise _fail("bool_type", "Input should be a valid boolean", v)


def _any(v: Any) -> Any:
    return v


def _literal(values: tuple[Any, ...]) -> Check:
    allowed = frozenset(values)
    shown = [repr(x) for x in values]
    msg = "Input should be " + (shown[0] if len(shown) == 1
                                else ", ".join(shown[:-1]) + " or " + shown[-1])

    def check(v: Any) -> Any:
        if type(v) is str and v in allowed:
            return v
        raise _fail("literal_error", msg, v)

    return check


def _optional(inner: Check) -> Check:
    def check(v: Any) -> Any:
        return None if v is None else inner(v)

    return check


def _list(inner: Check) -> Check:
    plain = inner is _str

    def check(v: Any) -> Any:
        if not isinstance(v, list | tuple):
            raise _fail("list_type", "Input should be a valid list", v)
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
            except _Invalid as e:
                problems += _under(i, e)
        if problems:
            raise _Invalid(problems)
        return out

    return check


def _dict(inner: Check) -> Check:
    def check(v: Any) -> Any:
        if type(v) is not dict:
            raise _fail("dict_type", "Input should be a valid dictionary", v)
        if inner is _any:
            return dict(v)
        out, problems = {}, []
        for k, item in v.items():
            try:
                out[_str(k)] = inner(item)
            except _Invalid as e:
                problems += _under(k, e)
        if problems:
            raise _Invalid(problems)
        return out

    return check


def _record(cls: type[Record]) -> Check:
    msg = f"Input should be a valid dictionary or instance of {cls.__name__}"

    def check(v: Any) -> Any:
        if type(v) is dict:
            return cls._build(v)
        if isinstance(v, cls):
            return v
        raise _fail("model_type", msg, v)

    return check


def _value_error(fn: Callable[[Any], Any], inner: Check, after: bool) -> Check:
    def check(v: Any) -> Any:
        try:
            out = fn(inner(v) if after else v)
        except ValueError as e:
            raise _fail("value_error", f"Value error, {e}", v) from None
        return out if after else inner(out)

    return check


def _bounds(inner: Check, ge: int | None, le: int | None) -> Check:
    def check(v: Any) -> Any:
        n = inner(v)
        if ge is not None and n < ge:
            raise _fail("greater_than_equal", f"Input should be greater than or equal to {ge}", v)
        if le is not None and n > le:
            raise _fail("less_than_equal", f"Input should be less than or equal to {le}", v)
        return n

    return check


_SIMPLE: dict[Any, Check] = {str: _str, int: _int, bool: _bool, Any: _any, object: _any}


def compile_type(tp: Any) -> Check:
    """The check of one annotation; ``TypeError`` for a type records do not support."""
    if tp in _SIMPLE:
        return _SIMPLE[tp]
    if isinstance(tp, type) and issubclass(tp, Record):
        return _record(tp)
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


# -- records ----------------------------------------------------------------------------------


class FieldSpec:
    """One field of a record: its name, annotation, check, default and bounds."""

    __slots__ = ("annotation", "check", "default", "factory", "fast", "ge", "le", "name")

    def __init__(self, name: str, annotation: Any, info: _FieldInfo) -> None:
        self.name, self.annotation = name, annotation
        self.default, self.factory, self.ge, self.le = info.default, info.factory, info.ge, info.le
        check = compile_type(annotation)
        bounded = (info.ge, info.le) != (None, None)
        self.check = _bounds(check, info.ge, info.le) if bounded else check
        # values the check would return unchanged: taken as they are, without a call
        self.fast = frozenset() if bounded else _fast(annotation)

    @property
    def required(self) -> bool:
        return self.default is _MISSING and self.factory is None


def _fast(tp: Any) -> frozenset[Any]:
    """Types (or exact strings, for a literal) whose values ``compile_type(tp)`` keeps as is."""
    if tp in (str, int, bool):
        return frozenset((tp,))
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal and all(type(a) is str for a in args):
        return frozenset(args)
    if origin is typing.Annotated and typing.get_origin(args[0]) is Literal:
        fixed = all(not isinstance(m, Before) or all(m.fn(a) == a for a in typing.get_args(
            args[0])) for m in args[1:])  # a normaliser that leaves the allowed values alone
        return _fast(args[0]) if fixed else frozenset()
    if origin is typing.Union or origin is types.UnionType:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _fast(rest[0]) | {type(None)}
    return frozenset()


class _Spec:
    """A record class's fields, and its build and dump functions generated from them."""

    __slots__ = ("build", "dump", "fields", "names")

    def __init__(self, cls: type[Record], fields: dict[str, FieldSpec]) -> None:
        self.fields = fields
        self.names = frozenset(fields)
        specs = list(fields.values())
        env: dict[str, Any] = {"cls": cls, "names": self.names, "C": [f.check for f in specs],
                               "D": [f.default for f in specs], "F": [f.factory for f in specs]}
        env.update({f"K{i}": f.fast for i, f in enumerate(specs)})
        self.build: Callable[[dict[str, Any]], Any] = _generate(
            _build_source(cls.extra == "allow", specs), env)
        self.dump: Callable[[Any, bool], dict[str, Any]] = _generate(_dump_source(specs), {})


# Straight-line code per record class (as dataclasses and attrs do) validates and dumps 10,000
# tasks about twice as fast as a loop over the fields.


def _generate(lines: list[str], env: dict[str, Any]) -> Any:
    env.update(M=_MISSING, Invalid=_Invalid, under=_under, new=object.__new__,
               set_dict=object.__setattr__, LEAVES=_LEAVES, dump_value=_dump)
    exec("\n".join(lines), env)  # the source is made of field names (repr) and fixed text
    return env["fn"]


def _fast_test(fast: frozenset[Any], name: str) -> str:
    if not fast:
        return ""
    if all(isinstance(t, type) for t in fast):
        return f"type(v) in {name}"
    return f"type(v) in {name} or (type(v) is str and v in {name})"


def _build_source(allow_extra: bool, specs: list[FieldSpec]) -> list[str]:
    src = ["def fn(data):", "    values = {}", "    problems = []", "    get = data.get"]
    for i, f in enumerate(specs):
        n = repr(f.name)
        src += [f"    v = get({n}, M)", "    if v is M:"]
        if f.factory is not None:
            src.append(f"        values[{n}] = F[{i}]()")
        elif f.default is _MISSING:
            src.append(f"        problems.append((({n},), 'missing', 'Field required', data))")
        else:
            src.append(f"        values[{n}] = D[{i}]")
        test = _fast_test(f.fast, f"K{i}")
        if test:
            src += [f"    elif {test}:", f"        values[{n}] = v"]
        src += ["    else:", "        try:", f"            values[{n}] = C[{i}](v)",
                "        except Invalid as e:", f"            problems += under({n}, e)"]
    src += ["    extra = {}" if allow_extra else "    extra = None",
            "    if not data.keys() <= names:",
            "        for k, v in data.items():",
            "            if k not in names:",
            "                extra[k] = v" if allow_extra else
            "                problems.append(((k,), 'extra_forbidden', "
            "'Extra inputs are not permitted', v))",
            "    if problems:", "        raise Invalid(problems)",
            "    values['model_extra'] = extra",
            "    obj = new(cls)", "    set_dict(obj, '__dict__', values)", "    return obj"]
    return src


def _dump_source(specs: list[FieldSpec]) -> list[str]:
    src = ["def fn(self, exclude_none):", "    d = self.__dict__", "    out = {}"]
    for f in specs:
        n = repr(f.name)
        src += [f"    v = d[{n}]", "    if v is not None or not exclude_none:",
                f"        out[{n}] = v if type(v) in LEAVES else dump_value(v, exclude_none)"]
    src += ["    extra = d['model_extra']", "    if extra:", "        for k, v in extra.items():",
            "            if v is not None or not exclude_none:",
            "                out[k] = v if type(v) in LEAVES else dump_value(v, exclude_none)",
            "    return out"]
    return src


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
            value = cls.__dict__.get(name, _MISSING)
            info = value if isinstance(value, _FieldInfo) else _FieldInfo(value, None, None, None)
            info.annotation, info.module = ann, cls.__module__
            infos[name] = info
            if value is not _MISSING:
                delattr(cls, name)
        cls._infos = infos
        cls._spec = None

    @classmethod
    def _compiled(cls) -> _Spec:
        spec = cls.__dict__.get("_spec")
        if spec is None:
            spec = _Spec(cls, {n: FieldSpec(n, _resolve(info), info)
                               for n, info in cls._infos.items()})
            cls._spec = spec
        return spec

    @classmethod
    def model_fields(cls) -> dict[str, FieldSpec]:
        return cls._compiled().fields

    @classmethod
    def _build(cls, data: dict[str, Any]) -> Self:
        spec = cls.__dict__.get("_spec") or cls._compiled()
        return spec.build(data)  # type: ignore[no-any-return]

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        try:
            return _record(cls)(data)  # type: ignore[no-any-return]
        except _Invalid as e:
            raise RecordError(cls.__name__, [
                {"type": kind, "loc": loc, "msg": msg, "input": value}
                for loc, kind, msg, value in e.problems]) from None

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
        return (type(self).__dict__.get("_spec") or self._compiled()).dump(self, exclude_none)


_LEAVES = frozenset((str, int, bool, float, type(None)))


def _dump(v: Any, exclude_none: bool) -> Any:
    if isinstance(v, Record):
        return v.model_dump(exclude_none=exclude_none)
    if type(v) is list or type(v) is tuple:
        return [x if type(x) in _LEAVES else _dump(x, exclude_none) for x in v]
    if type(v) is dict:
        return {k: x if type(x) in _LEAVES else _dump(x, exclude_none) for k, x in v.items()}
    return v
