"""Decode and encode ``state.json``: lenient on read, strict on write, one-line errors.

Reading accepts what people and models write (see ``models``), fills stages and phases that a
file leaves out (design 004's own example omits most of them) and refuses what cannot be a v2
state: bad JSON, a future or older ``version``, unknown stage or phase ids.  Writing validates
the whole state again and checks the invariants the engine relies on.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import orjson

from agents_state.errors import StateFileError
from agents_state.jsonio import strip_bom
from agents_state.models import SCHEMA_VERSION, PhaseState, StageState, State, TaskState
from agents_state.records.base import RecordError
from agents_state.workflow import PHASE_IDS, STAGES, get_phase, phases_of

__all__ = ["decode_state", "encode_state"]

KNOWN_VERSIONS = (1, 2)

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _gc_paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run with the cyclic garbage collector paused: decoding 10,000 tasks makes some 50,000
    objects, and the collector's passes over them cost about 40% of the time.  A state is a tree
    (no cycles), so nothing is left for the collector to find.  The objects made are then frozen
    (``gc.freeze``): later passes, set off by the next allocations (an update's apply and encode),
    skip them instead of walking 100,000 tasks again; reference counting still frees them."""

    @functools.wraps(fn)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was_enabled:
                gc.freeze()  # nor later: what is made here is a tree, freed by reference counts
                gc.enable()

    return paused


def _version(raw: dict[str, Any], shown: str) -> int:
    v = raw.get("version", SCHEMA_VERSION)
    try:
        version = (
            int(float(v)) if isinstance(v, str | int | float) and not isinstance(v, bool) else -1
        )
    except ValueError:
        version = -1
    if version == 1:
        raise StateFileError(
            shown, "version", "is 1 (the original plugin's layout); run: agents-state migrate"
        )
    if version != SCHEMA_VERSION:
        raise StateFileError(
            shown,
            "version",
            f"{v!r} is not understood; this agents-state "
            f"reads versions {', '.join(map(str, KNOWN_VERSIONS))} "
            "(upgrade agents-state for newer files)",
        )
    return version


def _check_ids(raw: dict[str, Any], shown: str) -> None:
    stages = raw.get("stages")
    if isinstance(stages, dict):
        unknown = [s for s in stages if str(s).upper() not in STAGES]
        if unknown:
            raise StateFileError(
                shown, f"stages.{unknown[0]}", "unknown stage; stages are " + ", ".join(STAGES)
            )
        for name, stage in stages.items():
            phases = stage.get("phases") if isinstance(stage, dict) else None
            if isinstance(phases, dict):
                own = {p.id for p in phases_of(str(name).upper())}
                bad = [p for p in phases if p not in own]
                if bad:
                    raise StateFileError(
                        shown,
                        f"stages.{name}.phases.{bad[0]}",
                        f"not a phase of {name}; its phases are " + ", ".join(sorted(own)),
                    )
    phase = raw.get("currentPhase")
    if phase is not None and str(phase) not in PHASE_IDS:
        raise StateFileError(
            shown, "currentPhase", f"{phase!r} is not a phase; phases are " + ", ".join(PHASE_IDS)
        )


def _fill(state: State) -> None:
    """Add the stages and phases a file leaves out; a completed stage's phases are completed."""
    for name in STAGES:
        stage = state.stages.setdefault(name, StageState())
        for p in phases_of(name):
            if p.id not in stage.phases:
                status = stage.status if stage.status in ("completed", "skipped") else "pending"
                stage.phases[p.id] = PhaseState(status=status)
    if state.currentPhase is None and state.status != "completed":
        from agents_state.workflow import PHASES

        first = next(
            (p for p in PHASES if state.phase(p.id).status not in ("completed", "skipped")), None
        )
        state.currentPhase = first.id if first else None
    if state.currentPhase and not state.currentStage:
        state.currentStage = get_phase(state.currentPhase).stage


@_gc_paused
def decode_state(data: bytes, shown: str, for_update: bool = False, trusted: bool = False) -> State:
    """The state in ``data``; ``trusted``: ``data`` is a state this engine validated and wrote
    (``store.stamp``), built without checking it again (``records.trusted``)."""
    _DELTA.clear()
    if trusted:
        return _decode_trusted(data, for_update)
    if not data.strip():
        raise StateFileError(
            shown, "", "is empty (a write was interrupted?); run: agents-state doctor --repair"
        )
    try:
        raw = orjson.loads(strip_bom(data))
    except orjson.JSONDecodeError as e:
        raise StateFileError(shown, "", f"not valid JSON ({e}); run: agents-state doctor") from None
    if not isinstance(raw, dict):
        raise StateFileError(shown, "", f"expected a JSON object, got {type(raw).__name__}")
    try:
        canonical = orjson.dumps(raw, option=orjson.OPT_INDENT_2) + b"\n"
    except orjson.JSONEncodeError as e:  # what could be read but never written back
        raise StateFileError(
            shown, "", f"cannot be written back: {_unwritable(e)}; run: agents-state doctor"
        ) from None
    if canonical != data:
        _strict_recheck(data, shown)  # written by hand: refuse duplicate keys, as for inputs
    _version(raw, shown)
    _check_ids(raw, shown)
    raw["version"] = SCHEMA_VERSION
    try:
        state = State.model_validate(raw)
    except RecordError as e:
        from agents_state.records.problems import summary  # errors only: off the hot path

        field, msg = summary(e)
        raise StateFileError(shown, field, msg.split(": ", 1)[1] if ": " in msg else msg) from None
    _fill(state)
    _READ_TASKS.clear()
    _READ_ORDER.clear()
    if for_update:
        _remember_tasks(state, state.to_json_dict())
    return state


