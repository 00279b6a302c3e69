"""Straight-line build and dump functions per record class, as dataclasses and attrs generate
theirs: at 10,000 tasks they validate and dump about twice as fast as a loop over the fields.

Generating one costs 0.1 to 0.9 ms (``compile`` of its source), and saves 0.1 to 0.8 us per
call over a loop on the fields (measured on the state's records, issue 26): it pays for itself
after about a thousand calls.  A command that reads a state and its configuration would generate
some 46 functions (~15 ms) mostly to call each a few times.  So ``Compiled`` serves a class's
first ``HOT`` calls with the loops (``build_loop``, ``dump_loop``, same results and errors) and
generates the straight-line function on the next: the records of the tasks are generated beyond
a thousand tasks; the phases, stages, waves and the configuration's records never are.

The source is made of field names (written with ``repr``) and fixed text; the checks, defaults
and factories are passed in ``env`` (``C``, ``D``, ``F``, ``K<i>``), never written into it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents_state.records.checks import Invalid, under

__all__ = [
    "HOT",
    "LEAVES",
    "MISSING",
    "Compiled",
    "build_loop",
    "build_source",
    "dump_loop",
    "dump_source",
    "generate",
]

MISSING: Any = object()  # "no default": a missing value is an error
HOT = 1000  # calls served by the loops before a class's straight-line function is generated

Build = Callable[[dict[str, Any]], Any]
Dump = Callable[[Any, bool], dict[str, Any]]


class Compiled:
    """A record class's build and dump functions: the loops first, generated when hot."""

    __slots__ = (
        "build",
        "builds",
        "cls",
        "dump",
        "dump_value",
        "dumps",
        "fields",
        "loop_build",
        "loop_dump",
        "names",
    )

    def __init__(self, cls: Any, fields: dict[str, Any], dump_value: Callable[..., Any]) -> None:
        self.cls, self.fields, self.dump_value = cls, fields, dump_value
        self.names = frozenset(fields)
        self.builds = self.dumps = 0
        self.loop_build: Build | None = None
        self.loop_dump: Dump | None = None
        self.build: Build = self._build_warm if HOT else self._generated_build()
        self.dump: Dump = self._dump_warm if HOT else self._generated_dump()

    def _build_warm(self, data: dict[str, Any]) -> Any:
        self.builds += 1
        if self.builds >= HOT:
            self.build = self._generated_build()
        if self.loop_build is None:
            self.loop_build = build_loop(self.cls, self.fields, self.names)
        return self.loop_build(data)

    def _dump_warm(self, obj: Any, exclude_none: bool) -> dict[str, Any]:
        self.dumps += 1
        if self.dumps >= HOT:
            self.dump = self._generated_dump()
        if self.loop_dump is None:
            self.loop_dump = dump_loop(self.fields, self.dump_value)
        return self.loop_dump(obj, exclude_none)

    def _generated_build(self) -> Build:
        specs = list(self.fields.values())
        env: dict[str, Any] = {
            "cls": self.cls,
            "names": self.names,
            "C": [f.check for f in specs],
            "D": [f.default for f in specs],
            "F": [f.factory for f in specs],
        }
        env.update({f"K{i}": f.fast for i, f in enumerate(specs)})
        fn: Build = generate(build_source(self.cls.extra == "allow", specs), env)
        return fn

    def _generated_dump(self) -> Dump:
        env = {"LEAVES": LEAVES, "dump_value": self.dump_value}
        fn: Dump = generate(dump_source(list(self.fields.values())), env)
        return fn


LEAVES = frozenset((str, int, bool, float, type(None)))


def build_loop(cls: Any, fields: dict[str, Any], names: frozenset[str]) -> Build:
    """The build function as a loop over the fields: what ``build_source`` writes out."""
    allow_extra = cls.extra == "allow"
    specs = [(f.name, f.check, f.default, f.factory, f.required, f.fast) for f in fields.values()]

    def build(data: dict[str, Any]) -> Any:
        values: dict[str, Any] = {}
        problems: list[Any] = []
        get = data.get
        for name, check, default, factory, required, fast in specs:
            v = get(name, MISSING)
            if v is MISSING:
                if factory is not None:
                    values[name] = factory()
                elif required:
                    problems.append(((name,), "missing", "Field required", data))
                else:
                    values[name] = default
            elif type(v) in fast or (type(v) is str and v in fast):
                values[name] = v
            else:
                try:
                    values[name] = check(v)
                except Invalid as e:
                    problems += under(name, e)
        extra: dict[str, Any] | None = {} if allow_extra else None
        if not data.keys() <= names:
            for k, v in data.items():
                if k in names:
                    continue
                if extra is not None:
                    extra[k] = v
                else:
                    problems.append(((k,), "extra_forbidden", "Extra inputs are not permitted", v))
        if problems:
            raise Invalid(problems)
        values["model_extra"] = extra
        obj = object.__new__(cls)
        object.__setattr__(obj, "__dict__", values)
        return obj

    return build


def dump_loop(fields: dict[str, Any], dump_value: Callable[..., Any]) -> Dump:
    """The dump function as a loop over the fields: what ``dump_source`` writes out."""
    names = list(fields)

    def dump(obj: Any, exclude_none: bool) -> dict[str, Any]:
        d = obj.__dict__
        out = {}
        for n in names:
            v = d[n]
            if v is not None or not exclude_none:
                out[n] = v if type(v) in LEAVES else dump_value(v, exclude_none)
        extra = d["model_extra"]
        if extra:
            for k, v in extra.items():
                if v is not None or not exclude_none:
                    out[k] = v if type(v) in LEAVES else dump_value(v, exclude_none)
        return out

    return dump


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
