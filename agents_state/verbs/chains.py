"""The chain commands' moves (designs 000-002; issue 35: out of ``cli/``): start a chain, apply
the sub-agents' responses, a timeout, retry or abort, the user's answer; a chain that completes
inside a workflow completes its task or phase there.  Each returns a ``ChainReport``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from agents_state.types import Frozen

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agents_state.app import App
    from agents_state.chains.ops import ChainStore
    from agents_state.chains.state import ChainOutcome, ChainState
    from agents_state.handoff.protocol import Handoff

__all__ = [
    "ChainReport",
    "answer_chain",
    "chain_answer",
    "chain_event",
    "chain_record",
    "chain_start",
    "chain_store",
]

_put = object.__setattr__


class ChainReport(Frozen):
    """A chain command's answer: the chain, what happened, lines only the text shows
    (``notes``), the command's own fields and (in ``body()``) the chain's next action."""

    __slots__ = ("chain", "message", "notes", "extra")  # noqa: RUF023 (body order)
    chain: ChainState
    message: str
    notes: tuple[str, ...]
    extra: Mapping[str, Any]

    def __init__(
        self,
        chain: ChainState,
        message: str,
        notes: tuple[str, ...] = (),
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        _put(self, "chain", chain)
        _put(self, "message", message)
        _put(self, "notes", notes)
        _put(self, "extra", {} if extra is None else extra)

    def body(self) -> dict[str, Any]:
        from agents_state.chains.action import chain_action

        c = self.chain
        return {
            "message": self.message,
            "chain": c.id,
            "status": c.status,
            "revision": c.revision,
            "sizing": c.sizing,
            **self.extra,
            "next": chain_action(c),
        }


def chain_store(app: App) -> ChainStore:
    """The project's chains: beside its workflow, in the same store."""
    from agents_state.chains.ops import ChainStore

    if app.store_url is not None:  # the PostgreSQL store (issue 17)
        from agents_state.chains.pg import PgChainStore

        return PgChainStore(app.server_store)
    return ChainStore(app.file_store)


def _settle(app: App, chains: ChainStore, out: ChainOutcome, **extra: Any) -> ChainReport:
    """A chain that completed inside a workflow completes its task or phase there."""
    from agents_state.chains.ops import record_on_workflow

    message = out.message
    recorded = record_on_workflow(chains, out.chain, app.store, app.policy)
    c = chains.load(out.chain.id) if recorded else out.chain
    if recorded:
        message += f"\nworkflow: {recorded}"
    return ChainReport(c, message, extra=extra)


def chain_start(
    app: App,
    chains: ChainStore,
    name: str,
    feature: str,
    wf_task: str | None = None,
    wf_phase: str | None = None,
    **options: Any,
) -> ChainReport:
    """Start chain ``name`` for ``feature`` (inside the workflow's ``wf_task`` or
    ``wf_phase`` when named; ``options``: ``chains.ops.start_chain``'s); the sizing, and why,
    as a note."""
    from agents_state.chains.ops import start_chain, workflow_link
    from agents_state.types import utcnow

    workflow = workflow_link(app.require, wf_task, wf_phase)
    out = start_chain(chains, name, feature, utcnow(), workflow=workflow, **options)
    c = out.chain
    reasons = c.sizing.get("reasons") or []
    notes: tuple[str, ...] = ()
    if reasons:
        sized = f"sizing: {c.sizing['designed']} sub-agent(s) ({c.sizing['level']}): "
        notes = (sized + "; ".join(reasons),)
    return ChainReport(c, out.message, notes)


def chain_record(
    app: App, chains: ChainStore, chain_id: str, answers: list[tuple[str, Handoff]]
) -> ChainReport:
    """Apply the sub-agents' validated responses (``answers``: where each came from, and it)
    to the chain's current step."""
    from agents_state.chains.answers import check_answers
    from agents_state.chains.ops import apply_event
    from agents_state.chains.state import ChainEvent
    from agents_state.handoff.aggregate import aggregate
    from agents_state.types import utcnow

    handoffs = [h for _shown, h in answers]
    h = handoffs[0] if len(handoffs) == 1 else aggregate(handoffs)
    event = ChainEvent("respond", handoff=h)
    out = apply_event(chains, chain_id, event, utcnow(), lambda now: check_answers(now, answers))
    return _settle(app, chains, out, handoff=h.to_json())


def chain_event(
    app: App, chain_id: str, event: Literal["timeout", "retry", "abort"]
) -> ChainReport:
    """A timeout of the current step's sub-agent, a retry of a blocked chain, or its end."""
    from agents_state.chains.ops import apply_event
    from agents_state.chains.state import ChainEvent
    from agents_state.types import utcnow

    chains = chain_store(app)
    return _settle(app, chains, apply_event(chains, chain_id, ChainEvent(event), utcnow()))


def chain_answer(app: App, chains: ChainStore, chain_id: str, text: str) -> ChainReport:
    """The user's answer to the questions of chain ``chain_id`` (it said CLARIFY)."""
    from agents_state.chains.ops import apply_event
    from agents_state.chains.state import ChainEvent
    from agents_state.types import utcnow

    out = apply_event(chains, chain_id, ChainEvent("answer", text=text), utcnow())
    return _settle(app, chains, out)


def answer_chain(app: App, text: str) -> ChainReport | None:
    """``resume --answer``: the chain that waits for an answer takes it (None when none waits,
    or when the workflow waits for one itself: its question comes first)."""
    from agents_state.chains.ops import answer_open_chain
    from agents_state.types import utcnow

    if app.store_url is not None:
        chains = chain_store(app)
        state = app.state()
    else:
        if not (app.file_store.dir / "chains").is_dir():
            return None
        state = app.state() if app.file_store.state_path.exists() else None
        chains = chain_store(app)
    waiting = state is not None and state.clarify is not None
    out = answer_open_chain(chains, text, utcnow(), waiting)
    return None if out is None else ChainReport(out.chain, out.message)
