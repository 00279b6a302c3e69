"""Starting a workflow (``dispatch TASK``): the saga that archives the old one (issue 35: out of
``App``).

``dispatch --replace`` copies the old workflow to ``archive/`` before the new state is written
and empties ``phases/`` only after it is durable: a failure at any step leaves the old workflow
whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents_state.app import App
    from agents_state.engine.context import Outcome
    from agents_state.models import State
    from agents_state.store.archive import Archive

__all__ = ["start_workflow"]


def start_workflow(app: App, task: str, replace: bool = False) -> Outcome:
    """A new workflow for ``task`` (checked by the caller); an active one is refused unless
    ``replace``, which archives it."""
    from agents_state.engine import events as ev
    from agents_state.engine.dispatchplan import dispatch_sizing
    from agents_state.engine.phases import Outcome, new_state
    from agents_state.errors import TransitionNotAllowedError
    from agents_state.store.archive import Archive
    from agents_state.types import utcnow
    from agents_state.workflow import PHASES

    cfg = app.config
    skipped = tuple(p.id for p in PHASES if not cfg.enabled(p.stage))
    counts = {pid: s.count for pid, s in dispatch_sizing(cfg, task).items()}
    event = ev.Start(task=task, agent_counts=counts, skipped=skipped)
    archive: list[Archive] = []

    def mutate(state: State | None) -> Outcome:
        if state is not None and state.active and not replace:
            raise TransitionNotAllowedError(
                "workflow",
                f"active ({state.status}, phase {state.currentPhase})",
                "start another",
                hint=f"task: {state.task!r}; continue it with: agents-state next, or "
                'archive it and start anew with: agents-state dispatch --replace "<task>"',
            )
        archived = None
        if state is not None and app.store_url is not None:
            archived = app.server_store.archive(state)
        elif state is not None:
            archive.append(Archive.copy(app.file_store, state))
        new = new_state(event, utcnow())
        new.revision = (state.revision + 1) if state is not None else 1
        record = {"rev": new.revision, "at": new.startedAt, **event.record()}
        shown = archive[0].shown if archive else archived
        if shown:
            record["archived"] = shown
        msg = f"workflow started: {task}" + (
            f" (previous one archived to {shown})" if shown else ""
        )
        return Outcome(new, msg, True, record)

    try:
        out: Outcome = app.store.commit(mutate)
    except BaseException:
        for a in archive:  # the old workflow was never touched: drop its copy
            a.discard()
        raise
    for a in archive:  # the new state is durable: the old artifacts leave phases/
        a.clear_phases()
    return out
