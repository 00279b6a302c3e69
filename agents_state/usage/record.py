"""Recording usage from the hooks: read a transcript's new lines, book them, under the lock.

Every update takes the store's lock on ``.agents/``, reads ``.agents/usage.json`` fresh, takes
the transcript's lines from the offset the book remembers (read before the lock, and read again
if the offset moved meanwhile: ``_Reader``), adds what is new and writes the book whole (temp
file, fsync, rename), so that ten sub-agents stopping at once lose no count and no response is
counted twice.  A transcript that is missing or unreadable is noted in the book and
skipped; nothing here ever blocks the host (the callers catch and warn).

With the PostgreSQL store (issue 17) the book is kept in the database (``PG_NAME``), updated
under the workflow's row lock; the transcripts are the host's local files either way.
"""

from __future__ import annotations

import os
import re

import orjson

from agents_state.usage import book as bk
from agents_state.usage.stored import (
    PG_NAME,
    SHOWN,
    USAGE_FILE,
    book_path,
    decode_book,
    read_book,
    read_book_file,
)
from agents_state.usage.transcript import Chunk, read_new

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agents_state.usage.book import AgentEntry, Book

__all__ = [
    "PG_NAME",
    "USAGE_FILE",
    "catch_up",
    "read_book",
    "record_agent",
    "record_codex",
    "record_main",
    "record_session",
    "record_start",
    "record_unstopped",
    "task_in",
]

TASK_PHASE = "2.1"  # workflow.TASK_PHASE, not imported on the hook path


def _warn(text: str) -> None:
    import sys

    try:
        sys.stderr.write(f"agents-state: warning: {text}\n")
    except (OSError, ValueError):
        pass


def _fresh_if_needed(book: Book | None, state: dict[str, Any], present: bool) -> Book:
    workflow = state.get("startedAt")
    if book is None or book.get("workflow") != workflow:
        unreadable = book is None and present
        book = bk.fresh(workflow if isinstance(workflow, str) else None)
        if unreadable:  # a hand edit gone wrong: counting goes on, and says so
            bk.note(book, f"{SHOWN} was unreadable and was started anew")
    for key in ("transcripts", "agents", "main"):
        if not isinstance(book.get(key), dict):
            book[key] = {}
    return book


def _update(root: str, state: dict[str, Any], change: Callable[[Book], bool]) -> None:
    from pathlib import Path

    from agents_state.store.api import pg_from_env

    pg = pg_from_env(root)
    if pg is not None:  # the server store: the same row lock as every update of the workflow
        with pg.locked():
            raw = pg.read_artifact(PG_NAME)
            book = _fresh_if_needed(decode_book(raw), state, raw is not None)
            if change(book):
                pg.write_side(PG_NAME, orjson.dumps(book))
        return
    from agents_state.store.files import Store

    store = Store(Path(root))
    with store.locked():
        try:
            raw_file: bytes | None = read_book_file(root)
        except OSError:
            raw_file = None
        book = _fresh_if_needed(decode_book(raw_file), state, os.path.lexists(book_path(root)))
        if change(book):
            store.write_file(Path(book_path(root)), orjson.dumps(book), SHOWN)


def _seen(book: Book | None, path: str) -> Any:
    return book["transcripts"].get(path) if book is not None else None


def _read_from(seen: Any, path: str) -> Chunk | OSError:
    offset = seen.get("offset", 0) if isinstance(seen, dict) else 0
    ids = seen.get("ids", []) if isinstance(seen, dict) else []
    try:
        return read_new(
            path, offset if isinstance(offset, int) else 0, ids if isinstance(ids, list) else []
        )
    except OSError as e:
        return e


