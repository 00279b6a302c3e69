"""Task definitions and dependency waves for phase 2.1 (pure).

``parse_tasks`` validates a task file's decoded JSON and reports every problem at once;
``plan_waves`` computes topological levels (Kahn, linear in tasks plus dependencies) and splits a
level wider than ``max_parallel`` into consecutive waves.
"""

from __future__ import annotations

import re
from collections import deque
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


def _levels(tasks: list[TaskDef]) -> tuple[dict[str, int], list[str]]:
    """Kahn's algorithm by levels; returns each task's level and the tasks left in cycles."""
    indegree = {t.id: len(set(t.dependencies)) for t in tasks}
    dependents: dict[str, list[str]] = {t.id: [] for t in tasks}
    for t in tasks:
        for d in set(t.dependencies):
            dependents[d].append(t.id)
    level = {tid: 0 for tid, n in indegree.items() if n == 0}
    queue = deque(level)
    while queue:
        tid = queue.popleft()
        for nxt in dependents[tid]:
            level[nxt] = max(level.get(nxt, 0), level[tid] + 1)
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                queue.append(nxt)
    return level, [t.id for t in tasks if indegree[t.id] > 0]


def find_cycle(tasks: list[TaskDef]) -> list[str]:
    """One dependency cycle as ``[a, b, ..., a]``, or ``[]``."""
    _, left = _levels(tasks)
    if not left:
        return []
    deps = {t.id: [d for d in t.dependencies if d in left] for t in tasks if t.id in left}
    # every node left has an unresolved dependency also left: walk until a node repeats
    path: list[str] = []
    index: dict[str, int] = {}
    node = left[0]
    while node not in index:
        index[node] = len(path)
        path.append(node)
        node = deps[node][0]
    return [*path[index[node] :], node]  # each depends on the next


def plan_waves(tasks: list[TaskDef], max_parallel: int) -> list[list[str]]:
    """Topological levels in file order, each split into waves of at most ``max_parallel``."""
    level, left = _levels(tasks)
    if left:
        raise ValueError("plan_waves needs an acyclic task set")
    by_level: dict[int, list[str]] = {}
    for t in tasks:
        by_level.setdefault(level[t.id], []).append(t.id)
    size = max(1, max_parallel)
    waves: list[list[str]] = []
    for lv in sorted(by_level):
        ids = by_level[lv]
        waves.extend(ids[i : i + size] for i in range(0, len(ids), size))
    return waves


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
    level, left = _levels(tasks)
    if left:
        raise ValueError("plan_waves_apart needs an acyclic task set")
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