_DEFERRED = frozenset({TaskState})  # built on first use in an update (``records.trusted``)


def _decode_trusted(data: bytes, for_update: bool) -> State:
    from agents_state.records.trusted import build_trusted

    raw = orjson.loads(data)
    # an update touches the tasks of one wave; the others are written back as read
    state: State = build_trusted(State, raw, _DEFERRED if for_update else frozenset())
    _fill(state)
    _READ_TASKS.clear()
    _READ_ORDER.clear()
    if for_update:
        _remember_tasks(state, raw)  # the file is the state's own dump
    return state


# Tasks of the state an update read: id -> (the task, its JSON dump, where it was: stage, phase,
# task id).  The engine never changes a task in place (it copies it first,
# ``engine_tasks._own``), so a task of the new state that is still this very object, at the
# same place, is unchanged since it was read and validated: ``encode_state`` writes the dump
# made on read instead of dumping and validating it again.  At 100,000 tasks that halves the
# cost of an update (docs/performance.md).  Read-only commands skip the dump.
# ``_READ_ORDER``: the task ids of each phase as read, in their order, for the backup's journal
# (``_delta``); its ``("", "")`` entry marks that the last decode was an update's read.
_READ_TASKS: dict[int, tuple[object, dict[str, Any], tuple[str, str, str]]] = {}
_READ_ORDER: dict[tuple[str, str], list[str]] = {}
# what the last ``encode_state`` changed, for the backup's journal (``take_delta``)
_DELTA: list[dict[str, Any]] = []
# the JSON tree the last ``encode_state`` wrote, for the hooks' view (``take_written``)
_WRITTEN: list[dict[str, Any]] = []


def _remember_tasks(state: State, dumped: dict[str, Any]) -> None:
    _READ_ORDER[("", "")] = []  # an update's read, with or without tasks
    for name, stage in state.stages.items():
        for pid, phase in stage.phases.items():
            if phase.tasks:
                docs = dumped["stages"][name]["phases"][pid]["tasks"]
                for tid, task in phase.tasks.items():
                    _READ_TASKS[id(task)] = (task, docs[tid], (name, pid, tid))
                _READ_ORDER[(name, pid)] = list(phase.tasks)


def take_delta() -> dict[str, Any] | None:
    """What the last ``encode_state`` wrote, less the tasks it wrote back as read: the state's
    JSON with those phases' ``tasks`` null, and ``patch``: for each such phase (its task
    ids and their order unchanged) the tasks that changed.  ``None`` when it was not an update
    of a state read for it.  Once: the next call gives ``None``."""
    found = _DELTA[0] if _DELTA else None
    _DELTA.clear()
    return found


def take_written() -> dict[str, Any] | None:
    """The JSON tree (plain dicts) the last ``encode_state`` serialised, for the hooks' view
    (``store.hookview.facts``: one pass over the tasks' dicts, none decoded).  Once."""
    found = _WRITTEN[0] if _WRITTEN else None
    _WRITTEN.clear()
    return found


def _unwritable(e: Exception) -> str:
    text = str(e)
    if "ecursion" in text:
        return "it is nested too deeply (over 254 levels; a state needs fewer than 10)"
    if "64-bit" in text:
        return "an integer is out of range (beyond 64 bits)"
    return text


def _strict_recheck(data: bytes, shown: str) -> None:
    """Files agents-state wrote are canonical; any other is decoded once more, strictly."""
    from agents_state.errors import InvalidInputError
    from agents_state.jsonio import loads_strict

    try:
        loads_strict(data, shown)
    except InvalidInputError as e:
        raise StateFileError(shown, e.field, e.problem) from None


def _invariants(state: State) -> list[str]:
    problems = []
    if state.currentPhase is not None and state.currentPhase not in PHASE_IDS:
        problems.append(f"currentPhase {state.currentPhase!r} is not a phase")
    if set(state.stages) != set(STAGES):
        problems.append("stages must be exactly " + ", ".join(STAGES))
    running = (
        [pid for pid in PHASE_IDS if state.phase(pid).status == "in_progress"]
        if not problems
        else []
    )
    if len(running) > 1:
        problems.append(f"more than one phase in progress: {', '.join(running)}")
    return problems


