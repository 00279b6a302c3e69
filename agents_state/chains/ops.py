"""The imperative shell of chains: read and write ``.agents/chains/<id>.json`` durably.

A chain's state lives in its own file, beside the workflow's, so a chain runs with or without a
workflow (see docs/decisions.md).  Writes follow the store's discipline and share its lock (on
the ``.agents/`` folder): lock -> re-read -> apply -> validate -> temp file -> fsync -> replace
-> fsync the directory; then the current step's request files are written, still inside the lock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from agents_state.chains.action import CHAINS_DIR, new_chain, requests_for, slot_paths
from agents_state.chains.catalogue import ChainDef, get_chain, plan_steps, size_feature
from agents_state.chains.state import ChainEvent, ChainOutcome, ChainState, chain_apply
from agents_state.errors import NotFoundError, StateFileError, UsageError
from agents_state.records.base import RecordError
from agents_state.records.problems import field_problems
from agents_state.store.files import Store
from agents_state.store.fsops import check_dir, make_dir, read_regular
from agents_state.store.paths import safe_name

if TYPE_CHECKING:
    from agents_state.models import State
    from agents_state.policy import Policy
    from agents_state.store.api import WorkflowStore

__all__ = ["ChainStore", "answer_open_chain", "start_chain", "workflow_link"]

_ID = re.compile(r"^([a-z]+)-(\d+)$")


class ChainStore:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.dir = store.dir / "chains"

    def path(self, chain_id: str) -> Path:
        return self.dir / f"{safe_name(chain_id, 'chain')}.json"

    def load(self, chain_id: str) -> ChainState:
        shown = f"{CHAINS_DIR}/{chain_id}.json"
        try:
            data = read_regular(self.path(chain_id), shown)
        except FileNotFoundError:
            known = ", ".join(c.id for c in self.all()) or "none"
            raise NotFoundError(f"no chain {chain_id!r} (chains: {known})") from None
        return _decode(data, shown)

    def all(self) -> list[ChainState]:
        if not check_dir(self.dir, CHAINS_DIR):
            return []
        out = [
            _decode(read_regular(p, f"{CHAINS_DIR}/{p.name}"), f"{CHAINS_DIR}/{p.name}")
            for p in self.dir.glob("*.json")
            if _ID.match(p.stem)
        ]
        return sorted(out, key=lambda c: (c.updatedAt or "", c.revision, c.id))

    def latest(self, name: str | None = None) -> ChainState:
        """The most recently updated chain still in progress (of ``name``), else the latest."""
        chains = [c for c in self.all() if name is None or c.name == name]
        if not chains:
            raise NotFoundError(
                "no chain " + (f"{name!r} " if name else "") + "in this "
                'directory; start one with: agents-state chain start code "<f>"'
            )
        active = [c for c in chains if c.status not in ("completed", "aborted")]
        return (active or chains)[-1]

    def commit(
        self, chain_id: str | None, mutate: Callable[[ChainState | None, list[str]], ChainOutcome]
    ) -> ChainOutcome:
        """Run ``mutate(current, existing ids)`` under the lock and persist the new chain."""
        self.store.ensure_dirs()
        make_dir(self.dir, CHAINS_DIR)
        with self.store.locked():
            current = self.load(chain_id) if chain_id else None
            ids = [p.stem for p in self.dir.glob("*.json")]
            out = mutate(current, ids)
            if not out.changed:
                return out
            chain = ChainState.model_validate(out.chain.model_dump())  # validate the result
            requests = requests_for(chain)
            shown = f"{CHAINS_DIR}/{chain.id}.json"
            self.store.write_file(self.path(chain.id), _encode(chain), shown)
            self._write_requests(chain, requests)
            self.store.ensure_ignored()
        return out

    def _write_requests(self, chain: ChainState, requests: list[dict[str, Any]]) -> None:
        step = chain.step
        if step is None or not requests:
            return
        folder = self.dir / chain.id
        make_dir(folder, f"{CHAINS_DIR}/{chain.id}")
        for (_i, req_path, _resp), request in zip(slot_paths(chain, step), requests, strict=True):
            data = orjson.dumps(request, option=orjson.OPT_INDENT_2) + b"\n"
            self.store.write_file(self.store.root / req_path, data, req_path)


def _encode(chain: ChainState) -> bytes:
    return (
        orjson.dumps(chain.model_dump(mode="json", exclude_none=True), option=orjson.OPT_INDENT_2)
        + b"\n"
    )


def _decode(data: bytes, shown: str) -> ChainState:
    try:
        return ChainState.model_validate(orjson.loads(data))
    except orjson.JSONDecodeError as e:
        raise StateFileError(shown, "", f"not valid JSON ({e})") from None
    except RecordError as e:
        first = field_problems(e)[0]
        raise StateFileError(shown, first.path, first.msg) from None


# -- operations --------------------------------------------------------------------------------


def _next_id(name: str, ids: list[str]) -> str:
    numbers = [int(m.group(2)) for i in ids if (m := _ID.match(i)) and m.group(1) == name]
    return f"{name}-{max(numbers, default=0) + 1}"


def _prior_research(chains: ChainStore, defn: ChainDef, feature: str) -> str | None:
    for c in reversed(chains.all()):
        research = next((s for s in c.steps if s.id == "research"), None)
        if c.name == defn.name and c.feature == feature and research and research.summary:
            return research.summary
    return None


def start_chain(
    chains: ChainStore,
    name: str,
    feature: str,
    now: datetime,
    *,
    only: str | None = None,
    submode: str | None = None,
    sizes: tuple[int | None, int | None, int | None, str | None] = (None,) * 4,
    models: dict[str, str] | None = None,
    files: tuple[str, ...] = (),
    constraints: tuple[str, ...] = (),
    spec_path: str | None = None,
    workflow: dict[str, Any] | None = None,
    analyze: bool = False,
) -> ChainOutcome:
    defn = get_chain(name)
    if analyze and (not defn.sized or only):
        raise UsageError(
            "--analyze (the conditional branch) applies to the plan, code, ui, "
            "docs and eval chains, without --only"
        )
    if submode is not None and submode not in defn.submodes:
        raise UsageError(
            f"chain {name} has no sub-mode {submode!r}; use one of {', '.join(defn.submodes)}"
        )
    if only is not None and defn.submodes != ("research", "implement", "validate"):
        raise UsageError(f"--only applies to the plan, code, ui, docs and eval chains, not {name}")
    sizing, inputs = size_feature(feature, *sizes) if defn.sized else (None, {})
    steps, shape = plan_steps(
        defn, sizing, int(str(inputs.get("modules", 1))), only, submode, analyze
    )
    prior = _prior_research(chains, defn, feature) if only == "implement" else None

    def mutate(_current: ChainState | None, ids: list[str]) -> ChainOutcome:
        chain = new_chain(
            defn,
            _next_id(name, ids),
            feature,
            steps,
            now=now,
            sizing=sizing,
            inputs=inputs,
            shape=shape,
            only=only,
            submode=submode,
            models=models or {},
            files=files,
            constraints=constraints,
            spec_path=spec_path,
            prior_summary=prior,
            workflow=workflow,
        )
        if analyze:
            chain.pattern = "conditional"
        return ChainOutcome(chain, f"chain {chain.id} started: {shape}")

    return chains.commit(None, mutate)


def apply_event(
    chains: ChainStore,
    chain_id: str,
    event: ChainEvent,
    now: datetime,
    check: Callable[[ChainState], None] | None = None,
) -> ChainOutcome:
    """Apply ``event`` under the lock; ``check`` (if any) judges the chain read there first,
    unless the event repeats the last response (a no-op)."""

    def mutate(current: ChainState | None, _ids: list[str]) -> ChainOutcome:
        assert current is not None
        h = event.handoff
        if h is not None:  # a response, validated with pydantic already
            from agents_state.handoff.reduce import digest
        repeat = (
            h is not None
            and bool(current.history)
            and current.history[-1].get("digest") == digest(h)
        )
        if check is not None and not repeat:
            check(current)
        return chain_apply(current, event, now)

    return chains.commit(chain_id, mutate)


def record_on_workflow(
    chains: ChainStore, chain: ChainState, workflow: WorkflowStore, policy: Policy
) -> str | None:
    """A completed chain started inside a workflow completes its task or phase there (in
    ``workflow``, the store the chains live beside, under the project's ``policy``)."""
    link = chain.workflow
    if chain.status != "completed" or not link or link.get("recorded"):
        return None
    from agents_state.handoff.ops import record
    from agents_state.handoff.reduce import Handoff

    summary = next((s.summary for s in reversed(chain.steps) if s.summary), None)
    files = [f for s in chain.steps for f in s.files]
    h = Handoff(
        kind="writer",
        data={"chain": chain.id, "summary": summary, "files": files},
        task_id=link.get("task"),
        phase="write",
        decision="PROCEED",
        summary=summary or f"chain {chain.id} completed",
        status="complete",
    )
    out = record(
        workflow,
        policy,
        h,
        task=link.get("task"),
        phase=None if link.get("task") else link.get("phase"),
    )

    def mark(current: ChainState | None, _ids: list[str]) -> ChainOutcome:
        assert current is not None
        c = current.model_copy(deep=True)
        assert c.workflow is not None
        c.workflow["recorded"] = True
        return ChainOutcome(c, "recorded on the workflow")

    chains.commit(chain.id, mark)
    return str(out.message)


def answer_open_chain(
    chains: ChainStore, text: str, now: datetime, workflow_waiting: bool
) -> ChainOutcome | None:
    """``resume --answer``: the chain waiting for an answer takes it, unless none waits."""
    waiting = [c for c in chains.all() if c.status == "waiting"]
    if not waiting or workflow_waiting:
        return None  # the workflow's own question comes first; the chain has `chain answer`
    if len(waiting) > 1:
        raise UsageError(
            f"{len(waiting)} chains wait for an answer "
            f"({', '.join(c.id for c in waiting)}); answer one with: "
            "agents-state chain answer ID --answer TEXT"
        )
    return apply_event(chains, waiting[0].id, ChainEvent("answer", text=text), now)


def workflow_link(
    workflow: Callable[[], State], task: str | None, phase: str | None
) -> dict[str, str] | None:
    """What a chain started with ``--task`` or ``--phase`` completes in the workflow when it
    completes (``record_on_workflow``); ``workflow`` reads the state, only when one is named."""
    if task is None and phase is None:
        return None
    from agents_state.engine.phases import check_phase_id
    from agents_state.workflow import TASK_PHASE

    state = workflow()
    if task is not None:
        tasks = state.phase(TASK_PHASE).tasks or {}
        if task not in tasks:
            raise NotFoundError(
                f"no task '{task}' in phase {TASK_PHASE}"
                + (f"; tasks are {', '.join(tasks)}" if tasks else "")
            )
        return {"phase": TASK_PHASE, "task": task}
    assert phase is not None
    return {"phase": check_phase_id(phase)}
