"""Task definitions and dependency waves for phase 2.1 (pure).

``parse_tasks`` validates a task file's decoded JSON and reports every problem at once;
``plan_waves`` computes topological levels (``graphlib``, linear in tasks plus dependencies) and
splits a level wider than ``max_parallel`` into consecutive waves.
"""

from __future__ import annotations

import graphlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agents_state.errors import InvalidInputError
from agents_state.safetext import LIMITS
from agents_state.strictkeys import check_keys

__all__ = [
    "ID_RE",
    "TaskDef",
    "files_overlap",
    "find_cycle",
    "late_dependencies",
    "parse_tasks",
    "plan_waves",
    "plan_waves_apart",
]

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_COMPLEXITY = ("easy", "medium", "hard")
TASK_KEYS = ("id", "title", "description", "dependencies", "complexity", "files")
_SYNONYMS = {
    k: "dependencies"
    for k in (
        "requires",
        "required",
        "blockedby",
        "blocked_by",
        "blockedBy",
        "depends_on",
        "dependsOn",
        "dependson",
        "depends",
        "deps",
        "after",
        "needs",
        "prerequisites",
        "dependency",
    )
}
_SYNONYMS.update(
    {
        "name": "title",
        "summary": "title",
        "details": "description",
        "desc": "description",
        "difficulty": "complexity",
        "paths": "files",
        "file": "files",
        "task_id": "id",
        "taskId": "id",
    }
)


@dataclass(frozen=True)
class TaskDef:
    id: str
    title: str = ""
    description: str = ""
    dependencies: tuple[str, ...] = ()
    complexity: str = "medium"
    files: tuple[str, ...] = field(default_factory=tuple)

    def as_state(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "description": self.description,
            "dependencies": list(self.dependencies),
            "complexity": self.complexity,
            "files": list(self.files),
        }


def _str_list(value: Any, where: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where}: expected a list of strings")
        return ()
    return tuple(value)


def _one_task(i: int, raw: Any, problems: list[str]) -> TaskDef | None:
    where = f"tasks[{i}]"
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected an object with an id")
        return None
    unknown = next((k for k in raw if k not in TASK_KEYS), None)
    if unknown is not None:
        from agents_state.strictkeys import suggest

        problems.append(
            f"{where}.{unknown}: unknown key; {suggest(str(unknown), TASK_KEYS, _SYNONYMS)}"
        )
    tid = raw.get("id")
    if isinstance(tid, int) and not isinstance(tid, bool):
        tid = str(tid)
    if not isinstance(tid, str) or not ID_RE.match(tid):
        problems.append(
            f"{where}.id: {tid!r} is not a valid id (letters, digits, '.', '_', '-'; at most 128)"
        )
        return None
    deps = _str_list(raw.get("dependencies"), f"{where}.dependencies", problems)
    complexity = raw.get("complexity", "medium")
    if isinstance(complexity, str):
        complexity = complexity.strip().lower()
    if complexity not in _COMPLEXITY:
        problems.append(f"{where}.complexity: {complexity!r} is not one of easy, medium, hard")
        complexity = "medium"
    title, desc = raw.get("title", ""), raw.get("description", "")
    for name, val in (("title", title), ("description", desc)):
        if not isinstance(val, str):
            problems.append(f"{where}.{name}: expected a string")
        elif len(val) > LIMITS[name]:
            problems.append(f"{where}.{name}: {len(val)} characters; the limit is {LIMITS[name]}")
    return TaskDef(
        tid,
        title if isinstance(title, str) else "",
        desc if isinstance(desc, str) else "",
        deps,
        complexity,
        _str_list(raw.get("files"), f"{where}.files", problems),
    )


def parse_tasks(data: Any, file: str) -> list[TaskDef]:
    """Validate decoded task JSON (``{"tasks": [...]}`` or a bare list); all problems at once."""
    if isinstance(data, dict):
        check_keys(data, ("tasks",), file, "", {"task": "tasks", "items": "tasks"})
    raw = data.get("tasks") if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise InvalidInputError(
            file,
            "tasks",
            "expected a list of task objects "
            '(write {"tasks": [{"id": "task-1", "dependencies": []}]})',
        )
    if not raw:
        raise InvalidInputError(file, "tasks", "the task list is empty; define at least one task")
    problems: list[str] = []
    tasks = [t for i, r in enumerate(raw) if (t := _one_task(i, r, problems)) is not None]
    seen: dict[str, int] = {}
    for t in tasks:
        seen[t.id] = seen.get(t.id, 0) + 1
    dupes = sorted(k for k, n in seen.items() if n > 1)
    if dupes:
        problems.append(f"duplicate ids: {', '.join(dupes)}")
    unknown = sorted({f"{t.id} -> {d}" for t in tasks for d in t.dependencies if d not in seen})
    if unknown:
        problems.append(f"unknown dependencies: {', '.join(unknown)}")
    selfdeps = sorted(t.id for t in tasks if t.id in t.dependencies)
    if selfdeps:
        problems.append(f"tasks that depend on themselves: {', '.join(selfdeps)}")
    if not problems:
        cycle = find_cycle(tasks)
        if cycle:
            problems.append(f"dependency cycle: {' -> '.join(cycle)}")
    if problems:
        raise InvalidInputError(file, "tasks", "; ".join(problems))
    return tasks


