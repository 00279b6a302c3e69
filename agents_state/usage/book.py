"""The usage book ``.agents/usage.json``: what each part of a workflow cost (issue 24, pure).

Shape (plain JSON, written only by ``usage.record`` under the store's lock)::

    {"version": 1, "workflow": "<state.startedAt>",
     "transcripts": {"<path>": {"offset": 123, "ids": ["msg_..."], "phase": "1.2"}},
     "agents": {"<agent_id>": {"type": "subagents:task-agent", "phase": "2.1", "task": "t2",
                               "phaseBy": "start", "startedAt": "...", "endedAt": "...",
                               "messages": 3,
                               "tokens": {"<model>": {"input": 1, "output": 2,
                                                      "cacheRead": 3, "cacheWrite": 4}}}},
     "main": {"<phase>": {"messages": 2, "tokens": {"<model>": {...}}}},
     "notes": ["..."]}

``agents`` come from each sub-agent's own transcript (SubagentStop), booked to the phase that
was current when the agent started (SubagentStart writes the entry with ``phaseBy: "start"``;
an agent without one, from an older run, is booked by its first response's time, ``phaseBy:
"time"``).  ``main`` comes from the orchestrating conversation's transcript, read after each
engine step (PostToolUse) and at Stop: the responses read at a booking were written since the
previous one, while the phase that booking saw was current (the transcript's ``phase``); the
first booking of a transcript goes by the responses' times (docs/decisions.md).  A response
counts all four kinds of tokens; ``total`` adds them (docs/decisions.md).  A book of another
workflow (another ``startedAt``) is started afresh.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the book's entries, named for the type checker only (the hooks load no typing)
    from typing import Any, Literal, NotRequired, TypedDict

    from agents_state.usage.transcript import Chunk, Msg

    # model -> kind (``KINDS``) -> tokens
    Tokens = dict[str, dict[str, int]]

    class Mark(TypedDict):
        """Where the next read of a transcript starts, and the phase its next responses go to."""

        offset: int
        ids: list[str]
        phase: NotRequired[str]

    class AgentEntry(TypedDict):
        """One sub-agent: the phase (and task) it is booked to, and what it used."""

        type: str
        phase: str
        phaseBy: Literal["start", "time"]
        task: str | None
        messages: int
        tokens: Tokens
        session: NotRequired[str]  # the main transcript beside which the host keeps its own
        startedAt: NotRequired[str]
        endedAt: NotRequired[str]
        stopped: NotRequired[bool]

    class MainEntry(TypedDict):
        """The orchestrating conversation's responses booked to one phase."""

        messages: int
        tokens: Tokens

    class Book(TypedDict):
        """``.agents/usage.json`` (the shape above)."""

        version: int
        workflow: str | None
        transcripts: dict[str, Mark]
        agents: dict[str, AgentEntry]
        main: dict[str, MainEntry]
        notes: list[str]


__all__ = [
    "KINDS",
    "MAX_NOTES",
    "add_agent",
    "add_main",
    "fresh",
    "note",
    "phase_at",
    "phase_windows",
    "remember",
    "start_agent",
    "summary",
    "total",
    "unreadable_lines",
    "unstopped",
]

KINDS = ("input", "output", "cacheRead", "cacheWrite")
MAX_NOTES = 20


def fresh(workflow: str | None) -> Book:
    return {
        "version": 1,
        "workflow": workflow,
        "transcripts": {},
        "agents": {},
        "main": {},
        "notes": [],
    }


def note(book: Book, text: str) -> bool:
    """Add a note once; whether it is new."""
    notes = book.setdefault("notes", [])
    if text in notes:
        return False
    notes.append(text)
    del notes[:-MAX_NOTES]
    return True


def total(tokens: dict[str, Any]) -> int:
    """All tokens of a ``{model: {kind: n}}`` map."""
    return sum(int(per.get(k, 0)) for per in tokens.values() for k in KINDS)


