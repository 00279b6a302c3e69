"""The one JSON Schema generator (draft 2020-12): ``json_schema`` of a record or of a pydantic
model, in one shape (pydantic's), pure.

A record's schema is made here: nested records go to ``$defs``; titles, defaults, bounds and
descriptions (the class docstring) are those of the declaration.  The before- and after-checks
are not described: the readers are more lenient than the schema (see ``schema_export``).  A
pydantic model's schema is pydantic's own (``mode="validation"``).  Both then go through the
same key ordering (``_sorted``).  Only ``agents-state schema`` and the scaffold need it, so it
is kept off the hot path, and pydantic is not imported here.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any, Literal

from agents_state.records.base import FieldSpec, Record
from agents_state.records.codegen import MISSING

__all__ = ["json_schema"]


def json_schema(model: type[Any]) -> dict[str, Any]:
    """The JSON Schema of a record or of a pydantic model (anything with ``model_json_schema``)."""
    if isinstance(model, type) and issubclass(model, Record):
        body = _record_schema(model)
    else:
        body = model.model_json_schema(mode="validation")
    out: dict[str, Any] = _sorted(body)
    return out


def _record_schema(cls: type[Record]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    body = _object(cls, defs)
    if defs:
        body["$defs"] = dict(sorted(defs.items()))
    return body


def _object(cls: type[Record], defs: dict[str, Any]) -> dict[str, Any]:
    props = {name: _field(spec, defs) for name, spec in cls.model_fields().items()}
    out: dict[str, Any] = {
        "additionalProperties": cls.extra == "allow",
        "properties": props,
        "title": cls.__name__,
        "type": "object",
    }
    if cls.__doc__:
        out["description"] = inspect.cleandoc(cls.__doc__)
    required = [name for name, spec in cls.model_fields().items() if spec.required]
    if required:
        out["required"] = required
    return out


def _field(spec: FieldSpec, defs: dict[str, Any]) -> dict[str, Any]:
    out = _type(spec.annotation, defs)
    if spec.ge is not None:
        out["minimum"] = spec.ge
    if spec.le is not None:
        out["maximum"] = spec.le
    if not _has_record(spec.annotation):
        out["title"] = spec.name.replace("_", " ").title()
    if spec.factory is None and spec.default is not MISSING:
        default = spec.default
        out["default"] = default.model_dump() if isinstance(default, Record) else default
    return out


def _has_record(tp: Any) -> bool:
    if isinstance(tp, type) and issubclass(tp, Record):
        return True
    args = typing.get_args(tp)
    if typing.get_origin(tp) is typing.Annotated:
        return _has_record(args[0])
    return typing.get_origin(tp) in (typing.Union, types.UnionType) and any(
        _has_record(a) for a in args
    )


def _type(tp: Any, defs: dict[str, Any]) -> dict[str, Any]:
    simple = {str: "string", int: "integer", bool: "boolean", float: "number"}
    if tp in simple:
        return {"type": simple[tp]}
    if tp is Any:
        return {}
    if isinstance(tp, type) and issubclass(tp, Record):
        if tp.__name__ not in defs:
            defs[tp.__name__] = {}  # placeholder: records may refer to each other
            defs[tp.__name__] = _object(tp, defs)
        return {"$ref": f"#/$defs/{tp.__name__}"}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _type(args[0], defs)
    if origin is Literal:
        kind = {"type": "string"} if all(isinstance(a, str) for a in args) else {}
        return {"const": args[0], **kind} if len(args) == 1 else {"enum": list(args), **kind}
    if origin in (typing.Union, types.UnionType):
        return {
            "anyOf": [_type(a, defs) if a is not type(None) else {"type": "null"} for a in args]
        }
    if origin is list or tp is list:
        return (
            {"items": _type(args[0], defs), "type": "array"}
            if args
            else {"items": {}, "type": "array"}
        )
    if origin is dict or tp is dict:
        inner = _type(args[1], defs) if args else {}
        return {"additionalProperties": inner or True, "type": "object"}
    raise TypeError(f"no JSON Schema for {tp!r}")


def _sorted(node: Any, data: bool = False) -> Any:
    """Keys sorted, as pydantic does, except property order and literal data (defaults, enums)."""
    if isinstance(node, dict) and not data:
        return {
            k: _sorted(v, data=k in ("default", "enum", "const"))
            if k != "properties"
            else {p: _sorted(s) for p, s in v.items()}
            for k, v in sorted(node.items())
        }
    if isinstance(node, list) and not data:
        return [_sorted(x) for x in node]
    return node
