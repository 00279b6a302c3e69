"""Straight-line build and dump functions per record class, as dataclasses and attrs generate
theirs: at 10,000 tasks they validate and dump about twice as fast as a loop over the fields.

The source is made of field names (written with ``repr``) and fixed text; the checks, defaults
and factories are passed in ``env`` (``C``, ``D``, ``F``, ``K<i>``), never written into it.
"""

from __future__ import annotations

from typing import Any

from agents_state.records.checks import Invalid, under

__all__ = ["MISSING", "build_source", "dump_source", "generate"]

MISSING: Any = object()  # "no default": a missing value is an error


def generate(lines: list[str], env: dict[str, Any]) -> Any:
    env.update(
        M=MISSING, Invalid=Invalid, under=under, new=object.__new__, set_dict=object.__setattr__
    )
    exec("\n".join(lines), env)  # the source is made of field names (repr) and fixed text
    return env["fn"]


def _fast_test(fast: frozenset[Any], name: str) -> str:
    if not fast:
        return ""
    if all(isinstance(t, type) for t in fast):
        return f"type(v) in {name}"
    return f"type(v) in {name} or (type(v) is str and v in {name})"


def build_source(allow_extra: bool, specs: list[Any]) -> list[str]:
    src = ["def fn(data):", "    values = {}", "    problems = []", "    get = data.get"]
    for i, f in enumerate(specs):
        n = repr(f.name)
        src += [f"    v = get({n}, M)", "    if v is M:"]
        if f.factory is not None:
            src.append(f"        values[{n}] = F[{i}]()")
        elif f.required:
            src.append(f"        problems.append((({n},), 'missing', 'Field required', data))")
        else:
            src.append(f"        values[{n}] = D[{i}]")
        test = _fast_test(f.fast, f"K{i}")
        if test:
            src += [f"    elif {test}:", f"        values[{n}] = v"]
        src += [
            "    else:",
            "        try:",
            f"            values[{n}] = C[{i}](v)",
            "        except Invalid as e:",
            f"            problems += under({n}, e)",
        ]
    src += [
        "    extra = {}" if allow_extra else "    extra = None",
        "    if not data.keys() <= names:",
        "        for k, v in data.items():",
        "            if k not in names:",
        "                extra[k] = v"
        if allow_extra
        else "                problems.append(((k,), 'extra_forbidden', "
        "'Extra inputs are not permitted', v))",
        "    if problems:",
        "        raise Invalid(problems)",
        "    values['model_extra'] = extra",
        "    obj = new(cls)",
        "    set_dict(obj, '__dict__', values)",
        "    return obj",
    ]
    return src


def dump_source(specs: list[Any]) -> list[str]:
    src = ["def fn(self, exclude_none):", "    d = self.__dict__", "    out = {}"]
    for f in specs:
        n = repr(f.name)
        src += [
            f"    v = d[{n}]",
            "    if v is not None or not exclude_none:",
            f"        out[{n}] = v if type(v) in LEAVES else dump_value(v, exclude_none)",
        ]
    src += [
        "    extra = d['model_extra']",
        "    if extra:",
        "        for k, v in extra.items():",
        "            if v is not None or not exclude_none:",
        "                out[k] = v if type(v) in LEAVES else dump_value(v, exclude_none)",
        "    return out",
    ]
    return src
