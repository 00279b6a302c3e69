"""Issue 18: a record's fields are checked when its class is defined, at import, with the record
and the field named; forward references resolve when the record they name is defined."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agents_state
from agents_state.records.base import Record, RecordDefinitionError, pending_records


def _subclasses(cls: type) -> Iterator[type]:
    subs: list[type] = cls.__subclasses__()
    for sub in subs:
        yield sub
        yield from _subclasses(sub)


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Import a module written from source, as a module of the package would be."""
    monkeypatch.syspath_prepend(str(tmp_path))
    names: list[str] = []

    def load(source: str) -> Any:
        name = f"h18_records_{len(names)}"
        names.append(name)
        header = "from __future__ import annotations\n"
        header += "from typing import Annotated, Any, Literal\n"
        header += "from agents_state.records.base import After, Before, Record, field\n"
        (tmp_path / f"{name}.py").write_text(header + textwrap.dedent(source))
        return importlib.import_module(name)

    yield load
    for name in names:
        sys.modules.pop(name, None)


def _definition_error(load: Any, source: str) -> str:
    with pytest.raises(RecordDefinitionError) as info:
        load(source)
    return str(info.value)


def test_every_record_of_the_package_is_checked_at_import() -> None:
    """Importing every module checks every record; none waits for a name that never came."""
    for mod in pkgutil.walk_packages(agents_state.__path__, "agents_state."):
        importlib.import_module(mod.name)
    classes = [c for c in _subclasses(Record) if c.__module__.startswith("agents_state.")]
    assert len(classes) > 20
    assert pending_records() == []
    assert all(c.__dict__["_fields"] is not None for c in classes)


def test_an_unsupported_type_fails_when_the_class_is_defined(module: Any) -> None:
    assert _definition_error(
        module,
        """
        class Bad(Record):
            name: str = ""
            tags: set[str] = field(default_factory=set)
        """,
    ) == ("record Bad, field 'tags': records do not support the type set[str]")
    assert _definition_error(
        module,
        """
        class Floats(Record):
            ratio: float = 0.5
        """,
    ) == ("record Floats, field 'ratio': records do not support the type <class 'float'>")


def test_an_annotation_that_does_not_evaluate_fails(module: Any) -> None:
    assert _definition_error(
        module,
        """
        class Broken(Record):
            n: int + 1 = 0
        """,
    ) == (
        "record Broken, field 'n': the annotation 'int + 1' does not evaluate: "
        "unsupported operand type(s) for +: 'type' and 'int'"
    )
    assert "was never closed" in _definition_error(
        module,
        """
        class Quoted(Record):
            items: "list[str"
        """,
    )


@pytest.mark.parametrize(
    ("declaration", "problem"),
    [
        (
            "n: int = 'x'",
            "the default 'x' is invalid: Input should be a valid integer, "
            "unable to parse string as an integer",
        ),
        ("n: int = '5'", "the default '5' is not canonical (it reads as 5)"),
        (
            "n: int = field(default=11, ge=0, le=10)",
            "the default 11 is invalid: Input should be less than or equal to 10",
        ),
        ("s: Literal['a', 'b'] = 'c'", "the default 'c' is invalid: Input should be 'a' or 'b'"),
        (
            "s: list[str] = []",
            "the mutable default [] would be shared by every record; "
            "use field(default_factory=...)",
        ),
        (
            "s: str = field(default='', ge=1)",
            "bounds (ge, le) apply to an int, not to <class 'str'>",
        ),
        (
            "n: int | None = field(default=None, le=3)",
            "bounds (ge, le) apply to an int, not to int | None",
        ),
        ("n: int = field(default=1, default_factory=int)", "both a default and a default_factory"),
        ("n: int = field(default_factory=3)", "default_factory 3 is not callable"),
        ("model_dump: str = ''", "hides an attribute of Record; rename the field"),
    ],
)
def test_a_bad_field_fails_when_the_class_is_defined(
    module: Any, declaration: str, problem: str
) -> None:
    name = declaration.split(":")[0]
    message = _definition_error(module, f"class Bad(Record):\n    {declaration}\n")
    assert message == f"record Bad, field {name!r}: {problem}"


def test_defaults_are_checked_against_the_type_not_the_functions(module: Any) -> None:
    """A ``Before``/``After`` function may use a name the module defines after the record, so
    a default is checked against the type alone (and the functions run on real input)."""
    mod = module(
        """
        class Late(Record):
            level: Annotated[str, After(lambda v: check_level(v))] = "low"

        def check_level(v: str) -> str:
            if v not in ("low", "high"):
                raise ValueError(f"{v!r} is not a level")
            return v
        """
    )
    assert mod.Late.model_validate({}).level == "low"
    with pytest.raises(ValueError, match="'mid' is not a level"):
        mod.Late.model_validate({"level": "mid"})


def test_extra_must_be_allow_or_forbid(module: Any) -> None:
    assert (
        _definition_error(
            module,
            """
        class Loose(Record):
            extra = "ignore"
            n: int = 0
        """,
        )
        == "record Loose, field 'extra': is 'ignore'; use 'allow' or 'forbid'"
    )


def test_a_forward_reference_resolves_when_its_record_is_defined(module: Any) -> None:
    mod = module(
        """
        class Tree(Record):
            root: Node
            spare: list[Node] | None = None

        class Node(Record):
            name: str
            children: list[Node] = field(default_factory=list)
            parent: Tree | None = None
        """
    )
    assert pending_records() == []
    tree = mod.Tree.model_validate({"root": {"name": "a", "children": [{"name": "b"}]}})
    assert tree.root.children[0].name == "b"
    assert tree.model_dump(exclude_none=True) == {
        "root": {"name": "a", "children": [{"name": "b", "children": []}]}
    }


def test_a_forward_reference_checks_the_other_fields_at_definition(module: Any) -> None:
    assert (
        _definition_error(
            module,
            """
        class Early(Record):
            later: Later | None = None
            bad: frozenset[str] = frozenset()

        class Later(Record):
            n: int = 0
        """,
        )
        == "record Early, field 'bad': records do not support the type frozenset[str]"
    )


def test_a_name_never_defined_fails_on_first_use(module: Any) -> None:
    """The one failure that cannot be known at definition: the module may define the name
    later.  It fails on first use (and the suite's import test finds it in the package)."""
    mod = module(
        """
        class Orphan(Record):
            child: Missing | None = None
        """
    )
    assert pending_records() == [f"{mod.__name__}.Orphan"]
    with pytest.raises(RecordDefinitionError) as info:
        mod.Orphan.model_validate({})
    assert str(info.value) == (
        "record Orphan, field 'child': the annotation 'Missing | None' does not resolve: "
        "name 'Missing' is not defined"
    )
    assert pending_records() == [f"{mod.__name__}.Orphan"]  # still waiting: fails again


def test_generated_functions_stay_lazy() -> None:
    """What is left for first use cannot fail: the build and dump functions (see fields.py)."""
    from agents_state.config import GitCfg

    assert GitCfg.__dict__["_fields"] is not None
    GitCfg.model_validate({})
    assert GitCfg.__dict__["_spec"] is not None