@_gc_paused
def encode_state(state: State, shown: str) -> bytes:
    """Validate strictly and serialise the validated object; a failure is never written.

    Strict: the state is validated and what is written is the dump of the validated object,
    which must equal the state's own dump.  A value the lenient reader would coerce (a
    ``revision`` of ``"7"``, a status ``"Done"``) is refused here, not normalised: only the
    engine writes states, and one that is not canonical is a bug to report, never to hide.
    """
    data, read = _dump_changed(state)
    try:
        validated = State.model_validate(data)
    except RecordError as e:
        from agents_state.records.problems import summary  # errors only: off the hot path

        field, msg = summary(e)
        raise StateFileError(shown, field, f"refusing to write an invalid state: {msg}") from None
    canonical = validated.to_json_dict()
    if canonical != data:
        field = _first_difference(data, canonical)
        raise StateFileError(
            shown,
            field,
            "refusing to write an invalid state: "
            f"{field}: {_at(data, field)!r} is not canonical "
            f"(expected {_at(canonical, field)!r})",
        )
    problems = _invariants(validated)
    if problems:
        raise StateFileError(
            shown, "", "refusing to write an invalid state: " + "; ".join(problems)
        )
    _DELTA.clear()
    _WRITTEN.clear()
    if _READ_ORDER:  # an update: what it changed, for the backup's journal
        _DELTA.append(_delta(canonical, read))
    _put_back_unchanged(canonical, read)
    _WRITTEN.append(canonical)
    return orjson.dumps(canonical, option=orjson.OPT_INDENT_2) + b"\n"


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """The dotted path of the first value that differs between two JSON trees."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}.{i}" if path else str(i))
    return path


def _at(tree: Any, path: str) -> Any:
    for part in path.split(".") if path else []:
        tree = (
            tree.get(part)
            if isinstance(tree, dict)
            else tree[int(part)]
            if isinstance(tree, list) and part.isdigit() and int(part) < len(tree)
            else None
        )
    return tree


# where the tasks of a phase are in a dump (stage, phase id) and each task's dump as read, or None
# for a task that changed: what ``_put_back_unchanged`` needs
_Read = list[tuple[str, str, dict[str, dict[str, Any] | None]]]


def _dump_changed(state: State) -> tuple[dict[str, Any], _Read]:
    """The JSON of ``state`` without the tasks unchanged since they were read (see
    ``_READ_TASKS``), and where those are; they are put back, as read and in their order, after
    validation.  One pass over the tasks finds both (issue 26)."""
    if not _READ_TASKS:
        return state.to_json_dict(), []
    seen = _READ_TASKS.get
    full: list[tuple[Any, dict[str, Any]]] = []
    read: _Read = []
    for name, stage in state.stages.items():
        for pid, phase in stage.phases.items():
            tasks = phase.tasks
            if tasks:
                docs: dict[str, dict[str, Any] | None] = {}
                changed = {}
                for tid, task in tasks.items():
                    was = seen(id(task))
                    if was is not None and was[0] is task and was[2] == (name, pid, tid):
                        docs[tid] = was[1]
                    else:
                        docs[tid] = None
                        changed[tid] = task
                full.append((phase, tasks))
                read.append((name, pid, docs))
                phase.tasks = changed
    try:
        return state.to_json_dict(), read
    finally:
        for phase, tasks in full:
            phase.tasks = tasks


def _delta(canonical: dict[str, Any], read: _Read) -> dict[str, Any]:
    """``take_delta``'s value; ``canonical`` still lacks the tasks written back as read."""
    patch = []
    stages = dict(canonical["stages"])
    for name, pid, docs in read:
        stage = stages[name] = dict(stages[name])
        phases = stage["phases"] = dict(stage["phases"])
        phase = phases[pid] = dict(phases[pid])
        changed = phase["tasks"]
        if _READ_ORDER.get((name, pid)) == list(docs):
            phase["tasks"] = None  # kept in its place: the replay puts the tasks there
            patch.append([name, pid, changed])
        else:  # tasks added, removed or moved: the phase's tasks are written whole
            phase["tasks"] = {t: changed[t] if d is None else d for t, d in docs.items()}
    return {"state": {**canonical, "stages": stages}, "patch": patch}


def _put_back_unchanged(data: dict[str, Any], read: _Read) -> None:
    for name, pid, docs in read:
        where = data["stages"][name]["phases"][pid]
        dumped = where["tasks"]
        where["tasks"] = {tid: dumped[tid] if doc is None else doc for tid, doc in docs.items()}