class _Reader:
    """Reads a transcript before the lock is taken, where the book said to start; under the
    lock that read is used if the book still says so (nobody booked this transcript since),
    else the transcript is read again from where the book says now.  A transcript only grows,
    so the lock is held for the book's update, not for the read: ten agents stopping at once
    each read their own transcript in parallel (issue 24, item 5)."""

    def __init__(self, root: str, path: str) -> None:
        self.path = path
        book = read_book(root)
        if book is not None and not isinstance(book.get("transcripts"), dict):
            book = None
        self.seen = _seen(book, path)
        self.early = _read_from(self.seen, path)

    def __call__(self, book: Book) -> Chunk | str:
        """The new lines, or the note (``""`` when it was noted before)."""
        seen = _seen(book, self.path)
        got = self.early if seen == self.seen else _read_from(seen, self.path)
        if isinstance(got, Chunk):
            if got.too_deep or got.too_long:  # said on stderr too: the host shows hook warnings
                _warn(bk.unreadable_lines(self.path, got))
            return got
        text = f"{self.path}: not read ({got.strerror or got}); its usage is not counted"
        return text if bk.note(book, text) else ""


def task_in(state: dict[str, Any], named: str | None, prompt: str | None) -> str | None:
    """The task of phase 2.1 an agent worked on: the one its handoff names, else the only one
    its prompt names."""
    stage = (state.get("stages") or {}).get("IMPLEMENT") or {}
    phase = (stage.get("phases") or {}).get(TASK_PHASE) or {}
    tasks = phase.get("tasks") or {}
    if not isinstance(tasks, dict) or not tasks:
        return None
    if named in tasks:
        return named
    if not prompt:
        return None
    found = [
        t
        for t in tasks
        if re.search(r"(?<![\w-])" + re.escape(t) + r"(?![\w-])", prompt) is not None
    ]
    return found[0] if len(found) == 1 else None


def _current(state: dict[str, Any]) -> str | None:
    current = state.get("currentPhase")
    return current if isinstance(current, str) and current else None


def record_start(
    root: str,
    state: dict[str, Any],
    agent_id: str,
    agent_type: str,
    session: str | None = None,
) -> str | None:
    """A sub-agent starts (SubagentStart): its entry, in the phase current now, which its usage
    is booked to when it stops; returns that phase (``None``: no current phase).  ``session``:
    the main conversation's transcript (``record_unstopped`` finds the agent's beside it)."""
    phase = _current(state)
    if phase is None:
        return None
    _update(root, state, lambda book: bk.start_agent(book, agent_id, agent_type, phase, session))
    return phase


def record_unstopped(root: str, state: dict[str, Any]) -> int:
    """Book what agents whose SubagentStop never came (killed mid fan-out, a crashed session)
    have spent, from their transcripts; how many were read (issue 32: a resumed run otherwise
    spent again on top, unseen).  An agent still running is booked so far: its stop books the
    rest, from the offset the book keeps."""
    book = read_book(root)
    if book is None:
        return 0
    read = 0
    for aid, agent_type, session in bk.unstopped(book):
        path = _agent_file(session, aid)
        if path is not None:
            record_agent(root, state, aid, agent_type, path, stopped=False)
            read += 1
    return read


def catch_up(root: str, state: Callable[[], dict[str, Any] | None]) -> int:
    """``next``: ``record_unstopped`` when the book has agents that never stopped (``state``,
    the raw state, is built only then: one read of the book otherwise)."""
    book = read_book(root)
    if book is None or not bk.unstopped(book):
        return 0
    raw = state()
    return record_unstopped(root, raw) if raw is not None else 0


def _agent_file(session: str, agent: str) -> str | None:
    """Where the host keeps an agent's transcript beside its session's (2.1.330):
    ``<session>/subagents/agent-<id>.jsonl``, a workflow's under ``workflows/<run>/`` (as
    ``hooks.ownroom.agent_transcript`` finds it for a live call)."""
    if not session.endswith(".jsonl") or not re.fullmatch(r"[A-Za-z0-9_.-]+", agent):
        return None
    folder = os.path.join(session[: -len(".jsonl")], "subagents")
    name = f"agent-{agent}.jsonl"
    try:
        runs = sorted(os.listdir(os.path.join(folder, "workflows")))
    except OSError:
        runs = []
    for path in (
        os.path.join(folder, name),
        *(os.path.join(folder, "workflows", r, name) for r in runs),
    ):
        if os.path.isfile(path):
            return path
    return None