def _sorter(tasks: list[TaskDef]) -> graphlib.TopologicalSorter[str]:
    return graphlib.TopologicalSorter({t.id: t.dependencies for t in tasks})


def find_cycle(tasks: list[TaskDef]) -> list[str]:
    """One dependency cycle as ``[a, b, ..., a]`` (each depends on the next), or ``[]``."""
    try:
        _sorter(tasks).prepare()
    except graphlib.CycleError as e:
        return list(reversed(e.args[1]))  # graphlib lists each node before its dependent
    return []


def _levels(tasks: list[TaskDef]) -> dict[str, int]:
    """Each task's topological level: 0 without dependencies, else one more than the deepest of
    them (graphlib's ready batches, taken whole, are exactly these levels)."""
    sorter = _sorter(tasks)
    sorter.prepare()
    level: dict[str, int] = {}
    depth = 0
    while sorter.is_active():
        ready = sorter.get_ready()
        level.update(dict.fromkeys(ready, depth))
        sorter.done(*ready)
        depth += 1
    return level


def plan_waves(tasks: list[TaskDef], max_parallel: int) -> list[list[str]]:
    """Topological levels in file order, each split into waves of at most ``max_parallel``."""
    level = _levels(tasks)  # graphlib.CycleError for a cyclic set: parse_tasks refuses those
    by_level: dict[int, list[str]] = {}
    for t in tasks:
        by_level.setdefault(level[t.id], []).append(t.id)
    size = max(1, max_parallel)
    waves: list[list[str]] = []
    for lv in sorted(by_level):
        ids = by_level[lv]
        waves.extend(ids[i : i + size] for i in range(0, len(ids), size))
    return waves


def late_dependencies(
    deps: Iterable[tuple[str, Iterable[str]]], waves: Iterable[Iterable[str]]
) -> tuple[str, list[str]] | None:
    """The first task whose dependencies the waves do not run in an earlier wave, with them.

    A task in no wave counts as running last, a dependency in no wave as never running."""
    wave_of = {t: i for i, w in enumerate(waves) for t in w}
    end = len(wave_of) + 1
    for tid, ds in deps:
        late = [d for d in ds if wave_of.get(d, end) >= wave_of.get(tid, end - 1)]
        if late:
            return tid, late
    return None


def _prefix(pattern: str) -> str:
    cut = next((i for i, c in enumerate(pattern) if c in "*?[{\\"), len(pattern))
    return pattern[:cut]


def files_overlap(a: str, b: str) -> bool:
    """Could two ``files`` entries (paths or globs) name the same file?  Errs on yes."""
    from agents_state.globs import glob_regex, has_glob

    a, b = a.strip().lstrip("./") or a, b.strip().lstrip("./") or b
    if a == b or a.startswith(b.rstrip("/") + "/") or b.startswith(a.rstrip("/") + "/"):
        return True
    ga, gb = has_glob(a), has_glob(b)
    if ga and not gb:
        return re.fullmatch(glob_regex(a), b) is not None
    if gb and not ga:
        return re.fullmatch(glob_regex(b), a) is not None
    if ga and gb:  # two globs: overlap unless their literal starts part ways
        pa, pb = _prefix(a), _prefix(b)
        return pa.startswith(pb) or pb.startswith(pa)
    return False


def plan_waves_apart(tasks: list[TaskDef], max_parallel: int) -> list[list[str]]:
    """``plan_waves`` for tasks that share one working tree (no isolation, issue 22): within a
    level, each task goes to the first wave with room whose tasks name no overlapping file."""
    level = _levels(tasks)  # graphlib.CycleError for a cyclic set: parse_tasks refuses those
    size = max(1, max_parallel)
    by_level: dict[int, list[TaskDef]] = {}
    for t in tasks:
        by_level.setdefault(level[t.id], []).append(t)
    waves: list[list[str]] = []
    for lv in sorted(by_level):
        mine: list[tuple[list[str], list[str]]] = []  # (ids, files) per wave of this level
        for t in by_level[lv]:
            home = next(
                (
                    w
                    for w in mine
                    if len(w[0]) < size
                    and not any(files_overlap(f, g) for f in t.files for g in w[1])
                ),
                None,
            )
            if home is None:
                home = ([], [])
                mine.append(home)
            home[0].append(t.id)
            home[1].extend(t.files)
        waves.extend(w[0] for w in mine)
    return waves
