"""Tasks and waves (and optionally the stage / phase pipeline) as a Mermaid flowchart (pure).

One subgraph per wave holds its tasks; an edge runs from each dependency to its dependent, and a
dotted edge from each wave to the next (waves are also ordered when no task depends on another).
Status is a class style, so the diagram renders with colours on any Git host that renders
Mermaid.  Node ids are generated (``t0``, ``t1`` ... ``w1`` ... ``p2_1``): task ids and titles
are free text and only ever appear inside quoted, escaped labels.
"""

from __future__ import annotations

from itertools import pairwise

from agents_state.errors import NotFoundError
from agents_state.models import State
from agents_state.views.render import MARKS as _MARK
from agents_state.workflow import STAGES, TASK_PHASE, phases_of

__all__ = ["CLASS_STYLES", "GRAPH_ARTIFACT", "escape_label", "graph_markdown", "mermaid"]

GRAPH_ARTIFACT = f"{TASK_PHASE}-graph.md"

# fill / stroke / text colours readable on light and dark themes
CLASS_STYLES: dict[str, str] = {
    "completed": "fill:#d1f5d3,stroke:#1a7f37,color:#0f3d1c",
    "in_progress": "fill:#d6eaff,stroke:#0969da,color:#0a3069,stroke-width:2px",
    "pending": "fill:#f6f8fa,stroke:#8c959f,color:#24292f",
    "failed": "fill:#ffd8d3,stroke:#cf222e,color:#82071e,stroke-width:2px",
    "blocked": "fill:#ffd8d3,stroke:#cf222e,color:#82071e",
    "stopped": "fill:#fbefff,stroke:#8250df,color:#3e1f79",
    "skipped": "fill:#eaeef2,stroke:#8c959f,color:#57606a,stroke-dasharray:4 3",
}
CONFLICT_STYLE = "fill:#fff8c5,stroke:#bf8700,color:#4d2d00,stroke-width:3px"
# order matters: '#' first, since the other entities start with it
_ENTITIES = (
    ("#", "#35;"),
    ('"', "#quot;"),
    ("<", "#lt;"),
    (">", "#gt;"),
    ("`", "#96;"),
    ("\r", " "),
    ("\n", " "),
)
_MAX_LABEL = 60


def escape_label(text: str) -> str:
    """Text that is safe inside a quoted Mermaid label (entity codes, one line, bounded)."""
    if len(text) > _MAX_LABEL:
        text = text[: _MAX_LABEL - 1] + "…"
    for raw, entity in _ENTITIES:
        text = text.replace(raw, entity)
    return text


def _phase_node(pid: str) -> str:
    return "p" + pid.replace(".", "_")


def _pipeline(state: State) -> list[str]:
    lines = []
    for stage in STAGES:
        st = state.stages[stage]
        lines.append(f'  subgraph s_{stage}["{_MARK[st.status]} {stage}"]')
        for p in phases_of(stage):
            ph = state.phase(p.id)
            label = escape_label(f"{_MARK[ph.status]} {p.id} {p.name}")
            lines.append(f'    {_phase_node(p.id)}["{label}"]:::{ph.status}')
        lines.append("  end")
    ids = [_phase_node(p.id) for s in STAGES for p in phases_of(s)]
    for a, b in pairwise(ids):
        lines.append(f"  {a} --> {b}")
    return lines


def _waves(state: State, wave: int | None) -> tuple[list[str], bool]:
    ph = state.phase(TASK_PHASE)
    tasks, waves = ph.tasks or {}, ph.waves or []
    if wave is not None and not 1 <= wave <= len(waves):
        raise NotFoundError(f"no wave {wave}: phase {TASK_PHASE} has {len(waves)} wave(s)")
    node = {tid: f"t{i}" for i, tid in enumerate(tasks)}
    chosen = [(i, w) for i, w in enumerate(waves) if wave is None or i + 1 == wave]
    lines: list[str] = []
    shown: set[str] = set()
    for i, w in chosen:
        lines.append(f'  subgraph w{i + 1}["{_MARK[w.status]} wave {i + 1} ({w.status})"]')
        lines.append("    direction LR")
        for tid in w.tasks:
            t = tasks[tid]
            owner = f" · {t.owner}" if t.owner and t.status == "in_progress" else ""
            if t.merge == "conflict":  # its merge was aborted: a resolve step waits (issue 22)
                files = ", ".join(t.conflictFiles or [])
                label = escape_label(f"⚡ {tid}: {t.title} · merge conflict: {files}")
                lines.append(f'    {node[tid]}["{label}"]:::conflict')
            else:
                label = escape_label(f"{_MARK[t.status]} {tid}: {t.title}{owner}")
                lines.append(f'    {node[tid]}["{label}"]:::{t.status}')
            shown.add(tid)
        lines.append("  end")
        lines.append(f"  class w{i + 1} wave_{w.status}")
    for tid in tasks:
        for dep in tasks[tid].dependencies:
            if tid in shown and dep in shown:
                lines.append(f"  {node[dep]} --> {node[tid]}")
    for (i, _), (j, _) in pairwise(chosen):
        lines.append(f"  w{i + 1} -.-> w{j + 1}")
    return lines, bool(chosen)


def mermaid(state: State, pipeline: bool = False, wave: int | None = None) -> str:
    """The flowchart text (no code fence).  ``wave`` limits it to one wave (1-based)."""
    lines = ["flowchart TD"]
    if pipeline:
        lines += _pipeline(state)
    body, any_wave = _waves(state, wave)
    lines += body
    if pipeline and any_wave:
        lines.append(f"  {_phase_node(TASK_PHASE)} -.-> w{wave or 1}")
    if not pipeline and not any_wave:
        lines.append('  none["no tasks loaded yet (phase 2.1)"]:::pending')
    for name, style in CLASS_STYLES.items():
        lines.append(f"  classDef {name} {style}")
    if any(":::conflict" in ln for ln in body):
        lines.append(f"  classDef conflict {CONFLICT_STYLE}")
    for name, style in CLASS_STYLES.items():
        stroke = style.split("stroke:")[1].split(",")[0]
        lines.append(f"  classDef wave_{name} fill:none,stroke:{stroke}")
    return "\n".join(lines) + "\n"


def graph_markdown(state: State, pipeline: bool = False, wave: int | None = None) -> str:
    """The artifact ``.agents/phases/2.1-graph.md``: a heading and the fenced diagram."""
    ph = state.phase(TASK_PHASE)
    n_tasks, n_waves = len(ph.tasks or {}), len(ph.waves or [])
    return (
        f"# Task graph: {state.task}\n\n"
        f"Revision {state.revision} · updated {state.updatedAt} · {n_tasks} task(s) in "
        f"{n_waves} wave(s). Regenerate with `agents-state graph --write`.\n\n"
        f"```mermaid\n{mermaid(state, pipeline, wave)}```\n"
    )
