"""``phase complete --from-answers`` (issue 34, item 2): the artifact, drafted from the answers the
engine recorded when the model wrote none."""

from __future__ import annotations

import os

from agents_state.app import App

__all__ = ["drafted"]


def drafted(app: App, phase_id: str, artifact: str) -> bytes | None:
    """None when the file exists (the model wrote or edited it: it is the artifact); else the
    draft of the phase's recorded answers, refused while an agent of its fan-out has not
    answered."""
    from agents_state.engine.draft import draft_artifact
    from agents_state.engine.fanout import recorded
    from agents_state.errors import NotFoundError, TransitionNotAllowedError
    from agents_state.workflow import get_phase

    path = artifact if os.path.isabs(artifact) else os.path.join(app.root_dir, artifact)
    if os.path.lexists(path):
        return None
    state = app.state()
    if state is None:
        raise NotFoundError('no active workflow; start one: agents-state dispatch "<task>"')
    action = app.next_action(state, native=True, advice=False)
    left = (action.get("workflow") or {}).get("args", {}).get("agents") or []
    answers = recorded(state, phase_id)
    if (action.get("phase") == phase_id and left) or not answers:
        keys = ", ".join(str(a.get("key")) for a in left) or "all"
        raise TransitionNotAllowedError(
            f"phase {phase_id}",
            f"waiting for the answers of its agents ({keys})",
            "be completed from its answers",
            hint="run agents-state next: its Workflow call runs the agents that have not answered",
        )
    spec = get_phase(phase_id)
    return draft_artifact(
        phase_id, spec.name, state.task, answers, as_json=spec.artifact.endswith(".json")
    )