def _add(tokens: dict[str, Any], msg: Msg) -> None:
    per = tokens.setdefault(msg.model, dict.fromkeys(KINDS, 0))
    for k in KINDS:
        per[k] = int(per.get(k, 0)) + msg.tokens[k]


def phase_windows(state: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """``(startedAt, phase, completedAt)`` of every started phase, by start time (raw state)."""
    out = []
    for stage in (state.get("stages") or {}).values():
        if not isinstance(stage, dict):
            continue
        for pid, ph in (stage.get("phases") or {}).items():
            if isinstance(ph, dict) and isinstance(ph.get("startedAt"), str):
                done = ph.get("completedAt")
                out.append((ph["startedAt"][:19], str(pid), done[:19] if done else None))
    out.sort()
    return out


def phase_at(windows: list[tuple[str, str, str | None]], at: str, current: str | None) -> str:
    """The phase that was current at ``at``: the first started phase not completed before it.

    Times are compared to the second (the state's resolution); a response written in the
    second a phase completed belongs to that phase, which the command completing it followed."""
    at = at[:19]
    for _start, pid, done in windows:
        if done is None or at <= done:
            return pid
    return current or (windows[-1][1] if windows else "-")


def remember(book: Book, path: str, chunk: Chunk, phase: str | None = None) -> None:
    """Where the next read of ``path`` starts; ``phase``: the phase current at this booking,
    which the responses written until the next one are booked to."""
    seen: Mark = {"offset": chunk.offset, "ids": chunk.ids}
    if phase:
        seen["phase"] = phase
    book["transcripts"][path] = seen
    if chunk.odd_usage or chunk.bad_lines:
        note(
            book,
            f"{path}: skipped {chunk.odd_usage + chunk.bad_lines} line(s) of an unknown shape",
        )
    if chunk.too_deep or chunk.too_long:
        note(book, unreadable_lines(path, chunk))


def unreadable_lines(path: str, chunk: Chunk) -> str:
    """What was skipped as too deep or too long to parse (issue 32); later lines are booked."""
    from agents_state.usage.transcript import MAX_LINE

    parts = []
    if chunk.too_deep:
        parts.append(f"{chunk.too_deep} nested too deep to parse")
    if chunk.too_long:
        parts.append(f"{chunk.too_long} over {MAX_LINE // (1024 * 1024)} MiB")
    return (
        f"{path}: line(s) skipped ({', '.join(parts)}); the usage in them is not counted, "
        "later lines are booked"
    )


TIME_NOTE = (
    "agents without a start record (SubagentStart) were booked to the phase current at their "
    "first response's time, to the second"
)


def start_agent(
    book: Book, agent_id: str, agent_type: str, phase: str, session: str | None = None
) -> bool:
    """The entry of an agent that starts now, in ``phase`` (its usage comes when it stops);
    whether it is new (a start seen twice changes nothing).  ``session``: the main
    conversation's transcript, beside which the host keeps the agent's own: an agent whose stop
    never comes (killed mid fan-out) is booked from there later (issue 32)."""
    if isinstance(book["agents"].get(agent_id), dict):
        return False
    book["agents"][agent_id] = {
        "type": agent_type,
        "phase": phase,
        "phaseBy": "start",
        "task": None,
        "messages": 0,
        "tokens": {},
    }
    if session:
        book["agents"][agent_id]["session"] = session
    return True


def unstopped(book: Book) -> list[tuple[str, str, str]]:
    """Agents that started and whose stop was never booked: (id, type, session transcript)."""
    out = []
    for aid, entry in (book.get("agents") or {}).items():
        if isinstance(entry, dict) and not entry.get("stopped"):
            session = entry.get("session")
            if isinstance(session, str) and session:
                out.append((aid, str(entry.get("type") or ""), session))
    return out


def add_agent(
    book: Book,
    agent_id: str,
    agent_type: str,
    phase: str,
    task: str | None,
    chunk: Chunk,
) -> AgentEntry:
    """Add what ``chunk`` read from the agent's transcript to its entry (created if new)."""
    entry = book["agents"].setdefault(
        agent_id,
        {
            "type": agent_type,
            "phase": phase,
            "phaseBy": "time",
            "task": task,
            "messages": 0,
            "tokens": {},
        },
    )
    if task and not entry.get("task"):
        entry["task"], entry["phase"] = task, phase
    if chunk.first_at and not entry.get("startedAt"):
        entry["startedAt"] = chunk.first_at
    if chunk.last_at:
        entry["endedAt"] = chunk.last_at
    for msg in chunk.msgs:
        _add(entry["tokens"], msg)
        entry["messages"] += 1
    return entry


def add_main(
    book: Book,
    chunk: Chunk,
    state: dict[str, Any],
    since: str | None = None,
) -> int:
    """Add the orchestrator's responses to ``since``, the phase current at the previous booking
    of this transcript; without one (its first booking), each to the phase current at its time,
    and responses before the workflow started are not the workflow's.  Returns how many were
    added."""
    if since:
        for msg in chunk.msgs:
            if not msg.sidechain:
                _add_main(book, since, msg)
        return sum(not m.sidechain for m in chunk.msgs)
    windows = phase_windows(state)
    started = str(state.get("startedAt") or "")[:19]
    current = state.get("currentPhase")
    added = 0
    for msg in chunk.msgs:
        if msg.sidechain or (started and msg.at and msg.at[:19] < started):
            continue
        pid = phase_at(windows, msg.at, current if isinstance(current, str) else None)
        _add_main(book, pid, msg)
        added += 1
    return added


def _add_main(book: Book, phase: str, msg: Msg) -> None:
    per = book["main"].setdefault(phase, {"messages": 0, "tokens": {}})
    _add(per["tokens"], msg)
    per["messages"] += 1


def _seconds(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    from datetime import datetime

    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return None
    return round(max(0.0, (b - a).total_seconds()), 3)


def summary(book: Book) -> dict[str, Any]:
    """Tokens per agent, task, phase, model and for the workflow (what ``status --json`` shows)."""
    phases: dict[str, dict[str, Any]] = {}
    tasks: dict[str, dict[str, Any]] = {}
    models: dict[str, int] = {}
    agents = {}

    def slot(table: dict[str, dict[str, Any]], key: str) -> dict[str, Any]:
        return table.setdefault(key, {"tokens": 0, "agents": 0, "main": 0, "byKind": {}})

    def count(target: dict[str, Any], tokens: dict[str, Any]) -> None:
        target["tokens"] += total(tokens)
        for per in tokens.values():
            for k in KINDS:
                target["byKind"][k] = target["byKind"].get(k, 0) + int(per.get(k, 0))

    for aid, a in (book.get("agents") or {}).items():
        n = total(a.get("tokens") or {})
        agents[aid] = {
            "type": a.get("type"),
            "phase": a.get("phase"),
            "phaseBy": a.get("phaseBy"),
            "task": a.get("task"),
            "tokens": n,
            "byModel": {m: total({m: t}) for m, t in (a.get("tokens") or {}).items()},
            "messages": a.get("messages", 0),
            "startedAt": a.get("startedAt"),
            "endedAt": a.get("endedAt"),
            "seconds": _seconds(a.get("startedAt"), a.get("endedAt")),
        }
        p = slot(phases, str(a.get("phase") or "-"))
        count(p, a.get("tokens") or {})
        p["agents"] += 1
        if a.get("task"):
            t = slot(tasks, str(a["task"]))
            count(t, a.get("tokens") or {})
            t["agents"] += 1
        for m, t in (a.get("tokens") or {}).items():
            models[m] = models.get(m, 0) + total({m: t})
    for pid, main in (book.get("main") or {}).items():
        p = slot(phases, pid)
        count(p, main.get("tokens") or {})
        p["main"] += total(main.get("tokens") or {})
        for model, t in (main.get("tokens") or {}).items():
            models[model] = models.get(model, 0) + total({model: t})
    return {
        "tokens": sum(p["tokens"] for p in phases.values()),
        "byModel": models,
        "phases": phases,
        "tasks": tasks,
        "agents": agents,
        "notes": list(book.get("notes") or []),
    }
