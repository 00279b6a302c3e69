"""A structural check of the Mermaid flowchart subset that ``agents_state.views.graph`` emits.

Used when the official parser (``tests/views/mermaid/``, the ``mermaid`` npm package run under
node with jsdom) is not installed.  It accepts only the statements the generator writes, each in
its exact form, and checks what makes real Mermaid reject or misread a flowchart: an unknown
statement, a raw quote or a stray ``#`` in a label, unbalanced ``subgraph`` / ``end``, a
reserved word or a duplicate as an id, an edge or ``class`` to an undefined id, a class style
that is used but never defined.
"""

from __future__ import annotations

import re

__all__ = ["check_flowchart"]

_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_LABEL = r'"([^"\n]*)"'
_RESERVED = {
    "end",
    "subgraph",
    "graph",
    "flowchart",
    "style",
    "class",
    "classDef",
    "click",
    "linkStyle",
    "direction",
    "call",
    "href",
}
_PATTERNS = {
    "subgraph": re.compile(rf"^  subgraph ({_ID})\[{_LABEL}\]$"),
    "end": re.compile(r"^  end$"),
    "direction": re.compile(r"^    direction (TB|TD|BT|RL|LR)$"),
    "node": re.compile(rf"^ {{2,4}}({_ID})\[{_LABEL}\]:::({_ID})$"),
    "edge": re.compile(rf"^  ({_ID}) (-->|-\.->) ({_ID})$"),
    "class": re.compile(rf"^  class ({_ID}) ({_ID})$"),
    "classDef": re.compile(rf"^  classDef ({_ID}) ([a-z-]+:[^,\s;]+(,[a-z-]+:[^,;]+)*)$"),
}
_ENTITY = re.compile(r"#(\d+|[a-z]+);")


def _label_ok(label: str) -> bool:
    return "#" not in _ENTITY.sub("", label) and "`" not in label and "<" not in label


def check_flowchart(text: str) -> list[str]:
    """Problems found (empty when the diagram is well formed)."""
    lines = text.rstrip("\n").split("\n")
    if not lines or lines[0] != "flowchart TD":
        return ["the first line must be 'flowchart TD'"]
    problems: list[str] = []
    ids: set[str] = set()
    used: list[tuple[int, str]] = []
    classes_used: set[str] = set()
    classes_defined: set[str] = set()
    depth = 0
    for n, line in enumerate(lines[1:], 2):
        kind, m = next(((k, m) for k, p in _PATTERNS.items() if (m := p.match(line))), (None, None))
        if kind is None or m is None:
            problems.append(f"line {n}: not a statement the generator writes: {line!r}")
            continue
        if kind in ("subgraph", "node"):
            new_id = m.group(1)
            if new_id in _RESERVED or new_id in ids:
                problems.append(f"line {n}: reserved or duplicate id {new_id!r}")
            ids.add(new_id)
            if not _label_ok(m.group(2)):
                problems.append(f"line {n}: unescaped character in label {m.group(2)!r}")
            if kind == "node":
                classes_used.add(m.group(3))
            depth += kind == "subgraph"
        elif kind == "end":
            depth -= 1
            if depth < 0:
                problems.append(f"line {n}: 'end' without 'subgraph'")
        elif kind == "edge":
            used += [(n, m.group(1)), (n, m.group(3))]
        elif kind == "class":
            used.append((n, m.group(1)))
            classes_used.add(m.group(2))
        elif kind == "classDef":
            classes_defined.add(m.group(1))
    if depth > 0:
        problems.append(f"{depth} subgraph(s) without 'end'")
    problems += [f"line {n}: undefined id {i!r}" for n, i in used if i not in ids]
    problems += [
        f"class {c!r} used but not defined" for c in sorted(classes_used - classes_defined)
    ]
    return problems
