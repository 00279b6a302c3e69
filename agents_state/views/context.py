"""What a freshly compacted conversation must read to continue: a few hundred tokens.

Besides where the workflow stands and the next action, ``context`` carries what earlier phases
decided and found (design 000 keeps the last three phases'): a short excerpt of each of the last
three finished phases' artifacts, the user's answers, skipped tasks and failing tests, and the
stage output files written at each stage boundary.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agents_state.models import State
from agents_state.safetext import escape

__all__ = ["excerpt", "load_excerpts", "recent_phases", "render_context"]

RECENT = 3
_LINE = 160


def recent_phases(state: State, n: int = RECENT) -> list[str]:
    """The last ``n`` finished phases, most recent last."""
    from agents_state.workflow import PHASES

    done = [
        (state.phase(p.id).completedAt or "", i, p.id)
        for i, p in enumerate(PHASES)
        if state.phase(p.id).status == "completed"
    ]
    return [pid for _, _, pid in sorted(done)[-n:]]


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LINE else text[: _LINE - 1] + "…"


def excerpt(phase_id: str, data: bytes) -> str:
    """One short line of what a phase's artifact decided or found."""
    from agents_state.workflow import get_phase

    spec = get_phase(phase_id)
    text = data.decode("utf-8", "replace")
    if spec.is_json:
        import json

        try:
            doc = json.loads(text)
        except ValueError:
            return "unreadable JSON"
        if isinstance(doc, dict) and isinstance(doc.get("issues"), list):
            issues = [i for i in doc["issues"] if isinstance(i, dict)]
            top = "; ".join(f"{i.get('severity')}: {i.get('description')}" for i in issues[:3])
            return _clip(f"{len(issues)} issue(s)" + (f": {top}" if top else ""))
        if isinstance(doc, dict) and isinstance(doc.get("commands"), list):
            failed = [
                c.get("name")
                for c in doc["commands"]
                if isinstance(c, dict) and c.get("exitCode") != 0
            ]
            return _clip("tests passed" if not failed else f"tests FAILED: {failed}")
        if isinstance(doc, dict) and isinstance(doc.get("tasks"), list):
            return f"{len(doc['tasks'])} task(s) defined"
        return _clip(text)
    lines = [ln.strip("# ").strip() for ln in text.splitlines() if ln.strip()]
    return _clip(" / ".join(lines[:3]))


def render_context(
    state: State, action: dict[str, object], excerpts: dict[str, str] | None = None
) -> str:
    from agents_state.views.outcomes import final_summary
    from agents_state.views.render import render_action, without_prompts
    from agents_state.workflow import get_phase

    done = [
        f"{pid}"
        for st in state.stages.values()
        for pid, p in st.phases.items()
        if p.status == "completed"
    ]
    lines = [
        "agents-state workflow (resume from here; do not edit .agents/state.json by hand)",
        f"task: {escape(state.task)}",
        f"status: {state.status}, stage {state.currentStage}, phase {state.currentPhase}, "
        f"revision {state.revision}",
        f"phases done: {', '.join(done) or 'none'}",
        f"so far: {escape(final_summary(state))}",
    ]
    if state.compaction.history:
        lines.append(f"compacted after: {', '.join(state.compaction.history)}")
    outputs = [v for k, v in state.files.items() if k.endswith("Output")]
    if outputs:
        lines.append(f"stage outputs: {', '.join(outputs)}")
    for c in [c for c in state.clarifications if c.answer][-5:]:
        lines.append(f"user answered ({escape(' | '.join(c.questions))}): {escape(c.answer)}")
    recent = recent_phases(state)
    if recent:
        lines.append("recent phases (decisions and findings):")
        for pid in recent:
            note = (excerpts or {}).get(pid, "")
            lines.append(f"  {pid} {get_phase(pid).name}: {escape(note) or 'done'}")
    reads = action.get("read") or []
    lines.append(
        "read only these files: "
        + (", ".join(map(escape, reads)) if isinstance(reads, list) and reads else "none")
    )
    call = action.get("workflow")  # issue 25: a fan-out's call is long; `next` prints it whole
    brief = without_prompts({k: v for k, v in action.items() if k != "workflow"})
    lines.append(render_action(brief))
    if call:
        lines.append(
            "  call:  this fan-out is ONE Workflow call: run agents-state next, which prints it "
            "whole, and make it exactly as printed"
        )
    return "\n".join(lines)


def load_excerpts(root: Path, state: State, store: Any = None) -> dict[str, str]:
    """Excerpts of the recent phases' artifacts (bounded reads; a missing file is skipped);
    ``store``: a server store to read them from instead of ``.agents/phases/``."""
    from agents_state.workflow import get_phase

    out: dict[str, str] = {}
    for pid in recent_phases(state):
        if store is not None:
            got = store.read_artifact(get_phase(pid).artifact)
            if got is not None:
                out[pid] = excerpt(pid, got[: 64 * 1024])
            continue
        from agents_state.errors import InvalidInputError
        from agents_state.store.fsops import open_regular

        name = get_phase(pid).artifact
        try:  # never through a link, never blocking on a FIFO: skipped then, as a missing file
            fd = open_regular(
                root / ".agents" / "phases" / name, os.O_RDONLY, f".agents/phases/{name}"
            )
        except (OSError, InvalidInputError):
            continue
        try:
            data = os.read(fd, 64 * 1024)
        except OSError:
            continue
        finally:
            os.close(fd)
        out[pid] = excerpt(pid, data)
    return out