def _time_phase(book: Book, state: dict[str, Any], chunk: Chunk) -> str:
    """The phase of an agent without a start record (a run from before SubagentStart wrote
    one): the phase current at its first response's time, to the second, with a note."""
    current = _current(state)
    started = str(state.get("startedAt") or "")[:19]
    first = chunk.first_at or "9999"
    if first[:19] < started or not chunk.first_at:  # a clock apart: the phase now
        return current or "-"
    bk.note(book, bk.TIME_NOTE)
    return bk.phase_at(bk.phase_windows(state), first, current)


def record_agent(
    root: str,
    state: dict[str, Any],
    agent_id: str,
    agent_type: str,
    transcript: str,
    named_task: str | None = None,
    stopped: bool = True,
) -> AgentEntry | None:
    """Book a sub-agent's new usage on its entry; returns the entry (``None``: nothing read).
    ``stopped``: its SubagentStop (else a catch-up by ``record_unstopped``)."""
    out: list[AgentEntry] = []
    read = _Reader(root, transcript)

    def change(book: Book) -> bool:
        chunk = read(book)
        if isinstance(chunk, str):
            return bool(chunk)  # a new note
        known = book["agents"].get(agent_id)
        began = known.get("phase") if isinstance(known, dict) else None
        began = began if isinstance(began, str) and began else None
        # an agent that started in another phase (a reviewer naming a task) is not a task's
        task = task_in(state, named_task, chunk.prompt) if began in (None, TASK_PHASE) else None
        phase = began or (TASK_PHASE if task else _time_phase(book, state, chunk))
        entry = bk.add_agent(book, agent_id, agent_type, phase, task, chunk)
        if stopped:
            entry["stopped"] = True
        out.append(entry)
        bk.remember(book, transcript, chunk)
        return True

    _update(root, state, change)
    return out[0] if out else None


def record_main(root: str, state: dict[str, Any], transcript: str) -> int:
    """Book the orchestrating conversation's new responses; returns how many were added."""
    added: list[int] = []
    read = _Reader(root, transcript)

    def change(book: Book) -> bool:
        chunk = read(book)
        if isinstance(chunk, str):
            return bool(chunk)
        before = book["transcripts"].get(transcript)
        since = before.get("phase") if isinstance(before, dict) else None
        added.append(bk.add_main(book, chunk, state, since if isinstance(since, str) else None))
        bk.remember(book, transcript, chunk, _current(state))
        moved = not isinstance(before, dict) or before.get("phase") != _current(state)
        return bool(chunk.msgs) or moved or chunk.bad_lines + chunk.odd_usage > 0

    _update(root, state, change)
    return added[0] if added else 0


def record_session(root: str, state: dict[str, Any], transcript: str) -> None:
    """A session starts (SessionStart): its transcript's responses from here on are booked by
    order, starting with the phase current now; a transcript the book knows (a resume, a
    compaction) has what was written since its last booking booked first, to the phase then.
    Without this, a conversation's first responses were booked by time, to the second: a
    session started in the second a phase moved booked them to the phase before (issue 24)."""
    phase = _current(state)
    if phase is None:
        return
    if os.path.exists(transcript):
        record_main(root, state, transcript)
        return

    def change(book: Book) -> bool:  # a new session: the host writes it later
        if transcript in book["transcripts"]:
            return False
        book["transcripts"][transcript] = {"offset": 0, "ids": [], "phase": phase}
        return True

    _update(root, state, change)


def record_codex(root: str, state: dict[str, Any], entry_id: str, entry: AgentEntry) -> None:
    """Book a Codex review's usage (issue 37, ``review run``): one entry among the agents, of
    type ``codex``, its tokens by model; the same id twice is booked once."""

    def change(book: Book) -> bool:
        if entry_id in book["agents"]:
            return False
        book["agents"][entry_id] = entry
        return True

    _update(root, state, change)
